import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { bech32 } from '@scure/base';
import { getBytes, Wallet } from 'ethers';
import { WebSocketServer } from 'ws';
import { devAccounts } from '@evmnode/core';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { devWallet, quantity, sign, sleep, submit, submitTogether, waitForReceipt } from '../support/chain-kit.js';
import { nativeSigner, sendNative } from '../support/native-kit.js';
import { rpc, rpcFrom } from '../support/rpc-client.js';

/** A follower of `producer`, asking it for blocks every 20 ms. */
function startFollower(producer: TestNode, home?: string, config: Record<string, unknown> = {}): Promise<TestNode> {
  return startTestNode({
    ...(home === undefined ? {} : { home }),
    config: {
      node: { role: 'follower' },
      follower: { upstream: producer.nativeUrl, poll_interval: 20 },
      ...config,
    },
  });
}

/** What {@link relayOf} answers for the producer: its own answers, or a broken one of some method. */
type RelayMode =
  | 'forward'
  | 'status without a height'
  | 'status with a bare error'
  | 'status past 32 MiB'
  | 'status of height 1'
  | 'status nested deep'
  | 'block without a block'
  | 'broadcast without a result'
  | 'broadcasts held';

interface Relay {
  readonly url: string;
  /** The broadcasts held in 'broadcasts held' mode so far. */
  readonly held: number;
  /** Forwards the broadcasts held to the producer. */
  release(): void;
  close(): Promise<void>;
}

/**
 * A native gateway in front of the producer's: it forwards calls as `mode()` says, and sends every
 * new-block subscriber messages that are not new-block events, every 10 ms.
 */
