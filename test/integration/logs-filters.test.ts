import { expect } from 'chai';
import {
  AbiCoder,
  Contract,
  Interface,
  JsonRpcProvider,
  getAddress,
  toBeHex,
  zeroPadValue,
  type ContractEventPayload,
  type HDNodeWallet,
} from 'ethers';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import {
  blockNumber,
  CHAIN_ID,
  devWallet,
  lower,
  manyLogsInit,
  quantity,
  sign,
  sleep,
  submit,
  submitTogether,
  untilHeight,
  waitForReceipt,
} from '../support/chain-kit.js';
import { expectValidResult } from '../support/openrpc.js';
import { widestLogCriteria } from '../support/log-criteria.js';
import { WsClient } from '../support/ws-client.js';
import { post, rpc, rpcFrom } from '../support/rpc-client.js';
import { compileContract } from '../support/solidity.js';

const emitter = compileContract('LogEmitter');
const abi = new Interface(emitter.abi);
const coder = AbiCoder.defaultAbiCoder();

const TRANSFER = abi.getEvent('Transfer')!.topicHash;
const NOTE = abi.getEvent('Note')!.topicHash;
const PLAIN = abi.getEvent('Plain')!.topicHash;
const RECIPIENT_1 = '0x00000000000000000000000000000000000000a1';
const RECIPIENT_2 = '0x00000000000000000000000000000000000000a2';
const RECIPIENT_3 = '0x00000000000000000000000000000000000000a3';
/** An address that never emits. */
const NOBODY = '0x00000000000000000000000000000000000000ee';
const UNKNOWN_HASH = `0x${'ab'.repeat(32)}`;

const FILTER_NOT_FOUND = { code: -32000, message: 'filter does not exist' };
const RATE_LIMITED = {
  code: -32005,
  message: 'log query rate limit exceeded for large queries, please try again later',
};
const BOTH_HASH_AND_RANGE = {
  code: -32602,
  message: 'invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other',
};
/** ID of a filter, in geth's form: 16 random bytes as a hex quantity (no leading zeros). */
const FILTER_ID = /^0x(0|[1-9a-f][0-9a-f]{0,31})$/;

/** A 32-byte word holding a number, as an indexed uint256 topic. */
const word = (value: bigint | number): string => zeroPadValue(toBeHex(value), 32);
/** An address as an indexed topic. */
const addressTopic = (address: string): string => zeroPadValue(lower(address), 32);
const input = (name: string, args: readonly unknown[]): string => abi.encodeFunctionData(name, args);

/** A log as eth_getLogs writes it (interface.md §2.5). */
interface LogJson {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  transactionIndex: string;
  logIndex: string;
  removed: boolean;
}

/** The log `name(args)` that `address` emits, encoded by ethers, not by the node. */
function event(address: string, name: string, args: readonly unknown[]): Pick<LogJson, 'address' | 'topics' | 'data'> {
  const { topics, data } = abi.encodeEventLog(name, args);
  return { address: lower(address), topics, data };
}

const transferEvent = (address: string, from: string, to: string, value: number) =>
  event(address, 'Transfer', [from, to, value]);
const noteEvent = (address: string, tag: number, sequence: number) =>
  event(address, 'Note', [tag, coder.encode(['uint256'], [sequence])]);
const plainEvent = (address: string, value: number) => event(address, 'Plain', [value]);

/** That event, placed at block-global `logIndex` in the block and transaction of `receipt`. */
function placed(receipt: any, logIndex: number, emitted: Pick<LogJson, 'address' | 'topics' | 'data'>): LogJson {
  return {
    ...emitted,
    blockNumber: receipt.blockNumber,
    blockHash: receipt.blockHash,
    transactionHash: receipt.transactionHash,
    transactionIndex: receipt.transactionIndex,
    logIndex: quantity(logIndex),
    removed: false,
  };
}

/** Asserts logs come in chain order: by block, then by log index. */
function expectChainOrder(logs: readonly LogJson[]): void {
  for (let index = 1; index < logs.length; index++) {
    const previous = logs[index - 1]!;
    const current = logs[index]!;
    const order =
      Number(previous.blockNumber) - Number(current.blockNumber) ||
      Number(previous.logIndex) - Number(current.logIndex);
    expect(order, `log ${index} comes before log ${index - 1}`).to.be.lessThan(0);
  }
}

/**
 * A successful call's result, validated against the official schema of `method`. An empty array
 * is not: the schema's result is a oneOf of array types, all of which it matches.
 */
async function resultOf(url: string, method: string, params: unknown[]): Promise<any> {
  const answer = await rpc(url, method, params);
  expect(answer.error, `${method}(${JSON.stringify(params)}): ${JSON.stringify(answer.error)}`).to.equal(undefined);
  const emptyArray = Array.isArray(answer.result) && answer.result.length === 0;
  if (!emptyArray) expectValidResult(method, answer.result);
  return answer.result;
}

/** A failing call's error object. */
async function errorOf(url: string, method: string, params: unknown[]): Promise<unknown> {
  const answer = await rpc(url, method, params);
  expect(answer.result, `${method}(${JSON.stringify(params)}) answered ${JSON.stringify(answer.result)}`).to.equal(
    undefined,
  );
  return answer.error;
}

/** A log-returning method's result: always an array, in chain order. */
async function logsOf(url: string, method: string, params: unknown[]): Promise<LogJson[]> {
  const logs = await resultOf(url, method, params);
  expect(logs).to.be.an('array');
  expectChainOrder(logs as LogJson[]);
  return logs as LogJson[];
}

const getLogs = (url: string, criteria: object) => logsOf(url, 'eth_getLogs', [criteria]);
const filterChanges = (url: string, id: string) => logsOf(url, 'eth_getFilterChanges', [id]);
const filterLogs = (url: string, id: string) => logsOf(url, 'eth_getFilterLogs', [id]);

async function newFilter(url: string, criteria: object): Promise<string> {
  const id = (await resultOf(url, 'eth_newFilter', [criteria])) as string;
  expect(id).to.match(FILTER_ID);
  return id;
}

async function newBlockFilter(url: string): Promise<string> {
  const id = (await resultOf(url, 'eth_newBlockFilter', [])) as string;
  expect(id).to.match(FILTER_ID);
  return id;
}

/**
 * Asserts the range limit holds for a filter with a closed range over it: refused when created,
 * or else when its logs are asked for (interface.md §4.6 applies the limits to both methods).
 */
async function expectFilterRangeRefused(url: string, criteria: object, error: unknown): Promise<void> {
  const created = await rpc(url, 'eth_newFilter', [criteria]);
  if (created.error !== undefined) {
    expect(created.error).to.deep.equal(error);
    return;
  }
  expect(created.result).to.match(FILTER_ID);
  expect(await errorOf(url, 'eth_getFilterLogs', [created.result])).to.deep.equal(error);
  expect((await rpc(url, 'eth_uninstallFilter', [created.result])).result).to.equal(true);
}

const uninstall = (url: string, id: string): Promise<boolean> => resultOf(url, 'eth_uninstallFilter', [id]);

/** One sender's transactions, with the nonces kept here. */
class Sender {
  #nonce = 0;

  constructor(
    private readonly url: string,
    readonly wallet: HDNodeWallet,
  ) {}

