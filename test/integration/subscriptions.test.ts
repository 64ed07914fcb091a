import { expect } from 'chai';
import {
  Contract,
  ContractFactory,
  Interface,
  JsonRpcProvider,
  Transaction,
  Wallet,
  WebSocketProvider,
  getAddress,
  hexlify,
  id,
  randomBytes,
  toBeHex,
  zeroPadValue,
  type ContractEventPayload,
  type HDNodeWallet,
} from 'ethers';
import { createPublicClient, defineChain, webSocket, type Abi, type Hex } from 'viem';
import type { Chain } from '@evmnode/core/internal';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import {
  CHAIN_ID,
  GWEI,
  devWallet,
  lower,
  manyLogsInit,
  quantity,
  sign,
  sleep,
  submit,
  waitForReceipt,
} from '../support/chain-kit.js';
import { expectValidResult } from '../support/openrpc.js';
import { rpc } from '../support/rpc-client.js';
import { compileContract } from '../support/solidity.js';
import { expectResponsive, withPeakRss } from '../support/load-checks.js';
import { widestLogCriteria } from '../support/log-criteria.js';
import { WsClient } from '../support/ws-client.js';

const logEmitter = compileContract('LogEmitter');
const emitterAbi = new Interface(logEmitter.abi);
const TRANSFER = id('Transfer(address,address,uint256)');
const NOTE = id('Note(uint256,bytes)');
const PLAIN = id('Plain(uint256)');
/** geth's subscription IDs: 16 random bytes as a hex quantity, without leading zeros. */
const SUBSCRIPTION_ID = /^0x(0|[1-9a-f][0-9a-f]{0,31})$/;
/** The fields of eth_getBlockByNumber that a newHeads header does not carry. */
const BODY_FIELDS = ['transactions', 'uncles', 'size', 'totalDifficulty'];
/** What a client may leave unread before the node disconnects it. */
const MAX_UNREAD = 16 * 1024 * 1024;

const topicOf = (value: bigint | number | string): string =>
  typeof value === 'string' ? zeroPadValue(lower(value), 32) : zeroPadValue(toBeHex(value), 32);

/** A contract call to sign. */
interface Call {
  readonly to: string;
  readonly data: string;
  readonly gasLimit: bigint;
}

const call = (to: string, method: string, args: unknown[], gasLimit = 200_000n): Call => ({
  to,
  data: emitterAbi.encodeFunctionData(method, args),
  gasLimit,
});

/** Signs `calls` with consecutive nonces from `firstNonce`, fee cap 10 gwei so that a rising base fee leaves them valid. */
function signCalls(wallet: HDNodeWallet, firstNonce: number, calls: readonly Call[]): Promise<string[]> {
  return Promise.all(
    calls.map((each, index) =>
      sign(wallet, {
        nonce: firstNonce + index,
        to: each.to,
        data: each.data,
        gasLimit: each.gasLimit,
        maxFeePerGas: 10n * GWEI,
        maxPriorityFeePerGas: GWEI,
      }),
    ),
  );
}

