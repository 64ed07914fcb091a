/**
 * The trace bench's workload: rounds of ERC20 transfers each meant to land in one block, submitted
 * all at once just after a block starts, so that the block holds them all (block time ample beside
 * the submission; 200 transfers are ~10.4M gas, under the 12.5M block gas limit).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { blockNumber, type Receipt } from './chain-rpc.js';
import type { ChainServer } from './chain-servers.js';
import { deployToken, devSenders, ingest, signTokenTransfers, SENDER_COUNT, type Sender } from './chain-workload.js';

const POLL_MS = 10;
const ROUND_MS = 60_000;

/** A server's dev senders and the token they transfer, ready for rounds. */
export interface TokenWorkload {
  readonly server: ChainServer;
  readonly senders: readonly Sender[];
  readonly token: string;
}

/** The block that took the most of a round's transfers. */
export interface RoundBlock {
  readonly height: number;
  /** The round's transactions in that block, in block order. */
  readonly transactions: readonly string[];
  /** evmnode's commit time of that block (its `block committed` line); undefined for anvil. */
  readonly commitMs: number | undefined;
}

export async function prepareToken(server: ChainServer): Promise<TokenWorkload> {
  const senders = await devSenders(server.url);
  const token = await deployToken(server.url, server.chainId, senders, performance.now() + ROUND_MS);
  return { server, senders, token };
}

/** Signs `transfers` token transfers, waits for a new block, then submits them all at once. */
export async function oneBlockRound(workload: TokenWorkload, transfers: number): Promise<RoundBlock> {
  const { server, senders, token } = workload;
  const txs = await signTokenTransfers(senders, server.chainId, token, Math.ceil(transfers / SENDER_COUNT));
  const start = await blockNumber(server.url);
  while ((await blockNumber(server.url)) === start) await sleep(POLL_MS);
  const { receipts } = await ingest(server.url, txs, transfers, performance.now() + ROUND_MS);
  const byBlock = new Map<number, Receipt[]>();
  for (const receipt of receipts) {
    const height = Number(receipt.blockNumber);
    byBlock.set(height, [...(byBlock.get(height) ?? []), receipt]);
  }
  const [height, largest] = [...byBlock].sort(([, a], [, b]) => b.length - a.length)[0]!;
  const inBlockOrder = largest.sort((a, b) => Number(a.transactionIndex) - Number(b.transactionIndex));
  return {
    height,
    transactions: inBlockOrder.map((receipt) => receipt.transactionHash),
    commitMs: server.name === 'evmnode' ? (await committed(server, height)).durationMs : undefined,
  };
}

/** evmnode's `block committed` line for `height`, written just after the block's receipts are readable. */
async function committed(server: ChainServer, height: number) {
  const deadline = performance.now() + ROUND_MS;
  for (;;) {
    const line = server.blocks.find((block) => block.height === height);
    if (line !== undefined) return line;
    if (performance.now() > deadline) throw new Error(`no "block committed" line for block ${height}`);
    await sleep(POLL_MS);
  }
}
