/**
 * The calls the method bench measures, each with the check its answers must pass: an error answer,
 * a wrong id or a result of the wrong shape or value counts as an error, never as a served call.
 */
import { Interface } from 'ethers';
import { testToken } from '@evmnode/tools/contracts/test-token';
import { readAnswer } from './chain-id-call.js';
import type { PostedCall } from './http-load.js';

/** What the chain holds once the bench has prepared it. */
export interface Fixture {
  readonly token: string;
  /** A dev account with ETH and `holderTokens` of the token, which sends nothing while calls are measured. */
  readonly holder: string;
  readonly holderTokens: bigint;
  /** An address without tokens, so that an estimated transfer creates a balance. */
  readonly recipient: string;
}

/** A throughput target: evmnode's rate divided by a peer's. */
export interface Ratio {
  readonly peer: string;
  readonly atLeast: number;
  /** The peer's rate at this other method case, not at the same one (e.g. an `eth_` equivalent on evmnode). */
  readonly method?: string;
  /** The peer's rate (calls/s) where the bench does not run it: measured separately on a 2-core machine. */
  readonly knownRate?: number;
}

export interface MethodCase {
  readonly name: string;
  /** JSON-RPC calls in one request: 1, or the size of a batch. */
  readonly calls: number;
  /** How many blocks (genesis included) the chain must have before the call can be built. */
  readonly blocksNeeded: number;
  readonly targets: readonly Ratio[];
  /** Servers that serve the method; all when omitted. */
  readonly servers?: readonly string[];
  /** The request for a chain prepared as `fixture` whose head is `head`. */
  build(fixture: Fixture, head: number): PostedCall;
}

const BATCH_SIZE = 100;

const LATEST_FULL_BLOCK = 'eth_getBlockByNumber(latest, true)';
/** The legacy block views: evmnode only, at least 0.9x its own `eth_` view of the same block. */
const LEGACY_BLOCK_VIEWS = ['ext_getBlockByNumber', 'ext2_getBlockByNumber'] as const;
const TOKEN_LOGS = 'eth_getLogs(token, last 100 blocks)';
/** What evmnode must enable for the legacy cases (`[evm] enabled_legacy_ext_apis`). */
export const LEGACY_METHODS: readonly string[] = [...LEGACY_BLOCK_VIEWS, 'ext_getLogs'];

/** The token's logs of the last 100 blocks, with `method` (`eth_getLogs` or `ext_getLogs`). */
function tokenLogs(method: string, { token }: Fixture, head: number): PostedCall {
  const range = { fromBlock: hex(Math.max(0, head - 99)), toBlock: hex(head), address: token };
  return single(method, [range], (result) => Array.isArray(result));
}

const erc20 = new Interface(testToken().abi);
const QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/;
const HASH = /^0x[0-9a-f]{64}$/;
const hex = (value: number): string => `0x${value.toString(16)}`;
const isQuantity = (value: unknown): value is string => typeof value === 'string' && QUANTITY.test(value);

export const METHOD_CASES: readonly MethodCase[] = [
  {
    name: 'eth_blockNumber',
    calls: 1,
    blocksNeeded: 1,
    targets: [{ peer: 'anvil', atLeast: 0.8 }],
    build: () => single('eth_blockNumber', [], isQuantity),
  },
  {
    name: 'eth_getBalance',
    calls: 1,
    blocksNeeded: 1,
    targets: [{ peer: 'anvil', atLeast: 0.8 }],
    build: ({ holder }) =>
      single('eth_getBalance', [holder, 'latest'], (result) => isQuantity(result) && BigInt(result) > 0n),
  },
  {
    name: 'eth_call (ERC20 balanceOf)',
    calls: 1,
    blocksNeeded: 1,
    targets: [
      { peer: 'anvil', atLeast: 0.3 },
      // ganache 7 (the last release) implements no fork after Shanghai, so it cannot run TestToken's Cancun code.
      { peer: 'ganache', atLeast: 10, knownRate: 360 },
    ],
    build: ({ token, holder, holderTokens }) => {
      const balance = erc20.encodeFunctionResult('balanceOf', [holderTokens]);
      const data = erc20.encodeFunctionData('balanceOf', [holder]);
      return single('eth_call', [{ to: token, data }, 'latest'], (result) => result === balance);
    },
  },
  {
    name: 'eth_estimateGas (ERC20 transfer)',
    calls: 1,
    blocksNeeded: 1,
    targets: [{ peer: 'anvil', atLeast: 0.25 }],
    build: ({ token, holder, recipient }) => {
      const data = erc20.encodeFunctionData('transfer', [recipient, 1n]);
      // A transfer to a new holder costs ~50,000 gas: an answer outside this range is no estimate of it.
      const plausible = (result: unknown): boolean =>
        isQuantity(result) && BigInt(result) > 21_000n && BigInt(result) < 100_000n;
      return single('eth_estimateGas', [{ from: holder, to: token, data }], plausible);
    },
  },
  {
    name: LATEST_FULL_BLOCK,
    calls: 1,
    blocksNeeded: 1,
    targets: [],
    build: () => single('eth_getBlockByNumber', ['latest', true], (result) => isBlock(result)),
  },
  ...LEGACY_BLOCK_VIEWS.map((method): MethodCase => ({
    name: `${method}(latest, true)`,
    calls: 1,
    blocksNeeded: 1,
    servers: ['evmnode'],
    targets: [{ peer: 'evmnode', method: LATEST_FULL_BLOCK, atLeast: 0.9 }],
    build: () => single(method, ['latest', true], (result) => isBlock(result)),
  })),
  {
    name: TOKEN_LOGS,
    calls: 1,
    blocksNeeded: 100,
    targets: [],
    build: (fixture, head) => tokenLogs('eth_getLogs', fixture, head),
  },
  {
    name: 'ext_getLogs(token, last 100 blocks)',
    calls: 1,
    blocksNeeded: 100,
    servers: ['evmnode'],
    targets: [{ peer: 'evmnode', method: TOKEN_LOGS, atLeast: 0.9 }],
    build: (fixture, head) => tokenLogs('ext_getLogs', fixture, head),
  },
  {
    name: `batch of ${BATCH_SIZE} eth_getBlockByNumber(n, true)`,
    calls: BATCH_SIZE,
    blocksNeeded: BATCH_SIZE,
    targets: [],
    build: (_fixture, head) => recentBlocksBatch(head),
  },
];