/** Polls `ready` until it holds; fails naming `what` after `timeoutMs`. */
async function until(ready: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs}ms waiting for ${what}`);
    await sleep(10);
  }
}

/** Every text frame the client receives from now on, raw, in arrival order. */
function framesOf(client: WsClient): string[] {
  const frames: string[] = [];
  client.socket.on('message', (data) =>
    frames.push(Array.isArray(data) ? Buffer.concat(data).toString() : Buffer.from(data as ArrayBuffer).toString()),
  );
  return frames;
}

/**
 * Two blocks of `logs` logs each, one transaction of one of dev wallets `wallets` filling each;
 * their heights, in order.
 */
async function twoBlocksOfLogs(
  url: string,
  wallets: readonly [number, number],
  logs: number,
): Promise<[number, number]> {
  const raws = await Promise.all(
    wallets.map((index) => sign(devWallet(index), { nonce: 0, data: manyLogsInit(logs), gasLimit: 12_000_000n })),
  );
  const hashes = await Promise.all(raws.map((raw) => submit(url, raw)));
  const heights = await Promise.all(
    hashes.map(async (hash) => Number((await waitForReceipt(url, hash, 60_000)).blockNumber)),
  );
  const [first, second] = heights.sort((a, b) => a - b) as [number, number];
  expect(second, 'the second block').to.be.above(first);
  return [first, second];
}

/** `[blockNumber, logIndex]` of every log of blocks `heights`, `logs` a block, in chain order. */
function logPlaces(heights: readonly number[], logs: number): number[][] {
  return heights.flatMap((height) => Array.from({ length: logs }, (_, index) => [height, index]));
}

let nextRequestId = 1;

/** eth_subscribe that must succeed: checks the answer's shape and the ID's form. */
async function subscribe(client: WsClient, params: unknown[]): Promise<string> {
  const requestId = nextRequestId++;
  const answer = await client.call('eth_subscribe', params, requestId);
  expect(answer.error, `eth_subscribe ${JSON.stringify(params)}: ${JSON.stringify(answer.error)}`).to.equal(undefined);
  expect(answer).to.deep.equal({ jsonrpc: '2.0', id: requestId, result: answer.result });
  expect(answer.result).to.be.a('string').and.match(SUBSCRIPTION_ID);
  return answer.result as string;
}

/** The answer of one call, with a fresh request id, and that id. */
async function ask(client: WsClient, method: string, params: unknown[]): Promise<{ requestId: number; answer: any }> {
  const requestId = nextRequestId++;
  return { requestId, answer: await client.call(method, params, requestId) };
}

/** The results pushed for subscription `subscription`, each checked to be in the exact notification envelope. */
function resultsOf(client: WsClient, subscription: string): any[] {
  const notifications = client.notifications.filter((each) => each.params?.subscription === subscription);
  for (const notification of notifications) {
    expect(notification).to.deep.equal({
      jsonrpc: '2.0',
      method: 'eth_subscription',
      params: { subscription, result: notification.params.result },
    });
  }
  return notifications.map((each) => each.params.result);
}

/** How many notifications subscription `subscription` has pushed so far (cheap enough to poll). */
function pushedCount(client: WsClient, subscription: string): number {
  let count = 0;
  for (const each of client.notifications) if (each.params?.subscription === subscription) count += 1;
  return count;
}

/** Waits until subscription `heads` has pushed the header of block `height` (or a later one). */
function untilHead(client: WsClient, heads: string, height: number): Promise<void> {
  return until(
    () =>
      client.notifications.some(
        (each) => each.params?.subscription === heads && Number(each.params.result.number) >= height,
      ),
    `the newHeads notification of block ${height}`,
  );
}

describe('eth_subscribe and eth_unsubscribe over WebSocket', function () {
  this.timeout(60_000);
  let node: TestNode;
  let chain: Chain;
  /** Two LogEmitter deployments. */
  let emitterA: string;
  let emitterB: string;
  /** Every height the chain committed, in order. */
  const committed: number[] = [];

  const blockNumber = async (): Promise<number> => Number((await rpc(node.url, 'eth_blockNumber')).result);
  const pendingNonce = async (wallet: HDNodeWallet): Promise<number> =>
    Number((await rpc(node.url, 'eth_getTransactionCount', [wallet.address, 'pending'])).result);

  /** Signs `calls` from `wallet`'s next nonce on and submits them in nonce order; returns their hashes. */
  async function send(wallet: HDNodeWallet, calls: readonly Call[]): Promise<string[]> {
    const raws = await signCalls(wallet, await pendingNonce(wallet), calls);
    const hashes: string[] = [];
    for (const raw of raws) hashes.push(await submit(node.url, raw));
    return hashes;
  }

  /** The highest block holding one of `hashes`, whose receipts must all be successful. */
  async function minedBy(hashes: readonly string[]): Promise<number> {
    let highest = 0;
    for (const hash of hashes) {
      const receipt = await waitForReceipt(node.url, hash);
      expect(receipt.status, `status of ${hash}`).to.equal('0x1');
      highest = Math.max(highest, Number(receipt.blockNumber));
    }
    return highest;
  }

  async function getLogs(criteria: Record<string, unknown>): Promise<any[]> {
    const answer = await rpc(node.url, 'eth_getLogs', [criteria]);
    expect(answer.error, `eth_getLogs ${JSON.stringify(criteria)}: ${JSON.stringify(answer.error)}`).to.equal(
      undefined,
    );
    // The schema's result is a oneOf of three array types, all of which an empty array matches.
    if (answer.result.length > 0) expectValidResult('eth_getLogs', answer.result);
    return answer.result as any[];
  }

  async function blockJson(height: number): Promise<any> {
    const answer = await rpc(node.url, 'eth_getBlockByNumber', [quantity(height), false]);
    expectValidResult('eth_getBlockByNumber', answer.result);
    return answer.result;
  }

  before(async () => {
    node = await startTestNode({ config: { consensus: { block_time: 50 } } });
    chain = node.node.chain;
    chain.events.onBlock(({ block }) => committed.push(block.height));
    const provider = new JsonRpcProvider(node.url, undefined, { staticNetwork: true, pollingInterval: 50 });
    try {
      const deployer = new Wallet(devWallet(0).privateKey, provider);
      const factory = new ContractFactory(logEmitter.abi, logEmitter.bytecode, deployer);
      const first = await factory.deploy({ nonce: 0 });
      const second = await factory.deploy({ nonce: 1 });
      await Promise.all([first.waitForDeployment(), second.waitForDeployment()]);
      emitterA = lower(await first.getAddress());
      emitterB = lower(await second.getAddress());
      expect((await rpc(node.url, 'eth_getCode', [emitterA])).result).to.equal(logEmitter.deployedBytecode);
    } finally {
      provider.destroy();
    }
  });
  after(() => node.stop());

  describe('newHeads', () => {
    it('pushes one header per committed block, in order and without gaps, equal to eth_getBlockByNumber without the body', async () => {
      const client = await WsClient.connect(node.wsUrl);
      const frames = framesOf(client);
      try {
        const before = await blockNumber();
        const heads = await subscribe(client, ['newHeads']);
        const after = await blockNumber();
        // Blocks with transactions in them, so that headers differ in more than their number.
        const hashes = await send(devWallet(1), [
          call(emitterA, 'plain', [11]),
          call(emitterA, 'notes', [12, 4]),
          call(emitterB, 'transfer', [emitterA, 13]),
        ]);
        const lastWithTransactions = await minedBy(hashes);
        await until(() => pushedCount(client, heads) >= 20, '20 newHeads notifications');
        await untilHead(client, heads, lastWithTransactions + 1);

        const headers = resultsOf(client, heads);
        // Taken in the same tick: frames and notifications are recorded by the same message events.
        const headFrames = frames.filter((frame) => frame.includes(`"subscription":"${heads}"`));
        const first = Number(headers[0].number);
        expect(first).to.be.within(before + 1, after + 1);
        const numbers = headers.map((header) => Number(header.number));
        expect(numbers).to.deep.equal(numbers.map((_, index) => first + index));
        const last = numbers.at(-1)!;
        expect(committed.filter((height) => height >= first && height <= last)).to.deep.equal(numbers);

        let withGas = 0;
        for (const header of headers) {
          const block = await blockJson(Number(header.number));
          for (const field of BODY_FIELDS) delete block[field];
          expect(header).to.deep.equal(block);
          if (header.gasUsed !== '0x0') withGas += 1;
        }
        expect(withGas).to.be.at.least(1);

        // The frames themselves: a single JSON object each, the envelope's members in geth's order.
        expect(headFrames).to.have.length(headers.length);
        for (const frame of headFrames) {
          expect(
            frame.startsWith(
              `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${heads}","result":{`,
            ),
          ).to.equal(true, frame.slice(0, 120));
          expect(frame.endsWith('}}}')).to.equal(true);
        }
      } finally {
        client.close();
      }
    });

    it('gives every subscription its own ID and the same headers', async () => {
      const first = await WsClient.connect(node.wsUrl);
      const second = await WsClient.connect(node.wsUrl);
      try {
        const ids = [await subscribe(first, ['newHeads']), await subscribe(first, ['newHeads'])];
        ids.push(await subscribe(second, ['newHeads']));
        expect(new Set(ids).size).to.equal(3);
        const height = (await blockNumber()) + 3;
        await untilHead(first, ids[0]!, height);
        await untilHead(first, ids[1]!, height);
        await untilHead(second, ids[2]!, height);
        const headerAt = (client: WsClient, subscription: string) =>
          resultsOf(client, subscription).find((header) => Number(header.number) === height);
        expect(headerAt(first, ids[0]!)).to.deep.equal(headerAt(first, ids[1]!));
        expect(headerAt(first, ids[0]!)).to.deep.equal(headerAt(second, ids[2]!));
        expect(headerAt(first, ids[0]!).hash).to.equal((await blockJson(height)).hash);
      } finally {
        first.close();
        second.close();
      }
    });
  });

  describe('logs', () => {
    it('pushes every matching log once, in order, as eth_getLogs returns it, and nothing else', async () => {
      const sender = devWallet(2);
      const other = devWallet(3);
      const recipient = getAddress(hexlify(randomBytes(20)));
      const nobody = getAddress(hexlify(randomBytes(20)));
      const cases: { criteria: Record<string, unknown> | undefined; count: number }[] = [
        { criteria: { address: emitterA }, count: 8 },
        { criteria: { address: getAddress(emitterB) }, count: 6 },
        { criteria: { address: [emitterA, getAddress(emitterB)] }, count: 14 },
        { criteria: { topics: [[TRANSFER, PLAIN]] }, count: 5 },
        { criteria: { topics: [null, topicOf(sender.address)] }, count: 2 },
        { criteria: { topics: [null, null, topicOf(recipient)] }, count: 2 },
        { criteria: { address: emitterB, topics: [TRANSFER] }, count: 1 },
        { criteria: { address: [emitterB], topics: [[NOTE], [topicOf(8), topicOf(9)]] }, count: 4 },
        { criteria: { topics: [NOTE, topicOf(9)] }, count: 4 },
        { criteria: { address: [emitterA, emitterB], topics: [NOTE, null] }, count: 9 },
        { criteria: { address: nobody }, count: 0 },
        { criteria: { topics: [id('Missing()')] }, count: 0 },
        { criteria: {}, count: 14 },
        { criteria: undefined, count: 14 },
      ];
      const client = await WsClient.connect(node.wsUrl);
      try {
        const ids: string[] = [];
        for (const { criteria } of cases) {
          ids.push(await subscribe(client, criteria === undefined ? ['logs'] : ['logs', criteria]));
        }
        expect(new Set(ids).size).to.equal(cases.length);
        // Subscribed last: every block from its first header on went to all the logs subscriptions.
        const heads = await subscribe(client, ['newHeads']);
        await until(() => pushedCount(client, heads) > 0, 'the first header');
        const fromBlock = Number(resultsOf(client, heads)[0].number);

        const [sent, otherSent] = await Promise.all([
          send(sender, [
            call(emitterA, 'transfer', [recipient, 1]),
            call(emitterA, 'plain', [2]),
            call(emitterA, 'notes', [7, 3]),
            call(emitterB, 'transfer', [recipient, 3]),
            call(emitterB, 'notes', [8, 2]),
            call(emitterA, 'notesWith', [emitterB, 9, 2, 2]),
          ]),
          send(other, [call(emitterA, 'transfer', [sender.address, 4]), call(emitterB, 'plain', [5])]),
        ]);
        const toBlock = await minedBy([...sent, ...otherSent]);
        await untilHead(client, heads, toBlock + 1);

        const everything = await getLogs({ fromBlock: quantity(fromBlock), toBlock: quantity(toBlock) });
        expect(everything).to.have.length(14);
        expect(new Set(everything.map((log) => log.transactionHash))).to.deep.equal(new Set([...sent, ...otherSent]));
        for (const [index, { criteria, count }] of cases.entries()) {
          const expected = await getLogs({ ...criteria, fromBlock: quantity(fromBlock), toBlock: quantity(toBlock) });
          expect(expected, `eth_getLogs ${JSON.stringify(criteria)}`).to.have.length(count);
          expect(resultsOf(client, ids[index]!), `logs pushed for ${JSON.stringify(criteria)}`).to.deep.equal(expected);
        }
      } finally {
        client.close();
      }
    });

    it("sees every one of 1,000 transactions' logs exactly once", async function () {
      this.timeout(90_000);
      const LANES = 10;
      const PER_LANE = 100;
      const client = await WsClient.connect(node.wsUrl);
      try {
        const transfers = await subscribe(client, ['logs', { address: emitterA, topics: [TRANSFER] }]);
        const everything = await subscribe(client, ['logs']);
        const heads = await subscribe(client, ['newHeads']);
        await until(() => pushedCount(client, heads) > 0, 'the first header');
        const fromBlock = Number(resultsOf(client, heads)[0].number);

        const largest = call(emitterA, 'transfer', [emitterB, LANES * PER_LANE]);
        const estimate = BigInt(
          (await rpc(node.url, 'eth_estimateGas', [{ from: devWallet(0).address, to: largest.to, data: largest.data }]))
            .result,
        );
        const gasLimit = (estimate * 12n) / 10n;
        const lanes = await Promise.all(
          Array.from({ length: LANES }, async (_, lane) => {
            const wallet = devWallet(lane);
            const calls = Array.from({ length: PER_LANE }, (_, index) =>
              call(emitterA, 'transfer', [emitterB, 1 + lane * PER_LANE + index], gasLimit),
            );
            return signCalls(wallet, await pendingNonce(wallet), calls);
          }),
        );
        const sentHashes = lanes.flat().map((raw) => Transaction.from(raw).hash!);
        expect(new Set(sentHashes).size).to.equal(LANES * PER_LANE);
        // Each lane submits its nonces in order; the lanes run side by side.
        await Promise.all(
          lanes.map(async (raws) => {
            for (const raw of raws) await submit(node.url, raw);
          }),
        );
        const toBlock = await minedBy(lanes.map((raws) => Transaction.from(raws.at(-1)).hash!));
        await untilHead(client, heads, toBlock + 1);

        const expected = await getLogs({ fromBlock: quantity(fromBlock), toBlock: quantity(toBlock) });
        expect(expected).to.have.length(LANES * PER_LANE);
        expect(new Set(expected.map((log) => log.transactionHash))).to.deep.equal(new Set(sentHashes));
        const key = (log: any) => `${log.transactionHash}:${log.logIndex}`;
        for (const subscription of [transfers, everything]) {
          const pushed = resultsOf(client, subscription);
          expect(pushed).to.have.length(LANES * PER_LANE);
          expect(new Set(pushed.map(key)).size).to.equal(LANES * PER_LANE);
          expect(new Set(pushed.map(key))).to.deep.equal(new Set(expected.map(key)));
          expect(pushed).to.deep.equal(expected);
        }
        const values = resultsOf(client, transfers).map((log) => Number(BigInt(log.data)));
        expect(values.toSorted((a, b) => a - b)).to.deep.equal(values.map((_, index) => index + 1));
      } finally {
        client.close();
      }
    });
  });

  describe('eth_unsubscribe', () => {
    it('answers true once, then subscription not found; unknown IDs and IDs of another connection are not found', async () => {
      const owner = await WsClient.connect(node.wsUrl);
      const stranger = await WsClient.connect(node.wsUrl);
      const notFound = (requestId: number) => ({
        jsonrpc: '2.0',
        id: requestId,
        error: { code: -32000, message: 'subscription not found' },
      });
      try {
        const heads = await subscribe(owner, ['newHeads']);
        const logs = await subscribe(owner, ['logs', { address: emitterA }]);

        for (const subscription of [heads, logs]) {
          const foreign = await ask(stranger, 'eth_unsubscribe', [subscription]);
          expect(foreign.answer).to.deep.equal(notFound(foreign.requestId));
        }
        const unknown = await ask(owner, 'eth_unsubscribe', [`0x${'ab'.repeat(16)}`]);
        expect(unknown.answer).to.deep.equal(notFound(unknown.requestId));

        // The stranger's attempt left the subscription alone.
        const height = (await blockNumber()) + 2;
        await untilHead(owner, heads, height);

        for (const subscription of [heads, logs]) {
          const first = await ask(owner, 'eth_unsubscribe', [subscription]);
          expect(first.answer).to.deep.equal({ jsonrpc: '2.0', id: first.requestId, result: true });
          const again = await ask(owner, 'eth_unsubscribe', [subscription]);
          expect(again.answer).to.deep.equal(notFound(again.requestId));
        }
      } finally {
        owner.close();
        stranger.close();
      }
    });

    it('stops the notifications of the subscription it ends, and only those', async () => {
      const client = await WsClient.connect(node.wsUrl);
      const frames = framesOf(client);
      try {
        const heads = await subscribe(client, ['newHeads']);
        const logs = await subscribe(client, ['logs', { address: emitterA }]);
        const kept = await subscribe(client, ['newHeads']);
        const keptLogs = await subscribe(client, ['logs', { address: emitterA }]);
        const before = await minedBy(await send(devWallet(4), [call(emitterA, 'plain', [21])]));
        await untilHead(client, heads, before + 1);
        expect(resultsOf(client, logs)).to.have.length(1);

        const endHeads = await ask(client, 'eth_unsubscribe', [heads]);
        const endLogs = await ask(client, 'eth_unsubscribe', [logs]);
        expect([endHeads.answer.result, endLogs.answer.result]).to.deep.equal([true, true]);
        const answeredAt = frames.findIndex((frame) => JSON.parse(frame).id === endLogs.requestId);
        expect(answeredAt).to.be.above(0);

        const after = await minedBy(
          await send(devWallet(4), [call(emitterA, 'plain', [22]), call(emitterA, 'notes', [23, 2])]),
        );
        await untilHead(client, kept, after + 3);
        const later = frames.slice(answeredAt + 1).map((frame) => JSON.parse(frame));
        expect(later.filter((message) => [heads, logs].includes(message.params?.subscription))).to.deep.equal([]);
        // The other subscriptions of the connection went on.
        expect(later.filter((message) => message.params?.subscription === keptLogs)).to.have.length(3);
        expect(later.filter((message) => message.params?.subscription === kept).length).to.be.at.least(3);
        expect(resultsOf(client, keptLogs).slice(1)).to.deep.equal(
          await getLogs({ address: emitterA, fromBlock: quantity(before + 1), toBlock: quantity(after) }),
        );
      } finally {
        client.close();
      }
    });
  });

  describe('what cannot be subscribed to', () => {
    it('refuses newPendingTransactions and unknown types with -32601', async () => {
      const client = await WsClient.connect(node.wsUrl);
      try {
        for (const kind of ['newPendingTransactions', 'foo']) {
          const { requestId, answer } = await ask(client, 'eth_subscribe', [kind]);
          expect(answer).to.deep.equal({
            jsonrpc: '2.0',
            id: requestId,
            error: { code: -32601, message: `no "${kind}" subscription in eth namespace` },
          });
        }
        // The connection still serves.
        await subscribe(client, ['newHeads']);
      } finally {
        client.close();
      }
    });

    it('subscribes nothing for an eth_subscribe sent as a notification, as geth', async () => {
      const client = await WsClient.connect(node.wsUrl);
      try {
        // Its id would be the answer, which a notification never gets: the client could not end it.
        for (const params of [['newHeads'], ['logs', {}]]) {
          client.socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscribe', params }));
        }
        const heads = await subscribe(client, ['newHeads']);
        const height = Number((await rpc(node.url, 'eth_blockNumber')).result) + 3;
        await untilHead(client, heads, height);
        expect(client.notifications.filter((each) => each.params?.subscription !== heads)).to.deep.equal([]);
      } finally {
        client.close();
      }
    });

    it('refuses eth_subscribe over HTTP: notifications not supported', async () => {
      for (const params of [['newHeads'], ['logs', { address: emitterA }]]) {
        expect(await rpc(node.url, 'eth_subscribe', params, 7)).to.deep.equal({
          jsonrpc: '2.0',
          id: 7,
          error: { code: -32601, message: 'notifications not supported' },
        });
      }
    });
  });

  describe('connections', () => {
    it('ends the subscriptions with their connection while the node keeps producing for the others', async () => {
      const closing = await WsClient.connect(node.wsUrl);
      const heads = await subscribe(closing, ['newHeads']);
      await subscribe(closing, ['logs']);
      await until(() => pushedCount(closing, heads) > 0, 'a header before closing');
      closing.close();
      expect((await closing.closed).code).to.equal(1005);
      const atClose = await blockNumber();

      const next = await WsClient.connect(node.wsUrl);
      try {
        const nextHeads = await subscribe(next, ['newHeads']);
        await untilHead(next, nextHeads, atClose + 5);
        const numbers = resultsOf(next, nextHeads).map((header) => Number(header.number));
        expect(numbers).to.deep.equal(numbers.map((_, index) => numbers[0]! + index));
        expect(await blockNumber()).to.be.at.least(atClose + 5);
        // The closed connection's ID is nobody's now.
        const { requestId, answer } = await ask(next, 'eth_unsubscribe', [heads]);
        expect(answer).to.deep.equal({
          jsonrpc: '2.0',
          id: requestId,
          error: { code: -32000, message: 'subscription not found' },
        });
      } finally {
        next.close();
      }
    });

    it('disconnects a consumer that leaves more than 16 MiB unread, keeps one that lags by less, and serves a reader throughout', async function () {
      this.timeout(90_000);
      /** Unfiltered logs subscriptions of the client that stops reading for good. */
      const SLOW_SUBSCRIPTIONS = 20;
      /** Logs subscriptions of the client that stops reading for a while. */
      const LAGGING_SUBSCRIPTIONS = 5;
      const NOTES_PER_TX = 200;
      const TAG = 0x5100;
      const filter = { address: emitterA, topics: [NOTE, topicOf(TAG)] };
      const slow = await WsClient.connect(node.wsUrl);
      const lagging = await WsClient.connect(node.wsUrl);
      const reader = await WsClient.connect(node.wsUrl);
      let slowBytes = 0;
      slow.socket.on('message', (data) => {
        slowBytes += Array.isArray(data) ? Buffer.concat(data).length : Buffer.from(data as ArrayBuffer).length;
      });
      const tcpOf = (client: WsClient) =>
        (client.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
      try {
        const slowLogs: string[] = [];
        for (let index = 0; index < SLOW_SUBSCRIPTIONS; index++) slowLogs.push(await subscribe(slow, ['logs']));
        await subscribe(slow, ['newHeads']);
        const laggingLogs: string[] = [];
        for (let index = 0; index < LAGGING_SUBSCRIPTIONS; index++) {
          laggingLogs.push(await subscribe(lagging, ['logs', filter]));
        }
        const laggingHeads = await subscribe(lagging, ['newHeads']);
        const readerLogs = await subscribe(reader, ['logs', filter]);
        const readerHeads = await subscribe(reader, ['newHeads']);
        await until(() => pushedCount(reader, readerHeads) > 0, 'the first header');
        const fromBlock = Number(resultsOf(reader, readerHeads)[0].number);

        // Two clients stop reading: what the node sends them piles up in its buffers.
        tcpOf(slow).pause();
        tcpOf(lagging).pause();
        const slowBefore = slow.notifications.length;

        const notes = call(emitterA, 'notes', [TAG, NOTES_PER_TX]);
        const estimate = BigInt(
          (await rpc(node.url, 'eth_estimateGas', [{ from: devWallet(5).address, to: notes.to, data: notes.data }]))
            .result,
        );
        const gasLimit = (estimate * 11n) / 10n;
        const hashes = (
          await Promise.all(
            [5, 6, 7, 8].map((index) =>
              send(
                devWallet(index),
                Array.from({ length: 4 }, () => ({ ...notes, gasLimit })),
              ),
            ),
          )
        ).flat();
        const toBlock = await minedBy(hashes);
        await untilHead(reader, readerHeads, toBlock + 2);
        // Logs go out apart from headers, behind what the slow client is pushed until it is cut.
        await until(() => pushedCount(reader, readerLogs) >= hashes.length * NOTES_PER_TX, "the reader's logs");

        const expected = await getLogs({ ...filter, fromBlock: quantity(fromBlock), toBlock: quantity(toBlock) });
        expect(expected).to.have.length(hashes.length * NOTES_PER_TX);
        expect(await getLogs({ fromBlock: quantity(fromBlock), toBlock: quantity(toBlock) })).to.deep.equal(expected);
        expect(resultsOf(reader, readerLogs)).to.deep.equal(expected);
        const frameBytes = (result: unknown) =>
          JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: readerLogs, result } })
            .length;
        const logFrameBytes = expected.reduce((total, log) => total + frameBytes(log), 0);
        const headFrameBytes = resultsOf(reader, readerHeads).reduce((total, header) => total + frameBytes(header), 0);
        // What the slow client was to be sent is far beyond the limit and any socket buffers;
        // what the lagging one was sent stays under the limit even with nothing in socket buffers.
        expect(logFrameBytes * SLOW_SUBSCRIPTIONS).to.be.above(2 * MAX_UNREAD);
        expect(logFrameBytes * LAGGING_SUBSCRIPTIONS + headFrameBytes).to.be.below(MAX_UNREAD);

        // Reading again, the slow client gets what the sockets held, then finds the connection cut.
        tcpOf(slow).resume();
        const closed = await Promise.race([slow.closed, sleep(15_000).then(() => undefined)]);
        expect(closed, 'the slow connection was not closed').to.not.equal(undefined);
        expect(closed!.code).to.equal(1006);
        expect(slow.notifications.length - slowBefore).to.be.below(expected.length * SLOW_SUBSCRIPTIONS);
        expect(slowBytes).to.be.below(logFrameBytes * SLOW_SUBSCRIPTIONS);
        // Up to the cut, each subscription got its logs in order, without gaps.
        for (const subscription of slowLogs) {
          const pushed = resultsOf(slow, subscription);
          expect(pushed).to.deep.equal(expected.slice(0, pushed.length));
        }

        // The lagging client catches up on everything, and stays connected.
        tcpOf(lagging).resume();
        await until(
          () => laggingLogs.every((subscription) => pushedCount(lagging, subscription) >= expected.length),
          'the lagging client to catch up',
        );
        await untilHead(lagging, laggingHeads, toBlock + 2);
        for (const subscription of laggingLogs) expect(resultsOf(lagging, subscription)).to.deep.equal(expected);
        expect(lagging.socket.readyState).to.equal(lagging.socket.OPEN);

        // The reader was never affected.
        const height = (await blockNumber()) + 2;
        await untilHead(reader, readerHeads, height);
        await untilHead(lagging, laggingHeads, height);
        for (const [client, subscription] of [
          [reader, readerHeads],
          [lagging, laggingHeads],
        ] as const) {
          // Every header since the subscription, in order and without gaps; the lagging client
          // subscribed before the reader, so it may have one block more at the start.
          const numbers = resultsOf(client, subscription).map((header) => Number(header.number));
          expect(numbers[0]).to.be.at.most(fromBlock);
          expect(numbers).to.deep.equal(numbers.map((_, index) => numbers[0]! + index));
        }
        expect(reader.socket.readyState).to.equal(reader.socket.OPEN);
      } finally {
        slow.socket.terminate();
        lagging.close();
        reader.close();
      }
    });
  });

  describe('clients', () => {
    /** Sends transfers of `value` on emitter A from `wallet` one at a time until `seen(value)`; returns when one was. */
    async function probe(wallet: HDNodeWallet, seen: (value: bigint) => boolean, firstValue: bigint): Promise<void> {
      for (let value = firstValue; value < firstValue + 50n; value++) {
        await minedBy(await send(wallet, [call(emitterA, 'transfer', [emitterB, value])]));
        const deadline = Date.now() + 500;
        while (Date.now() < deadline) {
          if (seen(value)) return;
          await sleep(10);
        }
      }
      throw new Error('the client never delivered an event');
    }

    /**
     * Transfers of `values` on emitter A, the first half from dev account 6 to emitter B, the rest
     * from dev account 7 to dev account 6, sent side by side; returns their hashes and the last block holding one.
     */
    async function sendTransfers(values: readonly bigint[]): Promise<{ hashes: string[]; toBlock: number }> {
      const half = Math.ceil(values.length / 2);
      const hashes = (
        await Promise.all([
          send(
            devWallet(6),
            values.slice(0, half).map((value) => call(emitterA, 'transfer', [emitterB, value])),
          ),
          send(
            devWallet(7),
            values.slice(half).map((value) => call(emitterA, 'transfer', [devWallet(6).address, value])),
          ),
        ])
      ).flat();
      return { hashes, toBlock: await minedBy(hashes) };
    }

    it("ethers v6 contract.on('Transfer') over a WebSocketProvider gets each Transfer once", async () => {
      const provider = new WebSocketProvider(node.wsUrl);
      const events: { hash: string; index: number; from: string; to: string; value: bigint; block: number }[] = [];
      try {
        // ethers throws inside its socket handler (`network is not available yet`) on a log that
        // arrives before its own eth_chainId answer, which the first probe's log can beat.
        await provider.getNetwork();
        const contract = new Contract(emitterA, logEmitter.abi, provider);
        await contract.on('Transfer', (from: string, to: string, value: bigint, payload: ContractEventPayload) => {
          events.push({
            hash: payload.log.transactionHash,
            index: payload.log.index,
            from,
            to,
            value,
            block: payload.log.blockNumber,
          });
        });
        await probe(devWallet(6), (value) => events.some((event) => event.value === value), 1_000_000n);
        const values = Array.from({ length: 12 }, (_, index) => 2_000_000n + BigInt(index));
        const { hashes, toBlock } = await sendTransfers(values);
        await until(
          () => values.every((value) => events.some((event) => event.value === value)),
          'every Transfer in ethers',
        );
        // Time for a duplicate to show up.
        await until(async () => (await blockNumber()) >= toBlock + 4, 'four more blocks');
        await sleep(100);

        const fromBlock = Math.min(...events.map((event) => event.block));
        const expected = await getLogs({
          address: emitterA,
          topics: [TRANSFER],
          fromBlock: quantity(fromBlock),
          toBlock: quantity(toBlock),
        });
        expect(events.map((event) => `${event.hash}:${event.index}`)).to.deep.equal(
          expected.map((log) => `${log.transactionHash}:${Number(log.logIndex)}`),
        );
        for (const [position, value] of values.entries()) {
          const matching = events.filter((event) => event.value === value);
          expect(matching, `Transfer of ${value}`).to.have.length(1);
          expect(matching[0]!.hash).to.be.oneOf(hashes);
          expect(matching[0]!.from).to.equal(position < 6 ? devWallet(6).address : devWallet(7).address);
          expect(matching[0]!.to).to.equal(position < 6 ? getAddress(emitterB) : devWallet(6).address);
        }
      } finally {
        await provider.destroy();
      }
    });

    it('viem watchContractEvent and watchBlocks over a webSocket transport get the right events and blocks', async () => {
      const chainDefinition = defineChain({
        id: Number(CHAIN_ID),
        name: 'evmnode local',
        nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
        rpcUrls: { default: { http: [node.url], webSocket: [node.wsUrl] } },
      });
      const client = createPublicClient({ chain: chainDefinition, transport: webSocket(node.wsUrl) });
      const logs: { hash: string; index: number; value: bigint; from: string; to: string; block: bigint }[] = [];
      const blocks: { number: bigint; hash: string; parentHash: string }[] = [];
      const errors: Error[] = [];
      const stopEvents = client.watchContractEvent({
        address: emitterA as Hex,
        abi: logEmitter.abi as Abi,
        eventName: 'Transfer',
        onLogs: (batch) => {
          for (const log of batch as any[]) {
            logs.push({
              hash: log.transactionHash,
              index: log.logIndex,
              value: log.args.value,
              from: log.args.from,
              to: log.args.to,
              block: log.blockNumber,
            });
          }
        },
        onError: (error) => errors.push(error),
      });
      // viem keeps calling onBlock after its unwatch, with undefined once the closed socket fails its getBlock.
      let watching = true;
      const stopBlocks = client.watchBlocks({
        onBlock: (block) => {
          if (!watching) return;
          if (block === undefined) errors.push(new Error('viem could not fetch a newHeads block'));
          else blocks.push({ number: block.number, hash: block.hash, parentHash: block.parentHash });
        },
        onError: (error) => errors.push(error),
      });
      try {
        await probe(devWallet(6), (value) => logs.some((log) => log.value === value), 3_000_000n);
        const values = Array.from({ length: 12 }, (_, index) => 4_000_000n + BigInt(index));
        const { toBlock } = await sendTransfers(values);
        await until(() => values.every((value) => logs.some((log) => log.value === value)), 'every Transfer in viem');
        await until(
          () => blocks.some((block) => block.number >= BigInt(toBlock + 4)),
          'viem blocks after the transfers',
        );
        await sleep(100);
        expect(errors).to.deep.equal([]);

        const fromBlock = Number(logs.map((log) => log.block).reduce((a, b) => (a < b ? a : b)));
        const expected = await getLogs({
          address: emitterA,
          topics: [TRANSFER],
          fromBlock: quantity(fromBlock),
          toBlock: quantity(toBlock),
        });
        expect(logs.map((log) => `${log.hash}:${log.index}`)).to.deep.equal(
          expected.map((log) => `${log.transactionHash}:${Number(log.logIndex)}`),
        );
        for (const [position, value] of values.entries()) {
          const matching = logs.filter((log) => log.value === value);
          expect(matching, `Transfer of ${value}`).to.have.length(1);
          expect(matching[0]!.from).to.equal(position < 6 ? devWallet(6).address : devWallet(7).address);
          expect(matching[0]!.to).to.equal(position < 6 ? getAddress(emitterB) : devWallet(6).address);
        }

        const numbers = blocks.map((block) => Number(block.number));
        expect(numbers).to.deep.equal(numbers.map((_, index) => numbers[0]! + index));
        for (const block of blocks) {
          const stored = await blockJson(Number(block.number));
          expect({ hash: block.hash, parentHash: block.parentHash }).to.deep.equal({
            hash: stored.hash,
            parentHash: stored.parentHash,
          });
        }
      } finally {
        watching = false;
        stopEvents();
        stopBlocks();
        await client.transport.getRpcClient().then((socket) => socket.close());
      }
    });
  });
});

