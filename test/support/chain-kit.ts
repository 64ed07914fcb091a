import { expect } from 'chai';
import {
  HDNodeWallet,
  Transaction,
  concat,
  decodeRlp,
  encodeRlp,
  keccak256,
  toBeArray,
  type TransactionLike,
  type Wallet,
} from 'ethers';
import type { CommittedBlock } from '@evmnode/core';
import type { Chain } from '@evmnode/core/internal';
import { expectValidResult } from './openrpc.js';
import { rpc } from './rpc-client.js';

/** The local network's chain ID. */
export const CHAIN_ID = 713714n;
export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';
/** Every fee goes here (decisions.md D4). */
export const FEE_COLLECTOR = '0x27f7b8b8b5a4e71e8e9aa671f4e4031e3773303f';
export const GWEI = 1_000_000_000n;
export const ETHER = 10n ** 18n;
/** What each dev account holds at genesis. */
export const DEV_BALANCE = 10_000n * ETHER;
export const BLOCK_GAS_LIMIT = 12_500_000n;

const devWallets = new Map<number, HDNodeWallet>();

/** Dev account `index` of the test mnemonic (m/44'/60'/0'/0/index). */
export function devWallet(index: number): HDNodeWallet {
  let wallet = devWallets.get(index);
  if (wallet === undefined) {
    wallet = HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, `m/44'/60'/0'/0/${index}`);
    devWallets.set(index, wallet);
  }
  return wallet;
}

/** The lower-case 0x form of an address, as the node writes addresses. */
/**
 * Init code that emits `count` (below 2^24) empty LOG0s in a loop, about 410 gas each, and
 * stops: a block of as many logs as its gas allows, for the cheapest gas a log costs.
 */
export const manyLogsInit = (count: number): string =>
  `0x62${count.toString(16).padStart(6, '0')}5b60006000a0600190038060045700`;

/**
 * Init code that emits `count` (below 2^24) empty LOG1s in a loop, the topic of each the loop's
 * countdown (`count` down to 1): every log has an event index entry and a topic entry of its own.
 */
export const manyTopicLogsInit = (count: number): string =>
  `0x62${count.toString(16).padStart(6, '0')}5b8060006000a1600190038060045700`;

export const lower = (address: string): string => address.toLowerCase();

/** Hex quantity of a bigint or number, as JSON-RPC writes it. */
export const quantity = (value: bigint | number): string => `0x${value.toString(16)}`;

/**
 * The next block's base fee after a block that used `gasUsed` of `gasLimit` at `baseFee`,
 * written from decisions.md D4 (target 250,000 gas, +1.89% at most on a full block, -0.39% at
 * most on an empty one, within [1 gwei, 1000 gwei]), independently of core's implementation.
 */
export function expectedNextBaseFee(baseFee: bigint, gasUsed: bigint, gasLimit: bigint): bigint {
  const target = 250_000n;
  let next = baseFee;
  if (gasUsed > target) next = baseFee + (baseFee * 189n * (gasUsed - target)) / (10_000n * (gasLimit - target));
  else if (gasUsed < target) next = baseFee - (baseFee * 39n * (target - gasUsed)) / (10_000n * target);
  if (next < GWEI) return GWEI;
  if (next > 1000n * GWEI) return 1000n * GWEI;
  return next;
}

/** Fields of a transaction to sign; chain ID and fees default to the local chain and 2 gwei (fee cap) / 1 gwei (tip). */
export type TxFields = Omit<TransactionLike<string>, 'from' | 'hash' | 'signature'> & { nonce: number };

/** Signs offline, with the nonce given. */
export function sign(wallet: Wallet | HDNodeWallet, fields: TxFields): Promise<string> {
  const type = fields.type ?? 2;
  const fees =
    type === 2 || type === 4
      ? { maxFeePerGas: 2n * GWEI, maxPriorityFeePerGas: GWEI }
      : type === 0 || type === 1
        ? { gasPrice: 2n * GWEI }
        : {};
  return wallet.signTransaction({
    chainId: CHAIN_ID,
    gasLimit: 21_000n,
    value: 0n,
    ...fees,
    ...fields,
    type,
  });
}

