import { expect } from 'chai';
import { KECCAK256_RLP_S } from '@ethereumjs/util';
import {
  Database,
  LogMatcher,
  type BlockRecord,
  type LogIndexKey,
  type LogRecord,
  type ReceiptRecord,
} from '@evmnode/core';
import { ChainStore, storedLogJson, storedLogMatches, TrieNodeStore } from '@evmnode/core/internal';

const TOKEN_A = '0x00000000000000000000000000000000000000aa' as const;
const TOKEN_B = '0x00000000000000000000000000000000000000bb' as const;
const TRANSFER = `0x${'dd'.repeat(32)}` as const;
const APPROVAL = `0x${'8c'.repeat(32)}` as const;
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const;

function log(address: string, topics: string[], logIndex: number, height: number): LogRecord {
  return {
    address: address as `0x${string}`,
    topics: topics as `0x${string}`[],
    data: '0x',
    logIndex,
    transactionIndex: 0,
    transactionHash: hash(height),
  };
}

/** A block whose one transaction emitted `logs`. */
function block(height: number, logs: LogRecord[]) {
  const record = {
    hash: hash(1000 + height),
    height,
    transactions: [hash(height)],
    stateRoot: KECCAK256_RLP_S,
  } as unknown as BlockRecord;
  const receipt = { transactionHash: hash(height), transactionIndex: 0, logs } as unknown as ReceiptRecord;
  return {
    block: record,
    receipts: [receipt],
    rawTransactions: [Uint8Array.of(height)],
    nativeHashes: [new Uint8Array(32).fill(height)],
    nativeTransactions: [],
    syntheticTransactions: [],
  };
}

describe('log indexes', () => {
  let store: ChainStore;
  before(async () => {
    const database = await Database.inMemory();
    store = new ChainStore(database);
    const nodes = new TrieNodeStore(database.store);
    for (let height = 1; height <= 3000; height++) {
      const logs: LogRecord[] = [];
      // Token A transfers every 100th block, token B every block; A's approvals every 500th.
      if (height % 100 === 0) logs.push(log(TOKEN_A, [TRANSFER, hash(height)], logs.length, height));
      logs.push(log(TOKEN_B, [TRANSFER], logs.length, height));
      if (height % 500 === 0) logs.push(log(TOKEN_A, [APPROVAL], logs.length, height));
      await store.commit(block(height, logs), nodes);
    }
  });

  /** The positions an index lists between two heights, as `height:logIndex`. */
  const collect = async (key: LogIndexKey, from: number, to: number) => {
    const positions: string[] = [];
    for await (const block of store.logIndexBlocks(key, from, to)) {
      const listed = block.kind === 'logs' ? block.logs.map(({ position }) => position) : block.positions;
      for (const { height, logIndex } of listed) positions.push(`${height}:${logIndex}`);
    }
    return positions;
  };

  it("lists an address's logs within a range, inclusive, in chain order, touching only its entries", async () => {
    expect(await collect({ address: TOKEN_A }, 900, 1500)).to.deep.equal([
      '900:0',
      '1000:0',
      '1000:2',
      '1100:0',
      '1200:0',
      '1300:0',
      '1400:0',
      '1500:0',
      '1500:2',
    ]);
  });

  it('lists logs by topic and position', async () => {
    expect(await collect({ topic: APPROVAL, position: 0 }, 1, 3000)).to.deep.equal([
      '500:2',
      '1000:2',
      '1500:2',
      '2000:2',
      '2500:2',
      '3000:2',
    ]);
    expect(await collect({ topic: hash(700), position: 1 }, 1, 3000)).to.deep.equal(['700:0']);
    expect(await collect({ topic: hash(700), position: 0 }, 1, 3000)).to.deep.equal([]);
  });

  it('lists logs by emitter and first topic', async () => {
    expect(await collect({ address: TOKEN_A, topic0: APPROVAL }, 1, 1600)).to.deep.equal(['500:2', '1000:2', '1500:2']);
    expect(await collect({ address: TOKEN_B, topic0: APPROVAL }, 1, 3000)).to.deep.equal([]);
  });

  it('reads stored logs as their eth_ JSON, with the block hash and number', async () => {
    const [stored] = await store.storedLogs([{ height: 1500, logIndex: 2 }]);
    expect(JSON.parse(storedLogJson(stored!).toString('utf8'))).to.deep.equal({
      address: TOKEN_A,
      topics: [APPROVAL],
      data: '0x',
      blockNumber: '0x5dc',
      transactionHash: hash(1500),
      transactionIndex: '0x0',
      blockHash: hash(1000 + 1500),
      logIndex: '0x2',
      removed: false,
    });
    const matcher = (topics: (string[] | null)[], addresses?: string[]) =>
      new LogMatcher({
        topics: topics as `0x${string}`[][],
        ...(addresses ? { addresses: addresses as `0x${string}`[] } : {}),
      });
    expect(storedLogMatches(stored!, matcher([[APPROVAL]], [TOKEN_A]))).to.equal(true);
    expect(storedLogMatches(stored!, matcher([null], [TOKEN_B, TOKEN_A]))).to.equal(true);
    expect(storedLogMatches(stored!, matcher([[TRANSFER]]))).to.equal(false);
    // As in geth, a log has at least as many topics as the criteria has positions, wildcards included.
    expect(storedLogMatches(stored!, matcher([null, null]))).to.equal(false);
    const missing = await store.storedLogs([{ height: 1501, logIndex: 2 }]).catch((error: Error) => error.message);
    expect(missing).to.equal('the log index names a missing log at {"height":1501,"logIndex":2}');
  });
});