describe('eth_subscribe: the newHeads cap', function () {
  this.timeout(60_000);
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ config: { consensus: { block_time: 50 }, evm: { max_subscriptions_new_head: 2 } } });
  });
  after(() => node.stop());

  it('refuses a third newHeads subscription with -32005 until one ends, by unsubscribing or closing its connection', async () => {
    const first = await WsClient.connect(node.wsUrl);
    const second = await WsClient.connect(node.wsUrl);
    const third = await WsClient.connect(node.wsUrl);
    const fourth = await WsClient.connect(node.wsUrl);
    const refused = async (client: WsClient) => {
      const { requestId, answer } = await ask(client, 'eth_subscribe', ['newHeads']);
      expect(answer).to.deep.equal({
        jsonrpc: '2.0',
        id: requestId,
        error: { code: -32005, message: 'no new subscription can be created' },
      });
    };
    try {
      await subscribe(first, ['newHeads']);
      const secondHeads = await subscribe(second, ['newHeads']);
      await refused(third);
      await refused(first);
      // The cap counts newHeads subscriptions only.
      await subscribe(third, ['logs']);

      // Unsubscribing frees a slot at once.
      expect((await ask(second, 'eth_unsubscribe', [secondHeads])).answer.result).to.equal(true);
      const thirdHeads = await subscribe(third, ['newHeads']);
      await refused(second);

      // Closing a connection frees its subscriptions.
      first.close();
      await first.closed;
      let fourthHeads: string | undefined;
      await until(
        async () => {
          const { answer } = await ask(fourth, 'eth_subscribe', ['newHeads']);
          if (answer.error !== undefined) {
            expect(answer.error).to.deep.equal({ code: -32005, message: 'no new subscription can be created' });
            return false;
          }
          fourthHeads = answer.result as string;
          return true;
        },
        "the closed connection's slot",
        5_000,
      );
      expect(fourthHeads).to.match(SUBSCRIPTION_ID);
      await refused(second);

      // Both remaining subscriptions keep receiving every block.
      const height = Number((await rpc(node.url, 'eth_blockNumber')).result) + 3;
      await untilHead(third, thirdHeads, height);
      await untilHead(fourth, fourthHeads!, height);
      for (const [client, subscription] of [
        [third, thirdHeads],
        [fourth, fourthHeads!],
      ] as const) {
        const numbers = resultsOf(client, subscription).map((header) => Number(header.number));
        expect(numbers).to.deep.equal(numbers.map((_, index) => numbers[0]! + index));
      }
    } finally {
      for (const client of [second, third, fourth]) client.close();
    }
  });
});