/** A legacy transaction without EIP-155 replay protection (v = 27 or 28), which ethers' wallets refuse to sign. */
export function signUnprotected(wallet: Wallet | HDNodeWallet, fields: TxFields): string {
  const tx = Transaction.from({
    type: 0,
    chainId: 0n,
    gasLimit: 21_000n,
    gasPrice: 2n * GWEI,
    value: 0n,
    ...fields,
  });
  tx.signature = wallet.signingKey.sign(tx.unsignedHash);
  const serialized = tx.serialized;
  // RLP list of 9: the v byte is 0x1b or 0x1c, right after the 6 unsigned fields.
  expect(Transaction.from(serialized).chainId).to.equal(0n);
  expect(Transaction.from(serialized).signature!.v).to.be.oneOf([27, 28]);
  return serialized;
}

/**
 * A signed type-2 transaction RLP-encoded by hand, without the consistency checks with which
 * ethers refuses to sign (a tip above the fee cap).
 */
export function signDynamicFeeUnchecked(
  wallet: Wallet | HDNodeWallet,
  fields: {
    nonce: number;
    to: string;
    maxFeePerGas: bigint;
    maxPriorityFeePerGas: bigint;
    gasLimit?: bigint;
    value?: bigint;
    data?: string;
  },
): string {
  const unsigned = [
    toBeArray(CHAIN_ID),
    toBeArray(fields.nonce),
    toBeArray(fields.maxPriorityFeePerGas),
    toBeArray(fields.maxFeePerGas),
    toBeArray(fields.gasLimit ?? 21_000n),
    fields.to,
    toBeArray(fields.value ?? 0n),
    fields.data ?? '0x',
    [],
  ];
  const signature = wallet.signingKey.sign(keccak256(concat(['0x02', encodeRlp(unsigned)])));
  return concat([
    '0x02',
    encodeRlp([...unsigned, toBeArray(signature.yParity), toBeArray(signature.r), toBeArray(signature.s)]),
  ]);
}

/**
 * A signed type-2 transaction with some of its signature fields (y-parity, r, s) replaced, RLP
 * re-encoded by hand: ethers will not serialize non-canonical signatures.
 */
export function withSignature(signed: string, replaced: { yParity?: bigint; r?: bigint; s?: bigint }): string {
  expect(signed.startsWith('0x02')).to.equal(true);
  const fields = decodeRlp(`0x${signed.slice(4)}`) as string[];
  const [yParity, r, s] = fields.slice(9).map((field) => (field === '0x' ? 0n : BigInt(field)));
  return concat([
    '0x02',
    encodeRlp([
      ...fields.slice(0, 9),
      toBeArray(replaced.yParity ?? yParity!),
      toBeArray(replaced.r ?? r!),
      toBeArray(replaced.s ?? s!),
    ]),
  ]);
}

/** The order of secp256k1. */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/**
 * One signed transaction of each type the chain takes, with consecutive nonces from `firstNonce`,
 * each sending 1 wei to `to`: legacy (EIP-155), access list (`to` and one slot), dynamic fee, and
 * set code with one authorization by `authority` (at nonce 0) delegating to `to`.
 */
export async function signEachType(
  wallet: Wallet | HDNodeWallet,
  firstNonce: number,
  to: string,
  authority: Wallet | HDNodeWallet,
): Promise<string[]> {
  const authorization = await authority.authorize({ address: to, nonce: 0, chainId: CHAIN_ID });
  return Promise.all([
    sign(wallet, { type: 0, nonce: firstNonce, to, value: 1n }),
    sign(wallet, {
      type: 1,
      nonce: firstNonce + 1,
      to,
      value: 1n,
      gasLimit: 30_000n,
      accessList: [{ address: to, storageKeys: [`0x${'00'.repeat(31)}07`] }],
    }),
    sign(wallet, { type: 2, nonce: firstNonce + 2, to, value: 1n }),
    sign(wallet, {
      type: 4,
      nonce: firstNonce + 3,
      to,
      value: 1n,
      gasLimit: 100_000n,
      authorizationList: [authorization],
    }),
  ]);
}

