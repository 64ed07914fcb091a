import { expect } from 'chai';
import { JsonRpcProvider, WebSocketProvider } from 'ethers';
import { createPublicClient, http, webSocket } from 'viem';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import {
  BLOCK_GAS_LIMIT,
  FEE_COLLECTOR,
  GWEI,
  devWallet,
  expectedNextBaseFee,
  quantity,
  sign,
  submit,
  submitTogether,
  waitForReceipt,
} from '../support/chain-kit.js';
import { errorOf, overHttp, overWs, resultOf, type Call } from '../support/rpc-answers.js';
import { rpc } from '../support/rpc-client.js';
import { WsClient } from '../support/ws-client.js';

/** Init code that jumps to itself forever: a creation that burns exactly its gas limit. */
const INFINITE_LOOP = '0x5b600056';
const RECIPIENT = '0x00000000000000000000000000000000000000dd';
/** The blocks `eth_feeHistory` may span here (`[evm] max_blocks_for_log`). */
const MAX_BLOCKS = 5;

describe('eth chain information: identity, fee suggestions, fee history, unavailable methods', function () {
  this.timeout(60_000);
  let node: TestNode;
  let call: Call;
  /** Blocks only when transactions arrive, so that `latest` is the last block a test made. */
  before(async () => {
    node = await startTestNode({
      config: {
        consensus: { block_time: 50, create_empty_blocks: false },
        evm: { max_blocks_for_log: MAX_BLOCKS },
      },
    });
    call = overHttp(node.url);
  });
  after(() => node.stop());

  const blockAt = (number: number | string): Promise<any> =>
    resultOf(call, 'eth_getBlockByNumber', [typeof number === 'number' ? quantity(number) : number, false]);
  /** The base fee the block after `block` has (decisions.md D4). */
  const baseFeeAfter = (block: any): bigint =>
    expectedNextBaseFee(BigInt(block.baseFeePerGas), BigInt(block.gasUsed), BigInt(block.gasLimit));
  /** Mines one block of creations that each burn `gas` at tip `tip` (gwei), from one sender; returns its number. */
  async function burnBlock(sender: number, firstNonce: number, burns: readonly { gas: bigint; tip: bigint }[]) {
    const raws = await Promise.all(
      burns.map(({ gas, tip }, offset) =>
        sign(devWallet(sender), {
          nonce: firstNonce + offset,
          to: null,
          data: INFINITE_LOOP,
          gasLimit: gas,
          maxFeePerGas: 20n * GWEI,
          maxPriorityFeePerGas: tip * GWEI,
        }),
      ),
    );
    const hashes = await submitTogether(node.url, raws);
    const receipts = await Promise.all(hashes.map((hash) => waitForReceipt(node.url, hash)));
    expect(new Set(receipts.map((receipt) => receipt.blockNumber)).size, 'one block').to.equal(1);
    expect(receipts.map((receipt) => receipt.gasUsed)).to.deep.equal(burns.map(({ gas }) => quantity(gas)));
    return Number(receipts[0].blockNumber);
  }
  /** Mines one 21,000-gas transfer at a 1 gwei tip; returns its block number. */
  async function transferBlock(sender: number, nonce: number): Promise<number> {
    const raw = await sign(devWallet(sender), { nonce, to: RECIPIENT, value: 1n, maxFeePerGas: 20n * GWEI });
    const hash = await submit(node.url, raw);
    return Number((await waitForReceipt(node.url, hash)).blockNumber);
  }

  describe('identity', () => {
    it('answers eth_chainId in hex and net_version in decimal', async () => {
      expect(await resultOf(call, 'eth_chainId')).to.equal('0xae3f2');
      expect(await resultOf(call, 'net_version')).to.equal('713714');
    });

    it("answers web3_clientVersion in geth's synthetic form", async () => {
      expect(await resultOf(call, 'web3_clientVersion')).to.equal(
        `Geth/${process.platform}-${process.arch}/node-${process.versions.node}`,
      );
    });

    it('answers eth_coinbase with the fee collector, which is not the block proposer', async () => {
      expect(await resultOf(call, 'eth_coinbase')).to.equal(FEE_COLLECTOR);
      expect(node.node.chain.proposer).to.not.equal(FEE_COLLECTOR);
    });

    it('answers eth_blockNumber with the last committed block', async () => {
      const before = await resultOf(call, 'eth_blockNumber');
      expect(before).to.equal((await blockAt('latest')).number);
      const mined = await transferBlock(9, 0);
      expect(await resultOf(call, 'eth_blockNumber')).to.equal(quantity(mined));
      expect(mined).to.equal(Number(before) + 1);
    });

    it('follows the network profile and [node] chain_id', async () => {
      for (const [config, hex, decimal] of [
        [{ node: { network: 'testnet' } }, '0x530', '1328'],
        [{ node: { network: 'mainnet' } }, '0x531', '1329'],
        [{ node: { chain_id: 31337 } }, '0x7a69', '31337'],
      ] as const) {
        const own = await startTestNode({ config });
        try {
          expect((await rpc(own.url, 'eth_chainId')).result).to.equal(hex);
          expect((await rpc(own.url, 'net_version')).result).to.equal(decimal);
        } finally {
          await own.stop();
        }
      }
    });

    it('is what ethers reads over HTTP and WebSocket', async () => {
      const provider = new JsonRpcProvider(node.url, undefined, { staticNetwork: false });
      expect((await provider.getNetwork()).chainId).to.equal(713714n);
      provider.destroy();
      const wsProvider = new WebSocketProvider(node.wsUrl);
      expect((await wsProvider.getNetwork()).chainId).to.equal(713714n);
      await wsProvider.destroy();
    });

    it('is what viem reads over HTTP and WebSocket', async () => {
      expect(await createPublicClient({ transport: http(node.url) }).getChainId()).to.equal(713714);
      const client = createPublicClient({ transport: webSocket(node.wsUrl) });
      expect(await client.getChainId()).to.equal(713714);
      (await client.transport.getRpcClient()).close();
    });
  });

  describe('fee suggestions (decisions.md D4)', () => {
    /** The suggestions a block at the head leads to, read over HTTP. */
    const suggestions = async () => ({
      gasPrice: await resultOf(call, 'eth_gasPrice'),
      tip: await resultOf(call, 'eth_maxPriorityFeePerGas'),
    });
    const uncongested = (head: any) => ({
      gasPrice: quantity((baseFeeAfter(head) * 110n) / 100n),
      tip: quantity(GWEI),
    });

    it('suggests the next base fee x 110/100 and a 1 gwei tip while the latest block used at most 80% of its gas', async () => {
      expect(await suggestions()).to.deep.equal(uncongested(await blockAt('latest')));
      // Exactly 80% (10,000,000 of 12,500,000) is not congested.
      const full = await burnBlock(8, 0, [{ gas: (BLOCK_GAS_LIMIT * 80n) / 100n, tip: 4n }]);
      const head = await blockAt('latest');
      expect(Number(head.number)).to.equal(full);
      expect(BigInt(head.baseFeePerGas) < baseFeeAfter(head)).to.equal(true);
      expect(await suggestions()).to.deep.equal(uncongested(head));
    });

    it("suggests the latest block's gas-weighted median tip (plus the next base fee) while it used more than 80%", async () => {
      // 10,500,001 gas; by gas, half is reached within the 6,000,001 paying 2 gwei (an unweighted
      // median of the three tips would be 3 gwei).
      const congested = await burnBlock(7, 0, [
        { gas: 6_000_001n, tip: 2n },
        { gas: 2_000_000n, tip: 3n },
        { gas: 2_500_000n, tip: 5n },
      ]);
      const head = await blockAt('latest');
      expect(Number(head.number)).to.equal(congested);
      expect(await suggestions()).to.deep.equal({
        gasPrice: quantity(2n * GWEI + baseFeeAfter(head)),
        tip: quantity(2n * GWEI),
      });
      const ws = await WsClient.connect(node.wsUrl);
      expect(await resultOf(overWs(ws), 'eth_gasPrice')).to.equal(quantity(2n * GWEI + baseFeeAfter(head)));
      expect(await resultOf(overWs(ws), 'eth_maxPriorityFeePerGas')).to.equal(quantity(2n * GWEI));
      ws.close();

      await transferBlock(7, 3);
      expect(await suggestions()).to.deep.equal(uncongested(await blockAt('latest')));
    });
  });

  describe('eth_feeHistory', () => {
    /** A block with one 21,000-gas transfer at a 1 gwei tip. */
    let transfer: any;
    /** The next block: a 21,000-gas transfer at 1 gwei and a 100,000-gas creation at 3 gwei. */
    let mixed: any;

    before(async () => {
      const sender = devWallet(6);
      transfer = await blockAt(await transferBlock(6, 0));
      const raws = [
        await sign(sender, { nonce: 1, to: RECIPIENT, value: 1n, maxFeePerGas: 20n * GWEI }),
        await sign(sender, {
          nonce: 2,
          to: null,
          data: INFINITE_LOOP,
          gasLimit: 100_000n,
          maxFeePerGas: 20n * GWEI,
          maxPriorityFeePerGas: 3n * GWEI,
        }),
      ];
      const receipts = await Promise.all(
        (await submitTogether(node.url, raws)).map((hash) => waitForReceipt(node.url, hash)),
      );
      mixed = await blockAt(receipts[0].blockNumber);
      expect(receipts[1].blockNumber).to.equal(mixed.number);
      expect(Number(mixed.number)).to.equal(Number(transfer.number) + 1);
      expect(mixed.gasUsed).to.equal(quantity(121_000));
    });

    const feeHistory = (params: unknown[]) => resultOf(call, 'eth_feeHistory', params);

    it('gives base fees (one more than blocks), gas used ratios to 4 decimals and gas-weighted tips, for a count in hex or decimal', async () => {
      const expected = {
        oldestBlock: transfer.number,
        baseFeePerGas: [transfer.baseFeePerGas, mixed.baseFeePerGas, quantity(baseFeeAfter(mixed))],
        // 21,000 and 121,000 of 12,500,000 gas.
        gasUsedRatio: [0.0017, 0.0097],
        // By gas, 25% of the mixed block (30,250) is past the 21,000 of the transfer at 1 gwei.
        reward: [
          [GWEI, GWEI, GWEI, GWEI, GWEI].map(quantity),
          [GWEI, GWEI, 3n * GWEI, 3n * GWEI, 3n * GWEI].map(quantity),
        ],
      };
      // Leading zeros are Go's ParseUint's, past a uint64's digits too.
      for (const count of ['0x2', '2', 2, `0x${'0'.repeat(40)}2`, `${'0'.repeat(40)}2`]) {
        expect(await feeHistory([count, mixed.number, [0, 10, 25, 50, 100]]), String(count)).to.deep.equal(expected);
      }
      const ws = await WsClient.connect(node.wsUrl);
      expect(await resultOf(overWs(ws), 'eth_feeHistory', ['0x2', mixed.number, [0, 10, 25, 50, 100]])).to.deep.equal(
        expected,
      );
      ws.close();
    });

    it('leaves reward out without percentiles, and gives empty blocks zero rewards', async () => {
      const genesis = await blockAt(0);
      const first = await blockAt(1);
      expect(await feeHistory(['0x1', '0x0', []])).to.deep.equal({
        oldestBlock: '0x0',
        baseFeePerGas: [genesis.baseFeePerGas, first.baseFeePerGas],
        gasUsedRatio: [0],
      });
      expect(await feeHistory(['0x1', '0x0', null])).to.deep.equal(await feeHistory(['0x1', '0x0', []]));
      expect((await feeHistory(['0x1', '0x0', [0, 50, 100]])).reward).to.deep.equal([['0x0', '0x0', '0x0']]);
    });

    it('starts at genesis when the count reaches past it, and reads earliest as genesis', async () => {
      const height = Math.min(Number(transfer.number), MAX_BLOCKS - 1);
      const blocks = await Promise.all(Array.from({ length: height + 2 }, (_, number) => blockAt(number)));
      expect(await feeHistory(['0x5', quantity(height), []])).to.deep.equal({
        oldestBlock: '0x0',
        baseFeePerGas: blocks.map((block) => block.baseFeePerGas),
        gasUsedRatio: blocks.slice(0, -1).map((block) => Math.round((Number(block.gasUsed) / 12_500_000) * 1e4) / 1e4),
      });
      expect(await feeHistory(['0x3', 'earliest', []])).to.deep.equal({
        oldestBlock: '0x0',
        baseFeePerGas: [blocks[0].baseFeePerGas, blocks[1].baseFeePerGas],
        gasUsedRatio: [0],
      });
    });

    it('clamps the count to max_blocks_for_log', async () => {
      while (Number((await blockAt('latest')).number) < MAX_BLOCKS) {
        const nonce = Number(await resultOf(call, 'eth_getTransactionCount', [devWallet(5).address, 'latest']));
        await transferBlock(5, nonce);
      }
      const head = await blockAt('latest');
      const newest = Number(head.number);
      expect(newest).to.be.at.least(MAX_BLOCKS);
      const blocks = await Promise.all(
        Array.from({ length: MAX_BLOCKS }, (_, offset) => blockAt(newest - MAX_BLOCKS + 1 + offset)),
      );
      const expected = {
        oldestBlock: quantity(newest - MAX_BLOCKS + 1),
        baseFeePerGas: [...blocks.map((block) => block.baseFeePerGas), quantity(baseFeeAfter(head))],
        gasUsedRatio: blocks.map((block) => Math.round((Number(block.gasUsed) / 12_500_000) * 1e4) / 1e4),
      };
      for (const newestBlock of ['latest', 'pending', 'safe', 'finalized', head.number]) {
        expect(await feeHistory(['0x400', newestBlock, []]), newestBlock).to.deep.equal(expected);
      }
    });

    it('refuses a newest block beyond the head with both heights in decimal', async () => {
      const head = Number((await blockAt('latest')).number);
      for (const beyond of [head + 1, head + 1000]) {
        expect(await errorOf(call, 'eth_feeHistory', ['0x1', quantity(beyond), []]), String(beyond)).to.deep.equal({
          code: -32000,
          message: `requested last block ${beyond} is not yet available; safe latest is ${head}`,
        });
      }
    });

    it('answers a count of 0 with no blocks', async () => {
      expect(await feeHistory(['0x0', 'latest', [50]])).to.deep.equal({
        oldestBlock: '0x0',
        baseFeePerGas: [],
        gasUsedRatio: [],
      });
    });

    it('takes at most 100 percentiles, ascending within [0, 100]', async () => {
      expect(await errorOf(call, 'eth_feeHistory', ['0x1', 'latest', Array(101).fill(50)])).to.deep.equal({
        code: -32000,
        message: 'rewardPercentiles length must be less than or equal to 100',
      });
      for (const percentiles of [[50, 10], [-1], [100.5], [0, 101]]) {
        expect(
          await errorOf(call, 'eth_feeHistory', ['0x1', 'latest', percentiles]),
          JSON.stringify(percentiles),
        ).to.deep.equal({
          code: -32000,
          message: 'invalid reward percentiles: must be ascending and between 0 and 100',
        });
      }
      const { reward } = await feeHistory(['0x1', mixed.number, Array(100).fill(50)]);
      expect(reward).to.deep.equal([Array(100).fill(quantity(3n * GWEI))]);
      expect((await feeHistory(['0x1', mixed.number, [50, 50, 100]])).reward).to.deep.equal([
        [3n * GWEI, 3n * GWEI, 3n * GWEI].map(quantity),
      ]);
    });
  });

  describe('unavailable methods (interface.md §4.9, decisions.md D3)', () => {
    it('answers the registered but unsupported ones with -32000', async () => {
      for (const [method, params] of [
        ['eth_syncing', []],
        ['eth_newPendingTransactionFilter', []],
        ['eth_newPendingTransactionFilter', [true]],
        ['debug_getRawHeader', ['latest']],
        ['debug_getRawBlock', ['0x0']],
        ['debug_getRawReceipts', [{ blockNumber: '0x0' }]],
        ['debug_getRawTransaction', [`0x${'22'.repeat(32)}`]],
      ] as const) {
        expect(await errorOf(call, method, [...params]), method).to.deep.equal({
          code: -32000,
          message: `${method} is not supported on this node`,
        });
      }
      expect(await errorOf(call, 'eth_blobBaseFee')).to.deep.equal({
        code: -32000,
        message: 'blobs not supported on this chain',
      });
    });

    it('answers the same over WebSocket, where debug_ methods are HTTP-only (decisions.md D2)', async () => {
      const ws = overWs(await WsClient.connect(node.wsUrl));
      expect(await errorOf(ws, 'eth_syncing')).to.deep.equal({
        code: -32000,
        message: 'eth_syncing is not supported on this node',
      });
      expect(await errorOf(ws, 'eth_blobBaseFee')).to.deep.equal({
        code: -32000,
        message: 'blobs not supported on this chain',
      });
      expect(await errorOf(ws, 'debug_getRawHeader', ['latest'])).to.deep.equal({
        code: -32601,
        message: 'the debug namespace is HTTP-only: call debug_getRawHeader over HTTP',
      });
    });

    it('answers the unregistered ones with -32601', async () => {
      for (const method of [
        'eth_mining',
        'eth_hashrate',
        'eth_getWork',
        'eth_submitWork',
        'eth_submitHashrate',
        'eth_protocolVersion',
        'eth_getUncleCountByBlockNumber',
        'eth_getUncleCountByBlockHash',
        'eth_getUncleByBlockNumberAndIndex',
        'eth_getUncleByBlockHashAndIndex',
        'eth_pendingTransactions',
        'net_listening',
        'net_peerCount',
        'web3_sha3',
        'txpool_contentFrom',
        'txpool_status',
        'txpool_inspect',
        'debug_storageRangeAt',
        'debug_traceBlock',
        'debug_intermediateRoots',
        'debug_setHead',
        'admin_nodeInfo',
        'admin_peers',
        'miner_start',
        'clique_getSigners',
        'engine_newPayloadV1',
        'les_serverInfo',
        'personal_listAccounts',
        'personal_sign',
      ]) {
        expect(await errorOf(call, method), method).to.deep.equal({
          code: -32601,
          message: `the method ${method} does not exist/is not available`,
        });
      }
    });
  });
});