describe('eth_subscribe: the logs caps, per connection and per node', function () {
  this.timeout(120_000);
  const capReached = { code: -32005, message: 'no new subscription can be created' };
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ config: { consensus: { block_time: 50 }, evm: { max_subscriptions_logs: 1500 } } });
  });
  after(() => node.stop());

  /** Sends `count` logs subscriptions as one batch; returns the answers in order. */
  async function subscribeBatch(client: WsClient, count: number): Promise<any[]> {
    const batch = Array.from({ length: count }, () => ({
      jsonrpc: '2.0',
      id: nextRequestId++,
      method: 'eth_subscribe',
      params: ['logs', { topics: [TRANSFER] }],
    }));
    const answers = (await client.request(JSON.stringify(batch), 'batch')) as any[];
    expect(answers.map((answer) => answer.id)).to.deep.equal(batch.map((call) => call.id));
    return answers;
  }

  it('holds 50,000 logs subscriptions sent on one connection to max_subscriptions_per_connection, then -32005', async () => {
    const first = await WsClient.connect(node.wsUrl);
    const second = await WsClient.connect(node.wsUrl);
    try {
      const { result: answers, peakGrowthMib } = await withPeakRss(async () => {
        const all: any[] = [];
        for (let sent = 0; sent < 50_000; sent += 1000) all.push(...(await subscribeBatch(first, 1000)));
        return all;
      });
      for (const answer of answers.slice(0, 1000)) expect(answer.result).to.match(SUBSCRIPTION_ID);
      for (const answer of answers.slice(1000)) {
        expect(answer).to.deep.equal({ jsonrpc: '2.0', id: answer.id, error: capReached });
      }
      expect(peakGrowthMib, 'RSS growth (MiB)').to.be.below(200);
      await expectResponsive(node);

      // The cap is per connection: another one subscribes, up to the node's max_subscriptions_logs.
      const secondAnswers = await subscribeBatch(second, 501);
      for (const answer of secondAnswers.slice(0, 500)) expect(answer.result).to.match(SUBSCRIPTION_ID);
      expect(secondAnswers[500].error).to.deep.equal(capReached);
      // newHeads has a cap of its own.
      await subscribe(second, ['newHeads']);

      // Closing a connection frees its subscriptions.
      first.close();
      await first.closed;
      await until(async () => (await ask(second, 'eth_subscribe', ['logs'])).answer.result !== undefined, 'a slot');
    } finally {
      first.close();
      second.close();
    }
  });
});

