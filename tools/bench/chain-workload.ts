/**
 * The chain bench's workload: dev-account senders, pre-signed ETH and ERC20 transfers, and their
 * ingestion (submit with `eth_sendRawTransaction` at a fixed concurrency, then wait for receipts).
 */
import {
  ContractFactory,
  HDNodeWallet,
  Interface,
  getAddress,
  getCreateAddress,
  hexlify,
  keccak256,
  randomBytes,
} from 'ethers';
import { setTimeout as sleep } from 'node:timers/promises';
import { testToken } from '@evmnode/tools/contracts/test-token';
import { blockNumber, receiptOf, rpc, RpcError, type Receipt } from './chain-rpc.js';

const DEV_MNEMONIC = 'test test test test test test test test test test test junk';
export const SENDER_COUNT = 10;
const MAX_FEE = 100_000_000_000n; // 100 gwei
const TIP = 1_000_000_000n; // 1 gwei
/** What `deployToken` mints; every sender but the deployer is given an equal share of it. */
export const TOKEN_SUPPLY = 10n ** 27n;
/** How often `eth_blockNumber` is polled while waiting: small beside a 400 ms block. */
const POLL_MS = 20;

/** A dev account and the nonce its next signed transaction takes. */
export interface Sender {
  readonly wallet: HDNodeWallet;
  nonce: number;
}

export interface SignedTx {
  readonly raw: string;
  readonly hash: string;
}

/** What the fields of a transaction to sign are, beside sender, nonce, chain and fees. */
export interface Call {
  readonly to?: string;
  readonly data?: string;
  readonly value?: bigint;
  readonly gasLimit: bigint;
}

export interface Ingestion {
  readonly transactions: number;
  /** First submit to the last submit answered. */
  readonly submitSeconds: number;
  /** First submit to the last receipt seen. */
  readonly totalSeconds: number;
  /** Every receipt, in submission order (all checked to have status 0x1). */
  readonly receipts: readonly Receipt[];
}

/** The first ten dev accounts (m/44'/60'/0'/0/i), each at its current nonce. */
export async function devSenders(url: string): Promise<Sender[]> {
  const root = HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, "m/44'/60'/0'/0");
  const wallets = Array.from({ length: SENDER_COUNT }, (_, index) => root.deriveChild(index));
  return Promise.all(wallets.map(async (wallet) => ({ wallet, nonce: await currentNonce(url, wallet.address) })));
}

/** `eth_getTransactionCount` where served; evmnode lacks it yet, and a fresh home's dev accounts are at 0. */
async function currentNonce(url: string, address: string): Promise<number> {
  try {
    return Number(await rpc<string>(url, 'eth_getTransactionCount', [address, 'pending']));
  } catch (error) {
    if (error instanceof RpcError && error.code === -32601) return 0;
    throw error;
  }
}

/** `perSender` ETH transfers (21,000 gas) from each sender to fresh random addresses. */
export function signEthTransfers(
  senders: readonly Sender[],
  chainId: bigint,
  perSender: number,
): Promise<SignedTx[][]> {
  return signEach(senders, chainId, perSender, () => ({ to: randomAddress(), value: 1_000n, gasLimit: 21_000n }));
}

/** `perSender` token transfers of 1 unit from each sender to fresh random addresses. */
export function signTokenTransfers(
  senders: readonly Sender[],
  chainId: bigint,
  token: string,
  perSender: number,
): Promise<SignedTx[][]> {
  const erc20 = new Interface(testToken().abi);
  return signEach(senders, chainId, perSender, () => ({
    to: token,
    data: erc20.encodeFunctionData('transfer', [randomAddress(), 1n]),
    gasLimit: 100_000n,
  }));
}

/**
 * Deploys TestToken from the first sender and gives every other sender a tenth of the supply;
 * resolves to the token's address once all of it is mined.
 */
export async function deployToken(url: string, chainId: bigint, senders: readonly Sender[], deadline: number) {
  const { abi, bytecode } = testToken();
  const [deployer, ...others] = senders;
  if (deployer === undefined) throw new Error('no senders');
  const token = getCreateAddress({ from: deployer.wallet.address, nonce: deployer.nonce });
  const { data } = await new ContractFactory(abi, bytecode).getDeployTransaction('Bench Token', 'BENCH', TOKEN_SUPPLY);
  const erc20 = new Interface(abi);
  const txs = [await sign(deployer, chainId, { data, gasLimit: 2_000_000n })];
  for (const { wallet } of others) {
    const share = erc20.encodeFunctionData('transfer', [wallet.address, TOKEN_SUPPLY / BigInt(senders.length)]);
    txs.push(await sign(deployer, chainId, { to: token, data: share, gasLimit: 100_000n }));
  }
  const { receipts } = await ingest(url, [txs], 1, deadline);
  const created = receipts[0]?.contractAddress;
  if (created?.toLowerCase() !== token.toLowerCase()) throw new Error(`TestToken deployed at ${created}, not ${token}`);
  return token;
}