describe('eth_feeHistory over more blocks than it reads at once', function () {
  this.timeout(60_000);
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ plugins: ['eth-query', 'eth-send'], config: { consensus: { block_time: 20 } } });
  });
  after(() => node.stop());

  it('gives every block of a 100-block span, while blocks keep committing', async () => {
    const blockAt = async (number: number): Promise<any> =>
      (await rpc(node.url, 'eth_getBlockByNumber', [quantity(number), false])).result;
    // Transfers at tips of 1, 2 and 3 gwei, each in a block of its own, among empty blocks.
    const tipped = new Map<number, bigint>();
    for (const [nonce, tip] of [1n, 2n, 3n].entries()) {
      const raw = await sign(devWallet(4), {
        nonce,
        to: RECIPIENT,
        value: 1n,
        maxFeePerGas: 20n * GWEI,
        maxPriorityFeePerGas: tip * GWEI,
      });
      tipped.set(Number((await waitForReceipt(node.url, await submit(node.url, raw))).blockNumber), tip * GWEI);
    }
    const newest = Math.max(100, ...tipped.keys()) + 1;
    while (Number((await rpc(node.url, 'eth_blockNumber')).result) <= newest)
      await new Promise((r) => setTimeout(r, 20));
    const blocks = await Promise.all(Array.from({ length: 101 }, (_, offset) => blockAt(newest - 99 + offset)));
    const span = blocks.slice(0, 100);
    expect(span.filter((block) => tipped.has(Number(block.number)))).to.have.length(3);
    expect(await resultOf(overHttp(node.url), 'eth_feeHistory', ['0x64', quantity(newest), [25, 75]])).to.deep.equal({
      oldestBlock: quantity(newest - 99),
      baseFeePerGas: blocks.map((block) => block.baseFeePerGas),
      gasUsedRatio: span.map((block) => Math.round((Number(block.gasUsed) / 12_500_000) * 1e4) / 1e4),
      reward: span.map((block) => {
        const tip = quantity(tipped.get(Number(block.number)) ?? 0n);
        return [tip, tip];
      }),
    });
  });
});