describe("eth_subscribe: one client's share, over all its connections", function () {
  this.timeout(60_000);
  let node: TestNode;
  before(async () => {
    node = await startTestNode({
      config: {
        consensus: { block_time: 50 },
        // A share of 0.25 of caps of 8: two of each kind a client, whatever its connections.
        evm: { max_subscriptions_new_head: 8, max_subscriptions_logs: 8, max_client_share: 0.25 },
      },
    });
  });
  after(() => node.stop());

  it("refuses a client's third newHeads subscription on a third connection, while another address subscribes", async () => {
    const [first, second, third] = await Promise.all([1, 2, 3].map(() => WsClient.connect(node.wsUrl)));
    const other = await WsClient.connect(node.wsUrl, {}, '127.0.0.2');
    const refusal = async (client: WsClient, params: unknown[]) =>
      (await ask(client, 'eth_subscribe', params)).answer.error;
    const capReached = { code: -32005, message: 'no new subscription can be created' };
    try {
      const firstHeads = await subscribe(first!, ['newHeads']);
      await subscribe(second!, ['newHeads']);
      expect(await refusal(third!, ['newHeads'])).to.deep.equal(capReached);
      // Each kind is shared out on its own, and another address is another client.
      await subscribe(third!, ['logs']);
      await subscribe(other, ['newHeads']);
      await subscribe(other, ['newHeads']);
      expect(await refusal(other, ['newHeads'])).to.deep.equal(capReached);

      // Ending a subscription, by unsubscribing or by closing its connection, gives the share back.
      expect((await ask(first!, 'eth_unsubscribe', [firstHeads])).answer.result).to.equal(true);
      await subscribe(third!, ['newHeads']);
      expect(await refusal(first!, ['newHeads'])).to.deep.equal(capReached);
      second!.close();
      await second!.closed;
      await until(
        async () => (await ask(first!, 'eth_subscribe', ['newHeads'])).answer.result !== undefined,
        'a share',
      );
    } finally {
      for (const client of [first, second, third, other]) client!.close();
    }
  });
});