  #sign(fields: { to?: string; data: string; gasLimit: bigint }): Promise<string> {
    return sign(this.wallet, { nonce: this.#nonce++, ...fields });
  }

  /** Deploys a LogEmitter; returns its address. */
  async deploy(): Promise<string> {
    const receipt = await waitForReceipt(
      this.url,
      await submit(this.url, await this.#sign({ data: emitter.bytecode, gasLimit: 1_000_000n })),
    );
    expect(receipt.status).to.equal('0x1');
    return receipt.contractAddress as string;
  }

  /** Signs a call to `target`'s function `name`, without sending it. */
  call(target: string, name: string, args: readonly unknown[]): Promise<string> {
    return this.#sign({ to: target, data: input(name, args), gasLimit: 500_000n });
  }

  /** Calls `target`'s function `name` in its own transaction; returns the receipt. */
  async mined(target: string, name: string, args: readonly unknown[]): Promise<any> {
    const receipt = await waitForReceipt(this.url, await submit(this.url, await this.call(target, name, args)));
    expect(receipt.status).to.equal('0x1');
    return receipt;
  }

  /** Sends signed calls so that one block holds them all; returns their receipts, in order. */
  async together(raws: readonly string[]): Promise<any[]> {
    const hashes = await submitTogether(this.url, raws);
    const receipts = await Promise.all(hashes.map((hash) => waitForReceipt(this.url, hash)));
    for (const [index, receipt] of receipts.entries()) {
      expect(receipt.status).to.equal('0x1');
      expect(receipt.blockNumber, `transaction ${index} is in another block`).to.equal(receipts[0].blockNumber);
      expect(receipt.transactionIndex).to.equal(quantity(index));
    }
    return receipts;
  }
}

describe('eth_getLogs and polled filters', () => {
  /** Blocks every 5 ms with the default limits, for the 2,000-block boundary and the rate limit. */
  let fast: TestNode;
  let fastEmitter: string;
  /** The one log on `fast`, and the height of its block. */
  let fastNote: LogJson;
  let fastNoteHeight: number;

  before(async () => {
    // Started first so that it has produced over 2,000 blocks by the time its tests run.
    fast = await startTestNode({ config: { consensus: { block_time: 5 } } });
    const sender = new Sender(fast.url, devWallet(5));
    fastEmitter = await sender.deploy();
    const receipt = await sender.mined(fastEmitter, 'notes', [11, 1]);
    fastNote = placed(receipt, 0, noteEvent(fastEmitter, 11, 0));
    fastNoteHeight = Number(receipt.blockNumber);
  });
  after(() => fast.stop());

  describe('eth_getLogs', () => {
    /** Blocks only when there are transactions, so that the head stays where the fixtures left it. */
    let node: TestNode;
    let url: string;
    let first: string;
    let second: string;
    let deployHeight: number;
    /** The three blocks with logs, and the head. */
    let heights: [number, number, number];
    let hashes: [string, string, string];
    let head: number;
    /** Logs of each block, and all of them in chain order. */
    let block1: LogJson[];
    let block2: LogJson[];
    let block3: LogJson[];
    let all: LogJson[];

    const firstLogs = () => all.filter((log) => log.address === lower(first));
    const secondLogs = () => all.filter((log) => log.address === lower(second));

    before(async () => {
      node = await startTestNode({ config: { consensus: { block_time: 50, create_empty_blocks: false } } });
      url = node.url;
      const sender = new Sender(url, devWallet(1));
      const other = new Sender(url, devWallet(2));
      first = await sender.deploy();
      second = await sender.deploy();
      deployHeight = await blockNumber(url);

      // Three transactions in one block; the second emits from both contracts.
      const inOne = await sender.together([
        await sender.call(first, 'transfer', [RECIPIENT_1, 5]),
        await sender.call(first, 'notesWith', [second, 7, 2, 3]),
        await sender.call(second, 'plain', [42]),
      ]);
      block1 = [
        placed(inOne[0], 0, transferEvent(first, sender.wallet.address, RECIPIENT_1, 5)),
        placed(inOne[1], 1, noteEvent(first, 7, 0)),
        placed(inOne[1], 2, noteEvent(first, 7, 1)),
        placed(inOne[1], 3, noteEvent(second, 7, 0)),
        placed(inOne[1], 4, noteEvent(second, 7, 1)),
        placed(inOne[1], 5, noteEvent(second, 7, 2)),
        placed(inOne[2], 6, plainEvent(second, 42)),
      ];
      const inTwo = await sender.together([
        await sender.call(second, 'transfer', [RECIPIENT_2, 6]),
        await sender.call(first, 'notes', [9, 1]),
      ]);
      block2 = [
        placed(inTwo[0], 0, transferEvent(second, sender.wallet.address, RECIPIENT_2, 6)),
        placed(inTwo[1], 1, noteEvent(first, 9, 0)),
      ];
      const last = await other.mined(first, 'transfer', [RECIPIENT_1, 8]);
      block3 = [placed(last, 0, transferEvent(first, other.wallet.address, RECIPIENT_1, 8))];
      all = [...block1, ...block2, ...block3];
      heights = [Number(inOne[0].blockNumber), Number(inTwo[0].blockNumber), Number(last.blockNumber)];
      hashes = [inOne[0].blockHash, inTwo[0].blockHash, last.blockHash];
      head = await blockNumber(url);
      expect(head).to.equal(heights[2]);
      expect(heights[0]).to.be.greaterThan(deployHeight);
    });
    after(() => node.stop());

    describe('criteria', () => {
      it('selects by blockHash: the logs of that block, none for an unknown hash', async () => {
        expect(await getLogs(url, { blockHash: hashes[0] })).to.deep.equal(block1);
        expect(await getLogs(url, { blockHash: hashes[1] })).to.deep.equal(block2);
        expect(await getLogs(url, { blockHash: hashes[2], address: second })).to.deep.equal([]);
        const deployBlock = await resultOf(url, 'eth_getBlockByNumber', [quantity(deployHeight), false]);
        expect(await getLogs(url, { blockHash: deployBlock.hash })).to.deep.equal([]);
        expect(await getLogs(url, { blockHash: UNKNOWN_HASH })).to.deep.equal([]);
      });

      it('takes fromBlock and toBlock as numbers and as tags; both default to the latest block', async () => {
        const cases: [object, LogJson[]][] = [
          [{ fromBlock: quantity(heights[0]), toBlock: quantity(heights[0]) }, block1],
          [{ fromBlock: quantity(heights[1]), toBlock: quantity(heights[1]) }, block2],
          [{ fromBlock: quantity(heights[0]), toBlock: quantity(heights[2]) }, all],
          [{ fromBlock: quantity(heights[0]), toBlock: quantity(heights[1]) }, [...block1, ...block2]],
          [{ fromBlock: quantity(deployHeight), toBlock: quantity(deployHeight) }, []],
          [{ fromBlock: 'earliest', toBlock: 'latest' }, all],
          [{ fromBlock: 'earliest', toBlock: quantity(heights[0]) }, block1],
          [{ fromBlock: '0x0' }, all],
          [{ fromBlock: quantity(heights[1]) }, [...block2, ...block3]],
          [{ fromBlock: quantity(heights[1]), toBlock: 'latest' }, [...block2, ...block3]],
          [{ fromBlock: 'safe', toBlock: 'finalized' }, block3],
          [{ fromBlock: 'latest' }, block3],
          [{}, block3],
          // Without fromBlock, a toBlock before the head is the whole range (the reference node's rule).
          [{ toBlock: quantity(heights[1]) }, block2],
        ];
        for (const [criteria, expected] of cases) {
          expect(await getLogs(url, criteria), JSON.stringify(criteria)).to.deep.equal(expected);
        }
      });

      it('selects by one address or any of several; an empty address list selects any', async () => {
        const cases: [object, LogJson[]][] = [
          [{ address: first }, firstLogs()],
          [{ address: getAddress(first) }, firstLogs()],
          [{ address: [second] }, secondLogs()],
          [{ address: [first, second] }, all],
          [{ address: [NOBODY, second] }, secondLogs()],
          [{ address: [] }, all],
          [{ address: NOBODY }, []],
          [{ address: [second], topics: [NOTE] }, block1.slice(3, 6)],
        ];
        for (const [criteria, expected] of cases) {
          const query = { fromBlock: 'earliest', ...criteria };
          expect(await getLogs(url, query), JSON.stringify(query)).to.deep.equal(expected);
        }
      });

      it('matches topics by position: one topic, an OR-list, null wildcards, a null inside an OR-list', async () => {
        const transfers = [block1[0]!, block2[0]!, block3[0]!];
        const notes = [...block1.slice(1, 6), block2[1]!];
        const sender = devWallet(1).address;
        const cases: [unknown[], LogJson[]][] = [
          [[TRANSFER], transfers],
          [[[TRANSFER, PLAIN]], [block1[0]!, block1[6]!, block2[0]!, block3[0]!]],
          [[NOTE, word(9)], [block2[1]!]],
          [[NOTE, [word(7), word(9)]], notes],
          [[NOTE, [word(9), null]], notes],
          [[[null]], all],
          [[null, addressTopic(devWallet(2).address)], block3],
          [
            [TRANSFER, [addressTopic(sender), addressTopic(devWallet(2).address)], addressTopic(RECIPIENT_1)],
            [block1[0]!, block3[0]!],
          ],
          [[null, null, addressTopic(RECIPIENT_2)], [block2[0]!]],
          [[null, word(7)], block1.slice(1, 6)],
          [[PLAIN], [block1[6]!]],
          [[word(123)], []],
        ];
        for (const [topics, expected] of cases) {
          const query = { fromBlock: 'earliest', topics };
          expect(await getLogs(url, query), JSON.stringify(topics)).to.deep.equal(expected);
        }
      });

      it('needs a log to have at least as many topics as the positions given, wildcards included', async () => {
        const cases: [unknown[], LogJson[]][] = [
          [[], all],
          [[null], all],
          // Plain has one topic: two positions leave it out.
          [[null, null], all.filter((log) => log.topics.length >= 2)],
          // Notes have two: three positions leave only the transfers.
          [
            [null, null, null],
            [block1[0]!, block2[0]!, block3[0]!],
          ],
          [[null, null, null, null], []],
          [[PLAIN, null], []],
          [[NOTE, null, null], []],
        ];
        for (const [topics, expected] of cases) {
          const query = { fromBlock: 'earliest', topics };
          expect(await getLogs(url, query), JSON.stringify(topics)).to.deep.equal(expected);
        }
        expect(all.filter((log) => log.topics.length >= 2)).to.have.length(all.length - 1);
      });

      it('treats an empty OR-list at a position as any topic, as geth does', async () => {
        const notes = [...block1.slice(1, 6), block2[1]!];
        expect(await getLogs(url, { fromBlock: 'earliest', topics: [NOTE, []] })).to.deep.equal(notes);
        expect(await getLogs(url, { fromBlock: 'earliest', topics: [[], word(7)] })).to.deep.equal(block1.slice(1, 6));
      });
    });

    describe('results', () => {
      it('number logIndex across the whole block, over transactions and emitting contracts', async () => {
        const logs = await getLogs(url, { blockHash: hashes[0] });
        expect(logs.map((log) => log.logIndex)).to.deep.equal(['0x0', '0x1', '0x2', '0x3', '0x4', '0x5', '0x6']);
        expect(logs.map((log) => log.transactionIndex)).to.deep.equal([
          '0x0',
          '0x1',
          '0x1',
          '0x1',
          '0x1',
          '0x1',
          '0x2',
        ]);
        expect(logs.map((log) => log.address)).to.deep.equal([
          ...Array<string>(3).fill(lower(first)),
          ...Array<string>(4).fill(lower(second)),
        ]);
        // The receipts give the same logs, block-global indexes included.
        for (const hash of new Set(logs.map((log) => log.transactionHash))) {
          const receipt = await resultOf(url, 'eth_getTransactionReceipt', [hash]);
          expect(receipt.logs).to.deep.equal(logs.filter((log) => log.transactionHash === hash));
        }
      });

      it('come in chain order, by block then log index, whatever the criteria order', async () => {
        expect(await getLogs(url, { fromBlock: 'earliest', address: [second, first] })).to.deep.equal(all);
        expect(
          await getLogs(url, { fromBlock: 'earliest', topics: [[PLAIN, NOTE, TRANSFER]], address: [second, first] }),
        ).to.deep.equal(all);
        expect(
          (await getLogs(url, { fromBlock: 'earliest' })).map((log) => [log.blockNumber, log.logIndex]),
        ).to.deep.equal(all.map((log) => [log.blockNumber, log.logIndex]));
      });

      it('are an empty array, never null, when nothing matches', async () => {
        for (const criteria of [
          { fromBlock: 'earliest', address: NOBODY },
          { blockHash: UNKNOWN_HASH },
          { fromBlock: '0x0', toBlock: '0x0' },
          { topics: [TRANSFER], fromBlock: quantity(heights[1]), toBlock: quantity(heights[1]), address: first },
        ]) {
          expect((await rpc(url, 'eth_getLogs', [criteria])).result, JSON.stringify(criteria)).to.deep.equal([]);
        }
      });
    });

    describe('checks, in the reference node order', () => {
      it('refuses blockHash with fromBlock or toBlock, before any other check', async () => {
        for (const criteria of [
          { blockHash: hashes[0], fromBlock: quantity(heights[0]) },
          { blockHash: hashes[0], toBlock: 'latest' },
          { blockHash: UNKNOWN_HASH, fromBlock: '0x0', toBlock: '0x0' },
          // Also before the address, topic and range checks.
          {
            blockHash: hashes[0],
            fromBlock: quantity(head + 10),
            toBlock: quantity(head + 5),
            address: '0x1234',
            topics: [null, null, null, null, null],
          },
        ]) {
          expect(await errorOf(url, 'eth_getLogs', [criteria]), JSON.stringify(criteria)).to.deep.equal(
            BOTH_HASH_AND_RANGE,
          );
        }
      });

      it('refuses fromBlock after toBlock, before checking toBlock against the head', async () => {
        const greater = (from: number, to: number) => ({
          code: -32000,
          message: `requested fromBlock ${from} is greater than toBlock ${to}`,
        });
        const cases: [object, unknown][] = [
          [{ fromBlock: quantity(heights[1]), toBlock: quantity(heights[0]) }, greater(heights[1], heights[0])],
          [{ fromBlock: quantity(head + 5), toBlock: quantity(head + 2) }, greater(head + 5, head + 2)],
          // Without toBlock, the range ends at the head.
          [{ fromBlock: quantity(head + 1) }, greater(head + 1, head)],
          [{ fromBlock: quantity(head + 1), toBlock: 'latest' }, greater(head + 1, head)],
        ];
        for (const [criteria, error] of cases) {
          expect(await errorOf(url, 'eth_getLogs', [criteria]), JSON.stringify(criteria)).to.deep.equal(error);
        }
      });

      it('refuses a toBlock after the head, before checking the range size', async () => {
        const after = (to: number) => ({
          code: -32000,
          message: `requested toBlock ${to} is after latest available block ${head}`,
        });
        const cases: [object, unknown][] = [
          [{ fromBlock: quantity(heights[0]), toBlock: quantity(head + 1) }, after(head + 1)],
          [{ toBlock: quantity(head + 1) }, after(head + 1)],
          // 5,001 blocks: too many as well, but the head comes first.
          [{ fromBlock: '0x0', toBlock: quantity(head + 5000) }, after(head + 5000)],
        ];
        for (const [criteria, error] of cases) {
          expect(await errorOf(url, 'eth_getLogs', [criteria]), JSON.stringify(criteria)).to.deep.equal(error);
        }
      });

      it('refuses more than four topic positions, before the range checks', async () => {
        const exceed = { code: -32000, message: 'exceed max topics' };
        for (const topics of [
          [null, null, null, null, null],
          [TRANSFER, null, null, null, word(1)],
        ]) {
          expect(await errorOf(url, 'eth_getLogs', [{ fromBlock: 'earliest', topics }])).to.deep.equal(exceed);
        }
        expect(
          await errorOf(url, 'eth_getLogs', [
            { fromBlock: quantity(head + 5), toBlock: quantity(head + 2), topics: [null, null, null, null, null] },
          ]),
        ).to.deep.equal(exceed);
        expect(await getLogs(url, { fromBlock: 'earliest', topics: [TRANSFER, null, null, null] })).to.deep.equal([]);
      });

      it("refuses malformed addresses and topics with geth's invalid-argument messages", async () => {
        const invalid = (message: string) => ({ code: -32602, message: `invalid argument 0: ${message}` });
        const cases: [object, unknown][] = [
          [
            { address: `0x${'11'.repeat(19)}` },
            invalid('invalid address: hex has invalid length 19 after decoding; expected 20 for address'),
          ],
          [
            { address: `0x${'11'.repeat(21)}` },
            invalid('invalid address: hex has invalid length 21 after decoding; expected 20 for address'),
          ],
          [{ address: '11'.repeat(20) }, invalid('invalid address: hex string without 0x prefix')],
          [{ address: `0x${'1'.repeat(39)}` }, invalid('invalid address: hex string of odd length')],
          [{ address: `0x${'zz'.repeat(20)}` }, invalid('invalid address: invalid hex string')],
          [{ address: '' }, invalid('invalid address: empty hex string')],
          [
            { address: [first, '0x1234'] },
            invalid('invalid address at index 1: hex has invalid length 2 after decoding; expected 20 for address'),
          ],
          [{ address: [first, 5] }, invalid('non-string address at index 1')],
          [{ address: 5 }, invalid('invalid addresses in query')],
          [
            { topics: [`0x${'00'.repeat(31)}`] },
            invalid('hex has invalid length 31 after decoding; expected 32 for topic'),
          ],
          [
            { topics: [null, [word(1), `0x${'00'.repeat(33)}`]] },
            invalid('hex has invalid length 33 after decoding; expected 32 for topic'),
          ],
          [{ topics: ['00'.repeat(32)] }, invalid('hex string without 0x prefix')],
          [{ topics: [5] }, invalid('invalid topic(s)')],
          [{ topics: [[word(1), 5]] }, invalid('invalid topic(s)')],
        ];
        for (const [criteria, error] of cases) {
          expect(await errorOf(url, 'eth_getLogs', [criteria]), JSON.stringify(criteria)).to.deep.equal(error);
        }
      });
    });
  });

  describe('filters', () => {
    /** Blocks every 50 ms, empty ones included, and the default filter settings. */
    let node: TestNode;
    let url: string;
    let sender: Sender;

    before(async () => {
      node = await startTestNode({ config: { consensus: { block_time: 50 } } });
      url = node.url;
      sender = new Sender(url, devWallet(3));
    });
    after(() => node.stop());

    it('eth_getFilterChanges returns only the matching logs of blocks after the previous poll', async () => {
      const contract = await sender.deploy();
      const other = await sender.deploy();
      await sender.mined(contract, 'notes', [1, 2]);
      const id = await newFilter(url, { address: contract });
      // Logs from before the filter existed are not changes.
      expect(await filterChanges(url, id)).to.deep.equal([]);

      const notes = await sender.mined(contract, 'notes', [2, 2]);
      expect(await filterChanges(url, id)).to.deep.equal([
        placed(notes, 0, noteEvent(contract, 2, 0)),
        placed(notes, 1, noteEvent(contract, 2, 1)),
      ]);
      expect(await filterChanges(url, id)).to.deep.equal([]);

      const transfer = await sender.mined(contract, 'transfer', [RECIPIENT_1, 3]);
      await sender.mined(other, 'notes', [3, 1]);
      const plain = await sender.mined(contract, 'plain', [4]);
      const together = await sender.together([
        await sender.call(other, 'notesWith', [contract, 5, 1, 1]),
        await sender.call(contract, 'transfer', [RECIPIENT_2, 6]),
      ]);
      expect(await filterChanges(url, id)).to.deep.equal([
        placed(transfer, 0, transferEvent(contract, sender.wallet.address, RECIPIENT_1, 3)),
        placed(plain, 0, plainEvent(contract, 4)),
        placed(together[0], 1, noteEvent(contract, 5, 0)),
        placed(together[1], 2, transferEvent(contract, sender.wallet.address, RECIPIENT_2, 6)),
      ]);
      expect(await filterChanges(url, id)).to.deep.equal([]);
      expect(await uninstall(url, id)).to.equal(true);
    });

    it('eth_getFilterChanges delivers every matching log exactly once, however polls and blocks interleave', async () => {
      const contract = await sender.deploy();
      const start = await blockNumber(url);
      const id = await newFilter(url, { address: contract, topics: [[NOTE, TRANSFER]] });
      const delivered: LogJson[] = [];
      const poll = async () => delivered.push(...(await filterChanges(url, id)));
      const pending: Promise<any>[] = [];
      for (let round = 0; round < 6; round++) {
        // Sent without waiting, so that polls fall before, during and after the blocks that hold them.
        pending.push(submit(url, await sender.call(contract, 'notes', [round, round % 3])));
        pending.push(submit(url, await sender.call(contract, 'plain', [round])));
        await poll();
        await sleep(20 + 30 * (round % 3));
        await poll();
      }
      const receipts = await Promise.all((await Promise.all(pending)).map((hash: string) => waitForReceipt(url, hash)));
      await poll();
      await poll();
      const end = Math.max(...receipts.map((receipt) => Number(receipt.blockNumber)));
      const expected = await getLogs(url, {
        address: contract,
        fromBlock: quantity(start),
        toBlock: quantity(end),
        topics: [NOTE],
      });
      expect(expected).to.have.length(0 + 1 + 2 + 0 + 1 + 2);
      expect(delivered).to.deep.equal(expected);
      expect(await uninstall(url, id)).to.equal(true);
    });

    it('eth_getFilterLogs returns the whole matching set on every call, logs from before the filter included', async () => {
      const contract = await sender.deploy();
      const early = await sender.mined(contract, 'notes', [8, 2]);
      const earlyLogs = [placed(early, 0, noteEvent(contract, 8, 0)), placed(early, 1, noteEvent(contract, 8, 1))];
      const from = quantity(Number(early.blockNumber));
      const id = await newFilter(url, { address: contract, fromBlock: from });
      const transfers = await newFilter(url, { address: [contract], fromBlock: from, topics: [TRANSFER] });
      const closed = await newFilter(url, { address: contract, fromBlock: from, toBlock: from });
      expect(await filterLogs(url, id)).to.deep.equal(earlyLogs);
      expect(await filterLogs(url, id)).to.deep.equal(earlyLogs);
      expect(await filterChanges(url, id)).to.deep.equal([]);
      expect(await filterLogs(url, transfers)).to.deep.equal([]);

      const transfer = await sender.mined(contract, 'transfer', [RECIPIENT_3, 9]);
      const transferLog = placed(transfer, 0, transferEvent(contract, sender.wallet.address, RECIPIENT_3, 9));
      expect(await filterLogs(url, id)).to.deep.equal([...earlyLogs, transferLog]);
      expect(await filterChanges(url, id)).to.deep.equal([transferLog]);
      expect(await filterLogs(url, id)).to.deep.equal([...earlyLogs, transferLog]);
      expect(await filterLogs(url, transfers)).to.deep.equal([transferLog]);
      // A closed range keeps its logs and has no changes after it.
      expect(await filterLogs(url, closed)).to.deep.equal(earlyLogs);
      expect(await filterChanges(url, closed)).to.deep.equal([]);
      for (const filter of [id, transfers, closed]) expect(await uninstall(url, filter)).to.equal(true);
    });

    it('eth_newBlockFilter changes are the hashes of the new blocks, in order and without gaps', async () => {
      const before = await blockNumber(url);
      const id = await newBlockFilter(url);
      const after = await blockNumber(url);
      const hashes: string[] = [];
      let headBeforeLastPoll = 0;
      for (let poll = 0; poll < 8; poll++) {
        await sleep(40 + 30 * (poll % 3));
        headBeforeLastPoll = await blockNumber(url);
        const changes = await resultOf(url, 'eth_getFilterChanges', [id]);
        expect(changes).to.be.an('array');
        hashes.push(...(changes as string[]));
      }
      expect(new Set(hashes).size).to.equal(hashes.length);
      const firstBlock = await resultOf(url, 'eth_getBlockByHash', [hashes[0], false]);
      const firstHeight = Number(firstBlock.number);
      // The filter starts after the head at its creation.
      expect(firstHeight).to.be.within(before + 1, after + 1);
      expect(firstHeight + hashes.length - 1).to.be.at.least(headBeforeLastPoll);
      for (const [index, hash] of hashes.entries()) {
        const block = await resultOf(url, 'eth_getBlockByNumber', [quantity(firstHeight + index), false]);
        expect(hash, `block ${firstHeight + index}`).to.equal(block.hash);
      }
      expect(await uninstall(url, id)).to.equal(true);
    });

    it('eth_uninstallFilter answers true, then false; the filter is gone', async () => {
      const logFilter = await newFilter(url, { fromBlock: 'earliest' });
      const blockFilter = await newBlockFilter(url);
      for (const id of [logFilter, blockFilter]) {
        expect(await uninstall(url, id)).to.equal(true);
        expect(await uninstall(url, id)).to.equal(false);
        expect(await errorOf(url, 'eth_getFilterChanges', [id])).to.deep.equal(FILTER_NOT_FOUND);
        expect(await errorOf(url, 'eth_getFilterLogs', [id])).to.deep.equal(FILTER_NOT_FOUND);
      }
    });

    it('answers an unknown filter ID with -32000 filter does not exist, and uninstalling it with false', async () => {
      for (const id of [`0x${'0'.repeat(31)}1`, '0x1', 'not-an-id']) {
        expect(await errorOf(url, 'eth_getFilterChanges', [id])).to.deep.equal(FILTER_NOT_FOUND);
        expect(await errorOf(url, 'eth_getFilterLogs', [id])).to.deep.equal(FILTER_NOT_FOUND);
        expect(await uninstall(url, id)).to.equal(false);
      }
      // A block filter has no logs to give.
      const blockFilter = await newBlockFilter(url);
      expect(await errorOf(url, 'eth_getFilterLogs', [blockFilter])).to.deep.equal(FILTER_NOT_FOUND);
      expect(await uninstall(url, blockFilter)).to.equal(true);
    });

    it('gives every filter its own ID: 0x and 32 hex digits', async () => {
      const ids: string[] = [];
      for (let count = 0; count < 10; count++) {
        ids.push(await newFilter(url, {}), await newBlockFilter(url));
      }
      for (const id of ids) expect(id).to.match(FILTER_ID);
      expect(new Set(ids).size).to.equal(ids.length);
      for (const id of ids) expect(await uninstall(url, id)).to.equal(true);
    });

    it("serves ethers v6 contract.on('Transfer') over HTTP: each Transfer once, with its arguments", async () => {
      const contract = await sender.deploy();
      const provider = new JsonRpcProvider(url, undefined, {
        staticNetwork: true,
        pollingInterval: 50,
        batchMaxCount: 1,
      });
      const methods: string[] = [];
      await provider.on('debug', (info: { action: string; payload?: { method: string } }) => {
        if (info.action === 'sendRpcPayload' && info.payload !== undefined) methods.push(info.payload.method);
      });
      const received: unknown[][] = [];
      const watched = new Contract(contract, emitter.abi, provider);
      try {
        await watched.on('Transfer', (from: string, to: string, value: bigint, payload: ContractEventPayload) => {
          received.push([from, to, value, payload.log.transactionHash, payload.log.blockNumber, payload.log.index]);
        });
        // ethers installs its filter asynchronously; logs before that would not be changes.
        for (let waited = 0; !methods.includes('eth_getFilterChanges'); waited += 20) {
          expect(waited, 'ethers never polled a filter').to.be.below(10_000);
          await sleep(20);
        }
        const one = await sender.mined(contract, 'transfer', [RECIPIENT_1, 1]);
        const [two, , three] = await sender.together([
          await sender.call(contract, 'transfer', [RECIPIENT_2, 2]),
          await sender.call(contract, 'notes', [1, 1]),
          await sender.call(contract, 'transfer', [RECIPIENT_3, 3]),
        ]);
        await sender.mined(contract, 'plain', [4]);
        const four = await sender.mined(contract, 'transfer', [RECIPIENT_1, 4]);
        for (let waited = 0; received.length < 4; waited += 20) {
          expect(waited, `ethers delivered ${received.length} of 4 transfers`).to.be.below(10_000);
          await sleep(20);
        }
        // More polls go by: nothing is delivered twice.
        await sleep(500);
        const from = sender.wallet.address;
        expect(received).to.deep.equal([
          [from, getAddress(RECIPIENT_1), 1n, one.transactionHash, Number(one.blockNumber), 0],
          [from, getAddress(RECIPIENT_2), 2n, two.transactionHash, Number(two.blockNumber), 0],
          [from, getAddress(RECIPIENT_3), 3n, three.transactionHash, Number(three.blockNumber), 2],
          [from, getAddress(RECIPIENT_1), 4n, four.transactionHash, Number(four.blockNumber), 0],
        ]);
        expect(methods).to.include('eth_newFilter');
      } finally {
        await watched.removeAllListeners();
        // Lets a poll already under way finish, so that destroying the provider cancels nothing.
        await sleep(200);
        provider.destroy();
      }
    });
  });

  describe('limits set in [evm]', () => {
    describe('max_log_no_block, max_blocks_for_log and filter_timeout', () => {
      let node: TestNode;
      let url: string;

      before(async () => {
        node = await startTestNode({
          config: {
            consensus: { block_time: 50 },
            evm: { max_log_no_block: 25, max_blocks_for_log: 10, filter_timeout: 500 },
          },
        });
        url = node.url;
      });
      after(() => node.stop());

      it('stops an open-ended query after max_log_no_block logs, in chain order; a closed range gets all', async () => {
        const sender = new Sender(url, devWallet(4));
        const contract = await sender.deploy();
        const one = await sender.mined(contract, 'notes', [1, 20]);
        const two = await sender.mined(contract, 'notes', [2, 20]);
        const forty = [
          ...Array.from({ length: 20 }, (_, index) => placed(one, index, noteEvent(contract, 1, index))),
          ...Array.from({ length: 20 }, (_, index) => placed(two, index, noteEvent(contract, 2, index))),
        ];
        const from = quantity(Number(one.blockNumber));
        const to = quantity(Number(two.blockNumber));
        const firstTwentyFive = forty.slice(0, 25);
        expect(await getLogs(url, { address: contract, fromBlock: from })).to.deep.equal(firstTwentyFive);
        expect(await getLogs(url, { address: contract, fromBlock: from, toBlock: 'latest' })).to.deep.equal(
          firstTwentyFive,
        );
        // Open-ended queries are not bound by max_blocks_for_log.
        expect(await getLogs(url, { address: contract, fromBlock: 'earliest' })).to.deep.equal(firstTwentyFive);
        expect(await getLogs(url, { address: contract, fromBlock: from, toBlock: to })).to.deep.equal(forty);
        expect(await getLogs(url, { blockHash: two.blockHash })).to.deep.equal(forty.slice(20));

        const openFilter = await newFilter(url, { address: contract, fromBlock: from });
        const closedFilter = await newFilter(url, { address: contract, fromBlock: from, toBlock: to });
        expect(await filterLogs(url, openFilter)).to.deep.equal(firstTwentyFive);
        expect(await filterLogs(url, closedFilter)).to.deep.equal(forty);
      });

      it('refuses a closed range over max_blocks_for_log blocks (inclusive) with the configured maximum', async () => {
        await untilHeight(node.node.chain, 11);
        expect(await getLogs(url, { address: NOBODY, fromBlock: '0x1', toBlock: '0xa' })).to.deep.equal([]);
        expect(
          await errorOf(url, 'eth_getLogs', [{ address: NOBODY, fromBlock: '0x0', toBlock: '0xa' }]),
        ).to.deep.equal({ code: -32000, message: 'block range too large (11), maximum allowed is 10 blocks' });
        await expectFilterRangeRefused(
          url,
          { fromBlock: '0x1', toBlock: '0xb' },
          {
            code: -32000,
            message: 'block range too large (11), maximum allowed is 10 blocks',
          },
        );
      });

      it('removes a filter not polled for filter_timeout; polling keeps one alive', async () => {
        const keptLogs = await newFilter(url, {});
        const keptBlocks = await newBlockFilter(url);
        const droppedLogs = await newFilter(url, {});
        const droppedBlocks = await newBlockFilter(url);
        const started = performance.now();
        const polledBlocks: string[] = [];
        // Polled every 100 ms (a fifth of the timeout, so that a slow moment of a shared machine
        // does not end them) for over twice the timeout. A poll may find no new block when the
        // machine stalls the producer, so the blocks are checked once, over all the polls.
        while (performance.now() - started < 1200) {
          await sleep(100);
          expect(await filterChanges(url, keptLogs)).to.deep.equal([]);
          polledBlocks.push(...(await resultOf(url, 'eth_getFilterChanges', [keptBlocks])));
        }
        expect(polledBlocks.length).to.be.at.least(5);
        const first = Number((await resultOf(url, 'eth_getBlockByHash', [polledBlocks[0], false])).number);
        const chainBlocks = await Promise.all(
          polledBlocks.map(
            async (_hash, offset) =>
              (await resultOf(url, 'eth_getBlockByNumber', [quantity(first + offset), false])).hash,
          ),
        );
        expect(polledBlocks).to.deep.equal(chainBlocks);
        for (const id of [droppedLogs, droppedBlocks]) {
          expect(await errorOf(url, 'eth_getFilterChanges', [id])).to.deep.equal(FILTER_NOT_FOUND);
          expect(await uninstall(url, id)).to.equal(false);
        }
        expect(await errorOf(url, 'eth_getFilterLogs', [droppedLogs])).to.deep.equal(FILTER_NOT_FOUND);
        expect(await filterLogs(url, keptLogs)).to.deep.equal([]);
        expect(await uninstall(url, keptLogs)).to.equal(true);
        expect(await uninstall(url, keptBlocks)).to.equal(true);
      });
    });

    describe('max_filters', () => {
      let node: TestNode;

      before(async () => {
        node = await startTestNode({
          config: { consensus: { block_time: 50, create_empty_blocks: false }, evm: { max_filters: 3 } },
        });
      });
      after(() => node.stop());

      it('refuses a filter beyond max_filters with -32005 until one is uninstalled', async () => {
        const url = node.url;
        const limit = { code: -32005, message: 'filter limit reached: at most 3 filters can be installed' };
        const ids = [await newFilter(url, {}), await newBlockFilter(url), await newFilter(url, { address: NOBODY })];
        expect(await errorOf(url, 'eth_newFilter', [{}])).to.deep.equal(limit);
        expect(await errorOf(url, 'eth_newBlockFilter', [])).to.deep.equal(limit);
        expect(await uninstall(url, ids[1]!)).to.equal(true);
        const replacement = await newFilter(url, { topics: [TRANSFER] });
        expect(await filterChanges(url, replacement)).to.deep.equal([]);
        expect(await errorOf(url, 'eth_newBlockFilter', [])).to.deep.equal(limit);
        for (const id of [ids[0]!, ids[2]!, replacement]) expect(await uninstall(url, id)).to.equal(true);
        expect(await newBlockFilter(url)).to.not.be.oneOf(ids);
      });
    });

    describe('max_filters with filter_timeout', () => {
      let node: TestNode;

      before(async () => {
        node = await startTestNode({
          config: {
            consensus: { block_time: 50, create_empty_blocks: false },
            evm: { max_filters: 2, filter_timeout: 500 },
          },
        });
      });
      after(() => node.stop());

      it('gives the room of a filter left unpolled to a new one, however long ago an older one was installed', async () => {
        const url = node.url;
        const polled = await newFilter(url, {});
        const unpolled = await newBlockFilter(url);
        const started = performance.now();
        // Polled every 100 ms, a fifth of the timeout, for over twice the timeout.
        while (performance.now() - started < 1200) {
          await sleep(100);
          expect(await filterChanges(url, polled)).to.deep.equal([]);
        }
        const replacement = await newBlockFilter(url);
        expect(await errorOf(url, 'eth_getFilterChanges', [unpolled])).to.deep.equal(FILTER_NOT_FOUND);
        expect(await errorOf(url, 'eth_newFilter', [{}])).to.deep.equal({
          code: -32005,
          message: 'filter limit reached: at most 2 filters can be installed',
        });
        expect(await uninstall(url, polled)).to.equal(true);
        expect(await uninstall(url, replacement)).to.equal(true);
      });
    });

    describe('max_client_share of max_filters', () => {
      let node: TestNode;

      before(async () => {
        node = await startTestNode({
          config: {
            consensus: { block_time: 50, create_empty_blocks: false },
            evm: { max_filters: 8, max_client_share: 0.25 },
          },
        });
      });
      after(() => node.stop());

      it('refuses a client its third filter with -32005 while another client still installs its own', async () => {
        const url = node.url;
        const mine = [await newFilter(url, {}), await newBlockFilter(url)];
        const share = { code: -32005, message: 'filter limit reached: at most 2 filters per client can be installed' };
        expect(await errorOf(url, 'eth_newFilter', [{}])).to.deep.equal(share);
        expect(await errorOf(url, 'eth_newBlockFilter', [])).to.deep.equal(share);
        // Another remote address is another client, with a share of its own.
        const other = [
          await rpcFrom('127.0.0.2', url, 'eth_newFilter', [{}]),
          await rpcFrom('127.0.0.2', url, 'eth_newBlockFilter', []),
        ];
        for (const answer of other) expect(answer.result).to.match(FILTER_ID);
        expect((await rpcFrom('127.0.0.2', url, 'eth_newFilter', [{}])).error).to.deep.equal(share);
        // Uninstalling gives the share back.
        expect(await uninstall(url, mine[0]!)).to.equal(true);
        expect(await newFilter(url, { address: NOBODY })).to.not.be.oneOf(mine);
        expect(await filterChanges(url, other[0].result as string)).to.deep.equal([]);
      });

      it("counts a client's WebSocket connections, and its HTTP requests, against one share", async () => {
        let nextId = 1;
        const newFilterOver = async (client: WsClient) => {
          const id = nextId++;
          return client.request(JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_newBlockFilter', params: [] }), id);
        };
        const share = { code: -32005, message: 'filter limit reached: at most 2 filters per client can be installed' };
        const clients = await Promise.all([1, 2, 3].map(() => WsClient.connect(node.wsUrl, {}, '127.0.0.3')));
        const sameAsHttp = await WsClient.connect(node.wsUrl, {}, '127.0.0.4');
        try {
          const answers = [];
          for (const client of clients) answers.push(await newFilterOver(client));
          expect(answers[0].result).to.match(FILTER_ID);
          expect(answers[1].result).to.match(FILTER_ID);
          expect(answers[2].error).to.deep.equal(share);
          // Room on the node (max_filters 8) for the next client's share.
          for (const answer of answers.slice(0, 2))
            expect(await uninstall(node.url, answer.result as string)).to.equal(true);
          for (let filter = 0; filter < 2; filter++) {
            expect((await rpcFrom('127.0.0.4', node.url, 'eth_newBlockFilter', [])).result).to.match(FILTER_ID);
          }
          expect((await newFilterOver(sameAsHttp)).error).to.deep.equal(share);
        } finally {
          for (const client of [...clients, sameAsHttp]) client.close();
        }
      });
    });

    describe('the default max_blocks_for_log and the large-query rate limit', () => {
      before(async function () {
        this.timeout(60_000);
        await untilHeight(fast.node.chain, fastNoteHeight + 2000);
      });

      it('takes a closed range of 2,000 blocks and refuses 2,001', async () => {
        const tooLarge = (blocks: number) => ({
          code: -32000,
          message: `block range too large (${blocks}), maximum allowed is 2000 blocks`,
        });
        const url = fast.url;
        const at = (height: number) => quantity(height);
        expect(
          await getLogs(url, {
            address: fastEmitter,
            fromBlock: at(fastNoteHeight),
            toBlock: at(fastNoteHeight + 1999),
          }),
        ).to.deep.equal([fastNote]);
        expect(await getLogs(url, { fromBlock: '0x0', toBlock: at(1999) })).to.deep.equal([fastNote]);
        const cases: [object, unknown][] = [
          [{ fromBlock: at(fastNoteHeight), toBlock: at(fastNoteHeight + 2000) }, tooLarge(2001)],
          [{ fromBlock: '0x0', toBlock: at(2000) }, tooLarge(2001)],
          [{ fromBlock: 'earliest', toBlock: at(fastNoteHeight + 2000) }, tooLarge(fastNoteHeight + 2001)],
          // The topic count is checked first.
          [
            { fromBlock: '0x0', toBlock: at(2000), topics: [null, null, null, null, null] },
            { code: -32000, message: 'exceed max topics' },
          ],
        ];
        for (const [criteria, error] of cases) {
          expect(await errorOf(url, 'eth_getLogs', [criteria]), JSON.stringify(criteria)).to.deep.equal(error);
        }
        await expectFilterRangeRefused(url, { fromBlock: '0x0', toBlock: at(2000) }, tooLarge(2001));
        // Open-ended ranges have no block limit.
        expect(await getLogs(url, { fromBlock: 'earliest' })).to.deep.equal([fastNote]);
        expect(await getLogs(url, { address: fastEmitter, fromBlock: '0x0', toBlock: 'latest' })).to.deep.equal([
          fastNote,
        ]);
      });

      it('refuses large queries (over 100 blocks) beyond 30 a second with -32005; smaller ones still pass', async () => {
        const url = fast.url;
        await sleep(1100);
        const large = {
          address: fastEmitter,
          fromBlock: quantity(fastNoteHeight),
          toBlock: quantity(fastNoteHeight + 100),
        };
        const small = {
          address: fastEmitter,
          fromBlock: quantity(fastNoteHeight),
          toBlock: quantity(fastNoteHeight + 99),
        };
        // One batch: far more than 30 large queries within a second, two small ones among them.
        const CALLS = 80;
        const SMALL_IDS: ReadonlySet<number> = new Set([40, 79]);
        const calls = Array.from({ length: CALLS }, (_, index) => ({
          jsonrpc: '2.0',
          id: index,
          method: 'eth_getLogs',
          params: [SMALL_IDS.has(index) ? small : large],
        }));
        const started = performance.now();
        const response = await post(url, JSON.stringify(calls));
        const elapsedSeconds = (performance.now() - started) / 1000;
        const answers = JSON.parse(response.text) as any[];
        expect(answers.map((answer) => answer.id)).to.have.members(calls.map((call) => call.id));
        let passed = 0;
        let refused = 0;
        for (const answer of answers) {
          if (SMALL_IDS.has(answer.id as number)) {
            expect(answer.error, `query ${answer.id} over 100 blocks`).to.equal(undefined);
            expect(answer.result).to.deep.equal([fastNote]);
          } else if (answer.error === undefined) {
            expectValidResult('eth_getLogs', answer.result);
            expect(answer.result).to.deep.equal([fastNote]);
            passed++;
          } else {
            expect(answer.error).to.deep.equal(RATE_LIMITED);
            refused++;
          }
        }
        expect(passed + refused).to.equal(CALLS - SMALL_IDS.size);
        expect(refused).to.be.at.least(1);
        expect(passed).to.be.at.least(1);
        expect(passed).to.be.at.most(30 + Math.ceil(30 * elapsedSeconds));
        // A query over exactly 100 blocks is not large, even now.
        expect(await getLogs(url, small)).to.deep.equal([fastNote]);
        // The limit refills.
        await sleep(1100);
        expect(await getLogs(url, large)).to.deep.equal([fastNote]);
      });
    });
  });
});

describe("large log queries: one client's share of the node's rate", () => {
  it("refuses a client's queries over 100 blocks past max_client_share of the node's 30 a second, and serves another address's", async function () {
    this.timeout(60_000);
    const node = await startTestNode({ config: { consensus: { block_time: 5 }, evm: { max_client_share: 0.25 } } });
    try {
      await untilHeight(node.node.chain, 101);
      const large = { fromBlock: '0x0', toBlock: quantity(100) };
      const calls = Array.from({ length: 12 }, (_, id) => ({
        jsonrpc: '2.0',
        id,
        method: 'eth_getLogs',
        params: [large],
      }));
      const started = performance.now();
      const answers = JSON.parse((await post(node.url, JSON.stringify(calls))).text) as any[];
      const elapsedSeconds = (performance.now() - started) / 1000;
      const refused = answers.filter((answer) => answer.error !== undefined);
      for (const answer of refused) expect(answer.error).to.deep.equal(RATE_LIMITED);
      // A quarter of 30, rounded up: 8 at once, then 8 a second.
      expect(answers.length - refused.length).to.be.within(8, 8 + Math.floor(8 * elapsedSeconds));
      expect((await rpcFrom('127.0.0.2', node.url, 'eth_getLogs', [large])).result).to.deep.equal([]);
    } finally {
      await node.stop();
    }
  });
});

describe('polled filters: the room their criteria take', () => {
  it('refuses a log filter once the criteria held would pass 250,000 addresses and topics', async function () {
    this.timeout(60_000);
    const node = await startTestNode({ config: { consensus: { block_time: 1000 } } });
    try {
      const widest = widestLogCriteria();
      const held: string[] = [];
      for (let index = 0; index < 49; index++) held.push(await newFilter(node.url, widest));
      expect(await errorOf(node.url, 'eth_newFilter', [widest])).to.deep.equal({
        code: -32005,
        message: 'filter limit reached: filters hold at most 250000 addresses and topics, 250000 per client',
      });
      // 4,951 values are left: narrow criteria, and block filters, still fit.
      expect(await newFilter(node.url, { address: widest.address[0] })).to.match(FILTER_ID);
      expect(await newBlockFilter(node.url)).to.match(FILTER_ID);
      // Uninstalling one gives its room back.
      expect(await uninstall(node.url, held[0]!)).to.equal(true);
      expect(await newFilter(node.url, widest)).to.match(FILTER_ID);
    } finally {
      await node.stop();
    }
  });
});

describe('logs of megabytes', () => {
  /**
   * Init code of a contract that emits one log of `size` zero bytes (below 16 MiB) and stops:
   * CODECOPY the 8-byte runtime PUSH3 size, PUSH1 0, LOG0, STOP from offset 12, RETURN it.
   */
  const largeLogInit = (size: number) => `0x6008600c60003960086000f362${size.toString(16).padStart(6, '0')}6000a000`;

  /** Deploys a {@link largeLogInit} contract from `sender` at nonce 0; its address. */
  async function deployLargeLogEmitter(url: string, sender: HDNodeWallet, size: number): Promise<string> {
    const raw = await sign(sender, { nonce: 0, data: largeLogInit(size), gasLimit: 100_000n });
    return (await waitForReceipt(url, await submit(url, raw))).contractAddress as string;
  }

  it('eth_getLogs refuses a query whose logs alone pass max_held_answer_bytes, gives the room back, and serves one that fits', async function () {
    this.timeout(60_000);
    // Room for seven logs of 64 KiB (128 KiB of JSON each), not for ten.
    const node = await startTestNode({ config: { evm: { max_held_answer_bytes: 1024 * 1024 } } });
    try {
      const sender = devWallet(5);
      const emitterAddress = await deployLargeLogEmitter(node.url, sender, 64 * 1024);
      const heights: number[] = [];
      for (let nonce = 1; nonce <= 10; nonce++) {
        const raw = await sign(sender, { nonce, to: emitterAddress, gasLimit: 700_000n });
        heights.push(Number((await waitForReceipt(node.url, await submit(node.url, raw))).blockNumber));
      }
      const query = (toBlock: number) => ({
        address: emitterAddress,
        fromBlock: quantity(heights[0]!),
        toBlock: quantity(toBlock),
      });
      expect(await errorOf(node.url, 'eth_getLogs', [query(heights[9]!)])).to.deep.equal({
        code: -32005,
        message: 'log response too large: the logs found pass 1 MiB; query fewer blocks',
      });
      const logs = (await rpc(node.url, 'eth_getLogs', [query(heights[6]!)])).result as LogJson[];
      expect(logs.map((log) => [log.blockNumber, log.data])).to.deep.equal(
        heights.slice(0, 7).map((height) => [quantity(height), `0x${'00'.repeat(64 * 1024)}`]),
      );
    } finally {
      await node.stop();
    }
  });

  it('keeps a few megabytes of the latest receipts in memory, not thousands of receipts whatever their logs', async function () {
    this.timeout(60_000);
    const node = await startTestNode({
      plugins: ['eth-query', 'eth-send', 'filters'],
      config: { consensus: { block_time: 100 } },
    });
    try {
      const sender = devWallet(6);
      // Each transaction fills most of a block with one log of 1 MiB: 2 MiB of hex in its receipt.
      const emitterAddress = await deployLargeLogEmitter(node.url, sender, 1024 * 1024);
      globalThis.gc?.();
      const heapBefore = process.memoryUsage().heapUsed;
      const raws = await Promise.all(
        Array.from({ length: 30 }, (_, index) =>
          sign(sender, { nonce: index + 1, to: emitterAddress, gasLimit: 11_000_000n }),
        ),
      );
      const hashes = await submitTogether(node.url, raws);
      expect((await waitForReceipt(node.url, hashes.at(-1)!)).status).to.equal('0x1');
      globalThis.gc?.();
      // Kept by count, the 30 receipts held 60 MiB of hex strings.
      expect((process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024).to.be.below(30);
      // Over WebSocket, an answer of 6 MiB in pieces comes as one message sent in fragments.
      const heights = await Promise.all(
        hashes.slice(-3).map(async (hash) => (await waitForReceipt(node.url, hash)).blockNumber as string),
      );
      const client = await WsClient.connect(node.wsUrl);
      try {
        const criteria = { address: emitterAddress, fromBlock: heights[0], toBlock: heights[2] };
        const logs = (await client.call('eth_getLogs', [criteria])).result as LogJson[];
        expect(logs.map((log) => [log.blockNumber, log.data])).to.deep.equal(
          heights.map((height) => [height, `0x${'00'.repeat(1024 * 1024)}`]),
        );
      } finally {
        client.close();
      }
    } finally {
      await node.stop();
    }
  });
});

describe('logs by the hundred thousand', () => {
  const LOGS_PER_TX = 28_000;
  const TXS = 4;
  let node: TestNode;
  let range: { fromBlock: string; toBlock: string };
  let lastReceipt: any;

  before(async function () {
    this.timeout(60_000);
    node = await startTestNode({
      plugins: ['eth-query', 'eth-send', 'filters', 'ext-legacy'],
      config: { consensus: { block_time: 100 }, evm: { enabled_legacy_ext_apis: ['ext_getLogs'] } },
    });
    const sender = devWallet(8);
    const raws = await Promise.all(
      Array.from({ length: TXS }, (_, nonce) =>
        sign(sender, { nonce, data: manyLogsInit(LOGS_PER_TX), gasLimit: 12_000_000n }),
      ),
    );
    const receipts = [];
    for (const hash of await submitTogether(node.url, raws)) receipts.push(await waitForReceipt(node.url, hash));
    expect(receipts.map((receipt) => receipt.logs.length)).to.deep.equal(Array(TXS).fill(LOGS_PER_TX));
    range = { fromBlock: receipts[0].blockNumber, toBlock: receipts.at(-1).blockNumber };
    lastReceipt = receipts.at(-1);
  });

  it('gives a receipt of 28,000 logs whole: its logs as eth_getLogs gives them, and as eth_getBlockReceipts does', async function () {
    this.timeout(60_000);
    expect(Object.keys(lastReceipt)).to.deep.equal([
      'blockHash',
      'blockNumber',
      'contractAddress',
      'cumulativeGasUsed',
      'effectiveGasPrice',
      'from',
      'gasUsed',
      'logs',
      'logsBloom',
      'status',
      'to',
      'transactionHash',
      'transactionIndex',
      'type',
    ]);
    const logs = (await rpc(node.url, 'eth_getLogs', [{ blockHash: lastReceipt.blockHash }])).result;
    expect(lastReceipt.logs).to.deep.equal(logs);
    expect((await rpc(node.url, 'eth_getBlockReceipts', [lastReceipt.blockNumber])).result).to.deep.equal([
      lastReceipt,
    ]);
  });

  after(() => node?.stop());

  /** The answers to a batch of `eth_chainId` and an `eth_getLogs` of all those logs, checked. */
  function expectBatchAnswered(answers: any[]): void {
    expect(answers.map((answer) => answer.id)).to.deep.equal([1, 2]);
    expect(answers[0].result).to.equal(quantity(CHAIN_ID));
    expect(answers[1].error).to.equal(undefined);
    const logs = answers[1].result as LogJson[];
    expect(logs).to.have.length(TXS * LOGS_PER_TX);
    expect([logs[0]!.logIndex, logs.at(-1)!.logIndex, logs.at(-1)!.blockNumber]).to.deep.equal([
      '0x0',
      quantity(LOGS_PER_TX - 1),
      range.toBlock,
    ]);
  }

  const batch = () =>
    JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'eth_getLogs', params: [range] },
    ]);

  // Each log is two pieces of the answer: 224,000 once passed the argument limit of a call.
  it('answers a batch whose logs come in hundreds of thousands of pieces over HTTP', async function () {
    this.timeout(60_000);
    const { status, text } = await post(node.url, batch());
    expect(status).to.equal(200);
    expectBatchAnswered(JSON.parse(text));
  });

  it('gives them all in the ext view too, each marked not synthetic', async function () {
    this.timeout(60_000);
    const logs = (await rpc(node.url, 'ext_getLogs', [range])).result as (LogJson & { synthetic: boolean })[];
    expect(logs).to.have.length(TXS * LOGS_PER_TX);
    expect(logs.every((log) => log.synthetic === false)).to.equal(true);
    expect([logs[0]!.logIndex, logs.at(-1)!.logIndex]).to.deep.equal(['0x0', quantity(LOGS_PER_TX - 1)]);
  });

  it('answers it over WebSocket, and the node keeps serving', async function () {
    this.timeout(60_000);
    const ws = await WsClient.connect(node.wsUrl);
    try {
      expectBatchAnswered(await ws.request(batch(), 'batch'));
      expect((await ws.call('eth_blockNumber', [], 3)).result).to.match(/^0x[0-9a-f]+$/);
    } finally {
      ws.close();
    }
  });
});