async function relayOf(producer: TestNode, mode: () => RelayMode): Promise<Relay> {
  const held: (() => void)[] = [];
  let heldCount = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const { id, method } = JSON.parse(body) as { id: number; method: string };
        if (mode() === 'broadcasts held' && method === 'broadcast_tx_sync') {
          heldCount++;
          await new Promise<void>((resolve) => held.push(resolve));
        }
        const broken =
          mode() === 'status without a height' && method === 'status'
            ? { sync_info: {} }
            : mode() === 'status of height 1' && method === 'status'
              ? { sync_info: { latest_block_height: '1' } }
              : mode() === 'block without a block' && method === 'block'
                ? { block_id: { hash: 'AB' }, block: null }
                : mode() === 'broadcast without a result' && method === 'broadcast_tx_sync'
                  ? { code: 0 }
                  : undefined;
        const answer =
          mode() === 'status with a bare error' && method === 'status'
            ? JSON.stringify({ jsonrpc: '2.0', id, error: 'producer busy' })
            : mode() === 'status past 32 MiB' && method === 'status'
              ? JSON.stringify({ jsonrpc: '2.0', id, result: { padding: 'x'.repeat(32 * 1024 * 1024) } })
              : mode() === 'status nested deep' && method === 'status'
                ? `{"jsonrpc":"2.0","id":${id},"result":${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}}`
                : broken === undefined
                  ? await (await fetch(producer.nativeUrl, { method: 'POST', body })).text()
                  : JSON.stringify({ jsonrpc: '2.0', id, result: broken });
        response.setHeader('content-type', 'application/json');
        response.end(answer);
      })();
    });
  });
  const junk = [
    'null',
    'not JSON',
    '[]',
    JSON.stringify({ jsonrpc: '2.0', id: 'new-blocks', result: { data: { value: { block: {}, block_id: {} } } } }),
    JSON.stringify({ result: { data: { value: { block: { header: { height: '1' } }, block_id: { hash: 'AB' } } } } }),
  ];
  const pushes = new WebSocketServer({ server, path: '/websocket' });
  const pushing = setInterval(() => {
    for (const client of pushes.clients) for (const message of junk) client.send(message);
  }, 10);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const release = (): void => {
    for (const resolve of held.splice(0)) resolve();
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get held() {
      return heldCount;
    },
    release,
    async close() {
      release();
      clearInterval(pushing);
      for (const client of pushes.clients) client.terminate();
      await new Promise((resolve) => pushes.close(resolve));
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function untilCaughtUp(follower: TestNode, producer: TestNode, timeoutMs = 30_000): Promise<number> {
  const target = producer.node.chain.head().height;
  const deadline = Date.now() + timeoutMs;
  while (follower.node.chain.head().height < target) {
    if (Date.now() > deadline)
      throw new Error(`the follower is at ${follower.node.chain.head().height}, the producer at ${target}`);
    await sleep(10);
  }
  return target;
}

/** `count` transfers from dev account `devIndex`, nonces from `firstNonce`, submitted together; their hashes. */
async function transfers(url: string, devIndex: number, firstNonce: number, count: number): Promise<string[]> {
  const raws = await Promise.all(
    Array.from({ length: count }, (_, offset) =>
      sign(devWallet(devIndex), {
        to: Wallet.createRandom().address,
        value: 1_000n + BigInt(offset),
        nonce: firstNonce + offset,
      }),
    ),
  );
  return submitTogether(url, raws);
}

/** Every block up to `height` with its transactions, and every receipt, as `url` serves them. */
async function chainOf(url: string, height: number): Promise<unknown[]> {
  const blocks = [];
  for (let number = 0; number <= height; number++) {
    const block = (await rpc(url, 'eth_getBlockByNumber', [quantity(number), true])).result;
    const receipts = (await rpc(url, 'eth_getBlockReceipts', [quantity(number)])).result;
    blocks.push({ block, receipts });
  }
  return blocks;
}

describe('follower nodes', function () {
  this.timeout(120_000);
  let producer: TestNode;
  before(async () => {
    producer = await startTestNode({ config: { consensus: { block_time: 100 } } });
  });
  after(() => producer.stop());

  it('replicate every block, receipts and balances included, and pick up where they stopped after a restart', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'evmnode-follower-'));
    try {
      let follower = await startFollower(producer, home);
      const sent = [...(await transfers(producer.url, 1, 0, 20)), ...(await transfers(producer.url, 2, 0, 20))];
      const signer = await nativeSigner(devAccounts(10)[3]!.privateKey);
      const recipient = Wallet.createRandom().address;
      await sendNative(producer.node.native, signer, [
        {
          typeUrl: '/cosmos.bank.v1beta1.MsgSend',
          value: {
            fromAddress: signer.address,
            // The native address of the same 20 bytes: eth_getBalance shows what it holds.
            toAddress: bech32.encode('sei', bech32.toWords(getBytes(recipient))),
            amount: [{ denom: 'usei', amount: '7' }],
          },
        },
      ]);
      for (const hash of sent) await waitForReceipt(producer.url, hash);
      let height = await untilCaughtUp(follower, producer);
      expect(await chainOf(follower.url, height)).to.deep.equal(await chainOf(producer.url, height));

      // Stopped while the producer goes on, then started on the same home: no gap, nothing twice.
      await follower.stop();
      const later = await transfers(producer.url, 1, 20, 10);
      for (const hash of later) await waitForReceipt(producer.url, hash);
      follower = await startFollower(producer, home);
      height = await untilCaughtUp(follower, producer);
      expect(await chainOf(follower.url, height)).to.deep.equal(await chainOf(producer.url, height));
      const health = await fetch(`${follower.url}/health`);
      expect(health.status).to.equal(200);
      expect(await health.json()).to.deep.include({ status: 'ok', role: 'follower', upstreamReachable: true });
      for (const address of [devWallet(1).address, devWallet(2).address, recipient]) {
        const balance = async (url: string) => (await rpc(url, 'eth_getBalance', [address, quantity(height)])).result;
        expect(await balance(follower.url)).to.equal(await balance(producer.url));
      }
      await follower.stop();
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("forward eth_sendRawTransaction and native broadcasts to the producer, and answer with the producer's answer", async () => {
    const follower = await startFollower(producer, undefined, {
      follower: { upstream: producer.nativeUrl, upstream_rpc: producer.url, poll_interval: 20 },
    });
    try {
      const [hash] = await transfers(follower.url, 5, 0, 1);
      expect((await waitForReceipt(follower.url, hash!)).status).to.equal('0x1');
      expect(follower.node.chain.pool.size).to.equal(0);
      const stale = await sign(devWallet(5), { to: devWallet(6).address, value: 1n, nonce: 0 });
      const fromFollower = await rpc(follower.url, 'eth_sendRawTransaction', [stale]);
      expect(fromFollower.error.message).to.match(/^nonce too low/);
      expect(fromFollower.error).to.deep.equal((await rpc(producer.url, 'eth_sendRawTransaction', [stale])).error);

      const signer = await nativeSigner(devAccounts(10)[7]!.privateKey);
      const record = await sendNative(follower.node.native, signer, [
        {
          typeUrl: '/cosmos.bank.v1beta1.MsgSend',
          value: { fromAddress: signer.address, toAddress: signer.address, amount: [{ denom: 'usei', amount: '1' }] },
        },
      ]);
      expect(record.code).to.equal(0);
      expect(await producer.node.native.txByHash(record.hash)).to.deep.include({ height: record.height, code: 0 });
    } finally {
      await follower.stop();
    }
  });

  it("answer -32002 when the producer's JSON-RPC endpoint gives no hash and no error of its own", async () => {
    // What a proxy in front of the producer may answer, one by one.
    const answers = [
      { status: 200, body: 'null' },
      { status: 200, body: '{"error":"busy"}' },
      { status: 200, body: '{"jsonrpc":"2.0","id":1,"error":{"code":"-32000","message":"x"}}' },
      { status: 200, body: '{"jsonrpc":"2.0","id":1,"result":"0x1"}' },
      { status: 503, body: '<html><body>No server is available to handle this request.</body></html>' },
    ];
    const proxy = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        const { status, body } = answers.shift()!;
        response.writeHead(status, { 'content-type': 'application/json' }).end(body);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const follower = await startFollower(producer, undefined, {
      follower: { upstream: producer.nativeUrl, upstream_rpc: proxyUrl, poll_interval: 20 },
    });
    try {
      const raw = await sign(devWallet(8), { to: devWallet(6).address, value: 1n, nonce: 0 });
      const errors = [];
      for (let sent = 0; sent < 5; sent++)
        errors.push((await rpc(follower.url, 'eth_sendRawTransaction', [raw])).error);
      const noHash = { code: -32002, message: `the producer at ${proxyUrl} gave no hash` };
      expect(errors.slice(0, 4)).to.deep.equal([noHash, noHash, noHash, noHash]);
      expect(errors[4]).to.deep.include({ code: -32002 });
      expect(errors[4].message).to.match(new RegExp(`^the producer at ${proxyUrl} cannot be reached: `));
    } finally {
      await follower.stop();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it("forward at most 128 transactions at once to a slow producer, a client's share of them, none the producer would refuse for size", async () => {
    // A producer's endpoint that holds every request until the test ends.
    const held: (() => void)[] = [];
    const slow = createServer((request, response) => {
      request.resume();
      held.push(() => response.writeHead(503).end());
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
    const follower = await startFollower(producer, undefined, {
      follower: { upstream: producer.nativeUrl, upstream_rpc: slowUrl, poll_interval: 20 },
      evm: { max_client_share: 0.25 },
    });
    try {
      const raw = await sign(devWallet(8), { to: devWallet(6).address, value: 1n, nonce: 0 });
      const send = (client: string) => rpcFrom(client, follower.url, 'eth_sendRawTransaction', [raw]);
      const busy = { code: -32005, message: 'server busy: too many transactions being forwarded to the producer' };
      // A max_client_share of 0.25: 32 forwards a client.
      const forwarded = Array.from({ length: 32 }, () => send('127.0.0.1'));
      while (held.length < 32) await sleep(10);
      expect((await send('127.0.0.1')).error, 'a client holding its share').to.deep.equal(busy);
      for (const client of ['127.0.0.2', '127.0.0.3', '127.0.0.4'])
        forwarded.push(...Array.from({ length: 32 }, () => send(client)));
      while (held.length < 128) await sleep(10);
      expect((await send('127.0.0.5')).error, 'the node full').to.deep.equal(busy);
      const oversized = await sign(devWallet(8), {
        to: devWallet(6).address,
        nonce: 0,
        data: `0x${'01'.repeat(140_000)}`,
        gasLimit: 3_000_000n,
      });
      expect((await rpc(follower.url, 'eth_sendRawTransaction', [oversized])).error.message).to.match(
        /^oversized data: transaction size 14\d{4}, limit 131072/,
      );
      expect(held).to.have.length(128);
      for (const answer of held) answer();
      for (const answer of await Promise.all(forwarded)) expect(answer.error.code).to.equal(-32002);
    } finally {
      await follower.stop();
      await new Promise((resolve) => slow.close(resolve));
    }
  });

  it('without upstream_rpc, refuse transactions, saying where to send them', async () => {
    const follower = await startFollower(producer);
    try {
      const raw = await sign(devWallet(8), { to: devWallet(6).address, value: 1n, nonce: 0 });
      expect((await rpc(follower.url, 'eth_sendRawTransaction', [raw])).error).to.deep.equal({
        code: -32000,
        message:
          `this node follows ${producer.nativeUrl} and has no [follower] upstream_rpc to send transactions to: ` +
          "send them to the producer's JSON-RPC endpoint",
      });
      expect(follower.node.chain.pool.size).to.equal(0);
    } finally {
      await follower.stop();
    }
  });

  it('stop following, loudly, at a block that does not come out as the producer made it', async () => {
    // Another chain ID: block 1's header, and so its hash, differ from the producer's.
    const follower = await startFollower(producer, undefined, { node: { role: 'follower', chain_id: 999 } });
    try {
      const deadline = Date.now() + 10_000;
      while (
        !follower.logs.some((line) => line.msg === 'follower stopped: a block from the producer does not replicate')
      ) {
        if (Date.now() > deadline) throw new Error('the follower did not stop');
        await sleep(20);
      }
      expect(follower.node.chain.head().height).to.equal(0);
      const line = follower.logs.find((entry) => entry.level === 50)!;
      const message = (line.err as { message: string }).message;
      expect(message).to.match(
        /^block 1 from the producer does not replicate: its hash here is 0x[0-9a-f]{64}, not 0x[0-9a-f]{64}$/,
      );
      // A balancer takes it out.
      const health = await fetch(`${follower.url}/health`);
      expect(health.status).to.equal(503);
      const report = (await health.json()) as Record<string, unknown>;
      expect(report).to.deep.include({ status: 'stopped', role: 'follower', height: 0, error: message });
      expect(report.lagBlocks).to.be.greaterThan(0);
    } finally {
      await follower.stop();
    }
  });

  it('follower-public: eth_ reads and sends only; no debug_ or ext_ methods and no hosted keys', async () => {
    const follower = await startTestNode({
      profile: 'follower-public',
      config: { follower: { upstream: producer.nativeUrl, upstream_rpc: producer.url, poll_interval: 20 } },
    });
    try {
      await untilCaughtUp(follower, producer);
      expect((await rpc(follower.url, 'debug_traceBlockByNumber', ['0x1'])).error).to.deep.equal({
        code: -32601,
        message: 'the method debug_traceBlockByNumber does not exist/is not available',
      });
      const gated = (await rpc(follower.url, 'ext_getBlockByNumber', ['0x1', false])).error;
      expect(gated).to.deep.include({ code: -32601, data: 'legacy_ext_deprecated' });
      const transaction = { from: devWallet(0).address, to: devWallet(1).address, value: '0x1' };
      expect((await rpc(follower.url, 'eth_sendTransaction', [transaction])).error).to.deep.equal({
        code: -32000,
        message: 'from address does not have hosted key',
      });
      expect((await rpc(follower.url, 'eth_getBlockByNumber', ['0x1', false])).result.hash).to.equal(
        (await rpc(producer.url, 'eth_getBlockByNumber', ['0x1', false])).result.hash,
      );
    } finally {
      await follower.stop();
    }
  });

  it('catch up on blocks that read the hash of the block before, each executed while that one is written', async () => {
    // Runtime: sstore(number(), blockhash(number() - 1)); the init code returns it.
    const recorderInit = '0x67600143034043550060005260086018f3';
    const wallet = devWallet(8);
    const deployed = await waitForReceipt(
      producer.url,
      await submit(producer.url, await sign(wallet, { nonce: 0, data: recorderInit, gasLimit: 100_000n })),
    );
    const recorder: string = deployed.contractAddress;
    // One call a block: each block reads the hash of the block before, which a follower catching
    // up is still writing when it executes the block.
    const calls = [];
    for (let nonce = 1; nonce <= 8; nonce++) {
      const hash = await submit(producer.url, await sign(wallet, { nonce, to: recorder, gasLimit: 60_000n }));
      calls.push(await waitForReceipt(producer.url, hash));
    }
    const follower = await startFollower(producer);
    try {
      const height = await untilCaughtUp(follower, producer);
      expect(await chainOf(follower.url, height)).to.deep.equal(await chainOf(producer.url, height));
      for (const call of calls) {
        const number = Number(call.blockNumber);
        const recorded = await rpc(follower.url, 'eth_getStorageAt', [recorder, quantity(number), call.blockNumber]);
        const before = await rpc(producer.url, 'eth_getBlockByNumber', [quantity(number - 1), false]);
        expect(recorded.result).to.equal(before.result.hash);
      }
    } finally {
      await follower.stop();
    }
  });

  it('follow new blocks as the producer pushes them, without waiting for the next poll', async () => {
    // Polled once a minute: only the pushed blocks can keep it at the producer's head.
    const follower = await startFollower(producer, undefined, {
      follower: { upstream: producer.nativeUrl, poll_interval: 60_000 },
    });
    try {
      await untilCaughtUp(follower, producer);
      const from = producer.node.chain.head().height;
      while (producer.node.chain.head().height < from + 5) await sleep(20);
      await untilCaughtUp(follower, producer, 2_000);
    } finally {
      // Stopping does not wait out the poll interval.
      const stopping = Date.now();
      await follower.stop();
      expect(Date.now() - stopping).to.be.below(10_000);
    }
  });

  it('prune their own old state with [state] keep_recent, and keep replicating', async () => {
    // Ten blocks (one second) of state: a follower that applies several fetched blocks at once
    // still serves the height it was at when the comparison below reads it.
    const follower = await startFollower(producer, undefined, { state: { keep_recent: 10 } });
    try {
      const sent = await transfers(producer.url, 7, 0, 10);
      const receipts = await Promise.all(sent.map((hash) => waitForReceipt(producer.url, hash)));
      const transferHeight = Math.max(...receipts.map((receipt) => Number(receipt.blockNumber)));
      while (producer.node.chain.head().height < transferHeight + 25) await sleep(20);
      await untilCaughtUp(follower, producer);
      const height = quantity(follower.node.chain.head().height);
      const sender = devWallet(7).address;
      const balanceAt = async (url: string, at: string) => rpc(url, 'eth_getBalance', [sender, at]);
      expect((await balanceAt(follower.url, height)).result).to.equal((await balanceAt(producer.url, height)).result);

      // The producer is an archive node; the follower answers the old height's state with the pruned error.
      const old = quantity(transferHeight);
      expect((await balanceAt(producer.url, old)).result).to.match(/^0x[0-9a-f]+$/);
      expect((await balanceAt(follower.url, old)).error).to.deep.include({ code: -32000 });
      expect((await balanceAt(follower.url, old)).error.message).to.match(
        new RegExp(`^requested height ${transferHeight} has been pruned; earliest available is \\d+$`),
      );
      // It deletes that state, as a producer with keep_recent does.
      expect(follower.logs.some((line) => line.msg === 'pruned old state' && Number(line.deleted) > 0)).to.equal(true);
      // Blocks and receipts are not state: the follower keeps them all.
      const receiptsAt = async (url: string) => (await rpc(url, 'eth_getBlockReceipts', [old])).result;
      expect(await receiptsAt(follower.url)).to.deep.equal(await receiptsAt(producer.url));
    } finally {
      await follower.stop();
    }
  });

  it('ignore pushes that are not new blocks, take answers without a height, a block or a result for errors, and keep following', async () => {
    let mode: RelayMode = 'block without a block';
    const relay = await relayOf(producer, () => mode);
    const follower = await startTestNode({
      config: { node: { role: 'follower' }, follower: { upstream: relay.url, poll_interval: 20 } },
    });
    const warnings = () =>
      follower.logs
        .filter((line) => line.msg === 'cannot reach the producer')
        .map((line) => (line.err as { message: string }).message);
    const untilWarned = async (count: number) => {
      while (warnings().length < count) await sleep(20);
    };
    // An outage is logged once: the producer is reached again before the next.
    const untilReachable = async () => {
      const reachable = async () =>
        ((await (await fetch(`${follower.url}/health`)).json()) as { upstreamReachable: boolean }).upstreamReachable;
      while (!(await reachable())) await sleep(20);
    };
    try {
      await untilWarned(1);
      expect(warnings()).to.deep.equal([`block 1 at ${relay.url}: the answer is not a block`]);
      expect(follower.node.chain.head().height).to.equal(0);
      expect(await (await fetch(`${follower.url}/health`)).json()).to.deep.include({ upstreamReachable: false });

      mode = 'forward';
      await untilCaughtUp(follower, producer);
      mode = 'status without a height';
      await untilWarned(2);
      expect(warnings()[1]).to.equal(`status at ${relay.url}: no latest block height in the answer`);
      expect(await (await fetch(`${follower.url}/health`)).json()).to.deep.include({ upstreamReachable: false });

      mode = 'forward';
      const [hash] = await transfers(producer.url, 9, 0, 1);
      const receipt = await waitForReceipt(producer.url, hash!);
      await untilCaughtUp(follower, producer);
      expect((await rpc(follower.url, 'eth_getTransactionReceipt', [hash])).result).to.deep.equal(receipt);
      expect(await (await fetch(`${follower.url}/health`)).json()).to.deep.include({
        status: 'ok',
        upstreamReachable: true,
      });

      // An error that is not CometBFT's object is quoted as it came.
      mode = 'status with a bare error';
      await untilWarned(3);
      expect(warnings()[2]).to.equal(`status at ${relay.url}: "producer busy"`);
      mode = 'forward';
      await untilCaughtUp(follower, producer);

      // Answers too large or too deep are refused before they are parsed, off the node's thread.
      await untilReachable();
      mode = 'status past 32 MiB';
      await untilWarned(4);
      expect(warnings()[3]).to.equal(`status at ${relay.url}: the answer passes 33554432 bytes`);
      mode = 'forward';
      await untilReachable();
      mode = 'status nested deep';
      await untilWarned(5);
      expect(warnings()[4]).to.equal(`status at ${relay.url}: exceeded max depth`);
      mode = 'forward';
      await untilCaughtUp(follower, producer);

      // A producer whose head is below this node's, by more than max_lag_blocks (10), lost blocks or is another chain.
      while (follower.node.chain.head().height < 13) await sleep(20);
      mode = 'status of height 1';
      let health: Response;
      while ((health = await fetch(`${follower.url}/health`)).status === 200) await sleep(20);
      const height = follower.node.chain.head().height;
      expect(health.status).to.equal(503);
      expect(await health.json()).to.deep.equal({
        status: 'ahead',
        role: 'follower',
        height,
        upstreamHeight: 1,
        lagBlocks: 0,
        upstreamReachable: true,
        error: `the producer's head 1 is ${height - 1} blocks below this node's: it lost blocks, or is another chain`,
      });
      mode = 'forward';
      while ((await fetch(`${follower.url}/health`)).status !== 200) await sleep(20);

      mode = 'broadcast without a result';
      const broadcast = { jsonrpc: '2.0', id: 1, method: 'broadcast_tx_sync', params: { tx: 'AQID' } };
      const answer = await fetch(follower.nativeUrl, { method: 'POST', body: JSON.stringify(broadcast) });
      // CometBFT's answer to a broadcast that failed on its way.
      expect(await answer.json()).to.deep.equal({
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32603,
          message: 'Internal error',
          data: `broadcast_tx_sync at ${relay.url}: the answer is not a result`,
        },
      });
    } finally {
      await follower.stop();
      await relay.close();
    }
  });

  it("forward a client's share of the native broadcasts at once, and another client's besides", async () => {
    let mode: RelayMode = 'forward';
    const relay = await relayOf(producer, () => mode);
    const follower = await startTestNode({
      config: {
        node: { role: 'follower' },
        follower: { upstream: relay.url, poll_interval: 20 },
        evm: { max_client_share: 0.25 },
      },
    });
    try {
      await untilCaughtUp(follower, producer);
      mode = 'broadcasts held';
      const broadcast = (client: string) => rpcFrom(client, follower.nativeUrl, 'broadcast_tx_sync', ['AQID']);
      // A share of 0.25 of the 128: 32 a client.
      const first = Array.from({ length: 32 }, () => broadcast('127.0.0.1'));
      while (relay.held < 32) await sleep(10);
      expect((await broadcast('127.0.0.1')).error).to.deep.equal({
        code: -32603,
        message: 'Internal error',
        data: 'server busy: too many transactions being forwarded to the producer',
      });
      const other = broadcast('127.0.0.2');
      while (relay.held < 33) await sleep(10);
      relay.release();
      // The producer's own check of three bytes that are no transaction.
      const checks = (await Promise.all([...first, other])).map((answer) => answer.result.code as number);
      expect(new Set(checks)).to.deep.equal(new Set([2]));
      expect(checks).to.have.length(33);
      expect(follower.logs.filter((line) => line.msg === 'native gateway method failed')).to.deep.equal([]);
    } finally {
      await follower.stop();
      await relay.close();
    }
  });

  it('refuse to start without an upstream', async () => {
    const refused = await startTestNode({ config: { node: { role: 'follower' } } }).then(
      (node) => node.stop().then(() => 'started'),
      (error: Error) => error.message,
    );
    expect(refused).to.equal(
      '[node] role = "follower" needs [follower] upstream: the URL of the producer\'s native gateway (http://host:26657)',
    );
  });
});