/** The JSON-RPC answer of eth_sendRawTransaction. */
export async function sendRaw(url: string, raw: string): Promise<any> {
  return rpc(url, 'eth_sendRawTransaction', [raw]);
}

/** Sends a raw transaction that must be admitted; returns its hash, checked against the schema and the raw. */
export async function submit(url: string, raw: string): Promise<string> {
  const answer = await sendRaw(url, raw);
  expect(answer.error, `eth_sendRawTransaction: ${JSON.stringify(answer.error)}`).to.equal(undefined);
  expectValidResult('eth_sendRawTransaction', answer.result);
  expect(answer.result).to.equal(Transaction.from(raw).hash);
  return answer.result as string;
}

/**
 * Submits transactions of one sender with consecutive nonces so that one block mines them all: the
 * later ones first (they wait in the pool for the gap), then the first, which makes all ready at
 * once. Returns their hashes in nonce order.
 */
export async function submitTogether(url: string, raws: readonly string[]): Promise<string[]> {
  const [first, ...rest] = raws;
  const later = [];
  for (const raw of rest) later.push(await submit(url, raw));
  return [await submit(url, first!), ...later];
}

export async function balanceOf(url: string, address: string, block?: unknown): Promise<bigint> {
  const answer = await rpc(url, 'eth_getBalance', block === undefined ? [address] : [address, block]);
  expect(answer.error, `eth_getBalance: ${JSON.stringify(answer.error)}`).to.equal(undefined);
  expectValidResult('eth_getBalance', answer.result);
  return BigInt(answer.result);
}

export async function blockNumber(url: string): Promise<number> {
  const answer = await rpc(url, 'eth_blockNumber');
  expectValidResult('eth_blockNumber', answer.result);
  return Number(answer.result);
}

/** The receipt, or null, validated against the schema. */
export async function receiptOf(url: string, hash: string): Promise<any> {
  const answer = await rpc(url, 'eth_getTransactionReceipt', [hash]);
  expect(answer.error, `eth_getTransactionReceipt: ${JSON.stringify(answer.error)}`).to.equal(undefined);
  expectValidResult('eth_getTransactionReceipt', answer.result);
  return answer.result;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls eth_getTransactionReceipt until the transaction is mined. */
export async function waitForReceipt(url: string, hash: string, timeoutMs = 20_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const receipt = await receiptOf(url, hash);
    if (receipt !== null) return receipt;
    if (Date.now() > deadline) throw new Error(`no receipt for ${hash} after ${timeoutMs}ms`);
    await sleep(20);
  }
}

/** Resolves with the next `count` blocks the chain publishes. */
export function nextBlocks(chain: Chain, count = 1): Promise<CommittedBlock[]> {
  return new Promise((resolve) => {
    const seen: CommittedBlock[] = [];
    const stop = chain.events.onBlock((committed) => {
      seen.push(committed);
      if (seen.length === count) {
        stop();
        resolve(seen);
      }
    });
  });
}

/** Resolves once the head is at least `height`. */
export async function untilHeight(chain: Chain, height: number): Promise<void> {
  while (chain.head().height < height) await nextBlocks(chain);
}

/** Asserts a JSON-RPC answer is the transaction rejection of decisions.md D3. */
export function expectRejection(answer: any, message: string, sdkCode: number): void {
  expect(answer.result, `expected a rejection, got ${JSON.stringify(answer.result)}`).to.equal(undefined);
  expect(answer.error).to.deep.equal({ code: -32003, message, data: { code: sdkCode, codespace: 'sdk' } });
}

/** The native check codes of the Cosmos SDK `sdk` codespace used in rejections. */
export const SdkCode = {
  TxDecode: 2,
  Unauthorized: 4,
  InsufficientFunds: 5,
  OutOfGas: 11,
  InsufficientFee: 13,
  TxInMempoolCache: 19,
  MempoolIsFull: 20,
  TxTooLarge: 21,
  InvalidChainId: 28,
  WrongSequence: 32,
  NotSupported: 37,
  InvalidGasLimit: 41,
} as const;