describe("eth_subscribe: the room logs subscriptions' criteria take", function () {
  this.timeout(60_000);
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ config: { consensus: { block_time: 50 } } });
  });
  after(() => node.stop());

  it('refuses a logs subscription once the criteria held would pass 250,000 addresses and topics, and the node keeps serving', async () => {
    const widest = widestLogCriteria();
    const client = await WsClient.connect(node.wsUrl);
    try {
      const held: string[] = [];
      for (let index = 0; index < 49; index++) held.push(await subscribe(client, ['logs', widest]));
      const { answer } = await ask(client, 'eth_subscribe', ['logs', widest]);
      expect(answer.error).to.deep.equal({ code: -32005, message: 'no new subscription can be created' });
      // 4,951 values are left: narrow criteria still fit.
      await subscribe(client, ['logs', { address: widest.address[0] }]);
      // Ending one gives its room back.
      expect((await ask(client, 'eth_unsubscribe', [held[0]])).answer.result).to.equal(true);
      await subscribe(client, ['logs', widest]);
      await expectResponsive(node);
    } finally {
      client.close();
    }
  });
});

describe('eth_subscribe: a block of many logs pushed to many subscriptions', function () {
  this.timeout(120_000);
  const LOGS = 10_000;
  const SUBSCRIPTIONS = 4;
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ plugins: ['eth-query', 'eth-send', 'subscriptions'] });
  });
  after(() => node.stop());

  it('pushes every log to every subscription, in order, while other calls are answered', async () => {
    const client = await WsClient.connect(node.wsUrl);
    try {
      const ids: string[] = [];
      for (let index = 0; index < SUBSCRIPTIONS; index++) ids.push(await subscribe(client, ['logs', {}]));
      const raw = await sign(devWallet(9), { nonce: 0, data: manyLogsInit(LOGS), gasLimit: 5_000_000n });
      await submit(node.url, raw);
      const total = LOGS * SUBSCRIPTIONS;
      // eth_chainId's round trips from the first notification to the last (the node runs in this process).
      let slowest = 0;
      while (client.notifications.length === 0) await sleep(1);
      const firstAt = performance.now();
      while (client.notifications.length < total) {
        const asked = performance.now();
        expect((await rpc(node.url, 'eth_chainId')).result).to.equal(quantity(CHAIN_ID));
        slowest = Math.max(slowest, performance.now() - asked);
      }
      const pushing = performance.now() - firstAt;
      // Pushed in one stretch of the thread, a call asked meanwhile waited for all of it.
      expect(slowest, `slowest eth_chainId (ms) while ${total} notifications took ${pushing} ms`).to.be.below(
        pushing / 4,
      );
      for (const id of ids) {
        expect(resultsOf(client, id).map((log) => Number(log.logIndex))).to.deep.equal([...Array(LOGS).keys()]);
      }
    } finally {
      client.close();
    }
  });
});