/**
 * Submits every transaction, `inFlight` at a time, each sender's in nonce order with senders
 * interleaved; waits for the receipt of each sender's last one (mined in nonce order, so the rest
 * are mined too), then reads every receipt to check it succeeded.
 */
export async function ingest(
  url: string,
  bySender: readonly (readonly SignedTx[])[],
  inFlight: number,
  deadline: number,
): Promise<Ingestion> {
  const longest = Math.max(...bySender.map((txs) => txs.length));
  const order = Array.from({ length: longest }, (_, nonce) => bySender.flatMap((txs) => txs[nonce] ?? [])).flat();
  const lasts = bySender.flatMap((txs) => txs.at(-1) ?? []);
  const failed = new AbortController();

  const started = performance.now();
  let next = 0;
  const submitting = Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < order.length) {
        const tx = order[next++]!;
        const hash = await rpc<string>(url, 'eth_sendRawTransaction', [tx.raw]);
        if (hash !== tx.hash) throw new Error(`eth_sendRawTransaction answered ${hash}, expected ${tx.hash}`);
      }
    }),
  ).then(
    () => performance.now() - started,
    (error: unknown) => {
      failed.abort();
      throw error;
    },
  );
  const [submitMs, totalMs] = await Promise.all([submitting, untilMined(url, lasts, deadline, failed.signal)]);
  const totalSeconds = (totalMs - started) / 1000;

  const receipts = await mapConcurrently(order, 32, async ({ hash }) => {
    const receipt = await receiptOf(url, hash);
    if (receipt === null) throw new Error(`no receipt for ${hash} although later nonces are mined`);
    if (receipt.status !== '0x1') throw new Error(`transaction ${hash} failed: status ${receipt.status}`);
    return receipt;
  });
  return { transactions: order.length, submitSeconds: submitMs / 1000, totalSeconds, receipts };
}

/** Resolves to the time every one of `lasts` has a receipt, checked each time the height changes. */
async function untilMined(url: string, lasts: readonly SignedTx[], deadline: number, stop: AbortSignal) {
  const waiting = new Set(lasts.map(({ hash }) => hash));
  let height = -1;
  while (waiting.size > 0 && !stop.aborted) {
    if (performance.now() > deadline)
      throw new Error(
        `${waiting.size} of ${lasts.length} senders' last transactions still have no receipt at the deadline`,
      );
    const now = await blockNumber(url);
    if (now === height) {
      await sleep(POLL_MS);
      continue;
    }
    height = now;
    const receipts = await Promise.all([...waiting].map((hash) => receiptOf(url, hash)));
    for (const receipt of receipts) if (receipt !== null) waiting.delete(receipt.transactionHash);
  }
  return performance.now();
}

/** Signs `perSender` transactions per sender, built by `call`, at consecutive nonces. */
async function signEach(
  senders: readonly Sender[],
  chainId: bigint,
  perSender: number,
  call: () => Call,
): Promise<SignedTx[][]> {
  const signed: SignedTx[][] = [];
  for (const sender of senders) {
    const txs: SignedTx[] = [];
    for (let index = 0; index < perSender; index++) txs.push(await sign(sender, chainId, call()));
    signed.push(txs);
  }
  return signed;
}

/** Signs `call` as `sender`'s next EIP-1559 transaction, at the workload's fees. */
export async function sign(sender: Sender, chainId: bigint, call: Call): Promise<SignedTx> {
  const raw = await sender.wallet.signTransaction({
    type: 2,
    chainId,
    nonce: sender.nonce++,
    maxFeePerGas: MAX_FEE,
    maxPriorityFeePerGas: TIP,
    ...call,
  });
  return { raw, hash: keccak256(raw) };
}

const randomAddress = (): string => getAddress(hexlify(randomBytes(20)));

/** `work` over `items` with at most `limit` running at once; results in input order. */
async function mapConcurrently<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!);
      }
    }),
  );
  return results;
}