/** One call with id 1, right when its result passes `check`. */
function single(method: string, params: readonly unknown[], check: (result: unknown) => boolean): PostedCall {
  return {
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    problem: (text) => {
      const answer = readAnswer(text);
      if (answer?.id !== 1) return `not an answer to id 1: ${text.slice(0, 200)}`;
      return answerProblem(answer, check);
    },
  };
}

/** The `BATCH_SIZE` blocks up to `head`, fully hydrated, ids 0.. in height order; right when every block is. */
function recentBlocksBatch(head: number): PostedCall {
  const heights = Array.from({ length: BATCH_SIZE }, (_, index) => head - BATCH_SIZE + 1 + index);
  if (heights[0]! < 0) throw new Error(`a batch of ${BATCH_SIZE} blocks needs a head of at least ${BATCH_SIZE - 1}`);
  const requests = heights.map((height, id) => ({
    jsonrpc: '2.0',
    id,
    method: 'eth_getBlockByNumber',
    params: [hex(height), true],
  }));
  return {
    body: JSON.stringify(requests),
    problem: (text) => {
      let answers: unknown;
      try {
        answers = JSON.parse(text);
      } catch {
        return `not JSON: ${text.slice(0, 200)}`;
      }
      if (!Array.isArray(answers) || answers.length !== BATCH_SIZE)
        return `not an array of ${BATCH_SIZE} answers: ${text.slice(0, 200)}`;
      // A batch's answers may come in any order: each is matched to its request by id.
      for (const answer of answers as readonly { id?: unknown; result?: unknown; error?: unknown }[]) {
        const height = typeof answer.id === 'number' ? heights[answer.id] : undefined;
        if (height === undefined) return `answer to no request: ${JSON.stringify(answer).slice(0, 200)}`;
        const problem = answerProblem(answer, (result) => isBlock(result) && result.number === hex(height));
        if (problem !== undefined) return `block ${height}: ${problem}`;
      }
      return undefined;
    },
  };
}

function answerProblem(
  answer: { readonly result?: unknown; readonly error?: unknown },
  check: (result: unknown) => boolean,
): string | undefined {
  if (answer.error !== undefined) return `error ${JSON.stringify(answer.error).slice(0, 200)}`;
  if (!('result' in answer)) return 'answer without result';
  return check(answer.result) ? undefined : `unexpected result ${JSON.stringify(answer.result).slice(0, 200)}`;
}

/** A block with its transactions as objects, as `eth_getBlockByNumber(n, true)` gives it. */
function isBlock(value: unknown): value is { number: string; hash: string; transactions: unknown[] } {
  if (typeof value !== 'object' || value === null) return false;
  const block = value as { number?: unknown; hash?: unknown; transactions?: unknown };
  return (
    isQuantity(block.number) &&
    typeof block.hash === 'string' &&
    HASH.test(block.hash) &&
    Array.isArray(block.transactions) &&
    block.transactions.every((transaction) => typeof transaction === 'object' && transaction !== null)
  );
}