describe('eth_subscribe: subscriptions that hold the pushes behind the chain', function () {
  this.timeout(120_000);
  const LOGS = 28_000;
  const HEAVY_SUBSCRIPTIONS = 20;
  /** `[plugins.subscriptions] max_unpushed_logs`: one block of `LOGS` waiting for its push is within it, two are not. */
  const MAX_UNPUSHED_LOGS = 30_000;
  let node: TestNode;
  before(async () => {
    node = await startTestNode({
      plugins: ['eth-query', 'eth-send', 'subscriptions'],
      config: { plugins: { subscriptions: { max_unpushed_logs: MAX_UNPUSHED_LOGS } } },
    });
  });
  after(() => node.stop());

  it('closes the connection costing the push most (1008) once a block leaves too many logs unpushed, and no other', async () => {
    const [heavy, light, watcher] = await Promise.all(
      ['127.0.0.3', '127.0.0.4', '127.0.0.2'].map((address) => WsClient.connect(node.wsUrl, {}, address)),
    );
    try {
      for (let index = 0; index < HEAVY_SUBSCRIPTIONS; index++) await subscribe(heavy!, ['logs', {}]);
      // The heavy client reads every notification and keeps none: a million would fill this process.
      let heavyNotifications = 0;
      heavy!.socket.removeAllListeners('message');
      heavy!.socket.on('message', () => (heavyNotifications += 1));
      const lightLogs = await subscribe(light!, ['logs', { address: '0x00000000000000000000000000000000000000ff' }]);
      const heads = await subscribe(watcher!, ['newHeads']);

      // Two blocks of 28,000 logs (one transaction fills a block). Pushing the first to the heavy
      // client's subscriptions (560,000 notifications) takes many times as long as making the
      // second, whose commit then leaves 56,000 logs unpushed.
      const heights = await twoBlocksOfLogs(node.url, [8, 9], LOGS);

      expect(await heavy!.closed).to.deep.equal({
        code: 1008,
        reason: `subscriptions more than ${MAX_UNPUSHED_LOGS} logs behind the chain`,
      });
      expect(heavyNotifications)
        .to.be.above(0)
        .and.below(2 * LOGS * HEAVY_SUBSCRIPTIONS);

      // The others stay, and the watcher's headers go on past both blocks, one per height.
      await untilHead(watcher!, heads, Math.max(...heights) + 3);
      const pushed = resultsOf(watcher!, heads).map((header) => Number(header.number));
      expect(pushed).to.deep.equal(pushed.map((_, index) => pushed[0]! + index));
      expect(watcher!.socket.readyState).to.equal(watcher!.socket.OPEN);
      expect(light!.socket.readyState).to.equal(light!.socket.OPEN);
      expect(resultsOf(light!, lightLogs)).to.deep.equal([]);
      // The light client's subscription still holds its place: ending it is answered true.
      expect((await ask(light!, 'eth_unsubscribe', [lightLogs])).answer.result).to.equal(true);
    } finally {
      for (const client of [heavy, light, watcher]) client?.close();
    }
  });

  it("closes every connection of the client costing the push most at once, and keeps the others' logs whole", async () => {
    const [heavy, heavyAgain, honest] = await Promise.all(
      ['127.0.0.6', '127.0.0.6', '127.0.0.7'].map((address) => WsClient.connect(node.wsUrl, {}, address)),
    );
    try {
      // One client (an address) on two connections: a client that reconnects holds both in turn.
      for (const connection of [heavy!, heavyAgain!]) {
        for (let index = 0; index < HEAVY_SUBSCRIPTIONS / 2; index++) await subscribe(connection, ['logs', {}]);
        connection.socket.removeAllListeners('message');
        connection.socket.on('message', () => {});
      }
      const honestLogs = await subscribe(honest!, ['logs', {}]);

      const [first, second] = await twoBlocksOfLogs(node.url, [6, 7], LOGS);

      const reason = `subscriptions more than ${MAX_UNPUSHED_LOGS} logs behind the chain`;
      expect(await heavy!.closed).to.deep.equal({ code: 1008, reason });
      expect(await heavyAgain!.closed).to.deep.equal({ code: 1008, reason });
      await until(() => honest!.notifications.length === 2 * LOGS, "the honest client's logs", 60_000);
      const received = resultsOf(honest!, honestLogs).map((log) => [Number(log.blockNumber), Number(log.logIndex)]);
      expect(received).to.deep.equal(logPlaces([first, second], LOGS));
      expect(honest!.socket.readyState).to.equal(honest!.socket.OPEN);
    } finally {
      for (const client of [heavy, heavyAgain, honest]) client?.close();
    }
  });

  it('keeps an honest subscriber whole while a client that stopped reading is closed', async () => {
    const [stalled, honest] = await Promise.all(
      ['127.0.0.8', '127.0.0.9'].map((address) => WsClient.connect(node.wsUrl, {}, address)),
    );
    try {
      for (let index = 0; index < HEAVY_SUBSCRIPTIONS; index++) await subscribe(stalled!, ['logs', {}]);
      // It reads nothing more: the node drops it once 16 MiB of notifications wait for it (1006), or
      // closes it first for holding the pushes behind (1008). Either way the honest client is not
      // closed for the backlog it left, as it was once the dropped client was no longer counted.
      stalled!.socket.pause();
      const honestLogs = await subscribe(honest!, ['logs', {}]);

      const [first, second] = await twoBlocksOfLogs(node.url, [4, 5], LOGS);

      await until(() => honest!.notifications.length === 2 * LOGS, "the honest client's logs", 60_000);
      expect(
        resultsOf(honest!, honestLogs).map((log) => [Number(log.blockNumber), Number(log.logIndex)]),
      ).to.deep.equal(logPlaces([first, second], LOGS));
      expect(honest!.socket.readyState).to.equal(honest!.socket.OPEN);
      stalled!.socket.resume();
      expect([1006, 1008]).to.include((await stalled!.closed).code);
    } finally {
      for (const client of [stalled, honest]) client?.close();
    }
  });
});

describe("eth_subscribe: headers while a heavy subscriber's logs are being pushed", function () {
  this.timeout(120_000);
  const LOGS = 28_000;
  const HEAVY_SUBSCRIPTIONS = 10;
  let node: TestNode;
  // The default max_unpushed_logs (100,000) holds both blocks' logs: no connection is closed.
  before(async () => {
    node = await startTestNode({ plugins: ['eth-query', 'eth-send', 'subscriptions'] });
  });
  after(() => node.stop());

  it('pushes each header at its commit, not after the logs of the blocks before it', async () => {
    const [heavy, watcher] = await Promise.all(
      ['127.0.0.3', '127.0.0.2'].map((address) => WsClient.connect(node.wsUrl, {}, address)),
    );
    try {
      for (let index = 0; index < HEAVY_SUBSCRIPTIONS; index++) await subscribe(heavy!, ['logs', {}]);
      let heavyNotifications = 0;
      heavy!.socket.removeAllListeners('message');
      heavy!.socket.on('message', () => (heavyNotifications += 1));
      const heads = await subscribe(watcher!, ['newHeads']);
      // What the heavy client had received when each header came.
      const heavyAtHeader = new Map<number, number>();
      watcher!.socket.on('message', (data) => {
        const { params } = JSON.parse((data as Buffer).toString());
        if (params?.subscription === heads) heavyAtHeader.set(Number(params.result.number), heavyNotifications);
      });

      // Two blocks of 28,000 logs (one transaction fills a block): pushing the first's to the heavy
      // client (280,000 notifications) takes seconds, the second commits long before that.
      const [, second] = await twoBlocksOfLogs(node.url, [8, 9], LOGS);
      await untilHead(watcher!, heads, second);
      // The second block's header came while the first block's logs were still being pushed.
      expect(heavyAtHeader.get(second)).to.be.below(LOGS * HEAVY_SUBSCRIPTIONS);
      // Its logs follow whole, in order, after the first block's.
      await until(() => heavyNotifications === 2 * LOGS * HEAVY_SUBSCRIPTIONS, 'every log pushed', 60_000);
      const pushed = resultsOf(watcher!, heads).map((header) => Number(header.number));
      expect(pushed).to.deep.equal(pushed.map((_, index) => pushed[0]! + index));
      expect(heavy!.socket.readyState).to.equal(heavy!.socket.OPEN);
    } finally {
      for (const client of [heavy, watcher]) client?.close();
    }
  });
});
