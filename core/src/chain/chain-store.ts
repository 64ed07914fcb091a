import { bytesToHex, concatBytes, hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import { LRUCache } from 'lru-cache';
import type { Denoms } from './native/bank.js';
import type { DenomMetadata } from './native/native-types.js';
import type {
  BlockRecord,
  CommittedBlock,
  LogRecord,
  ReceiptFields,
  ReceiptRecord,
  StoredNativeTx,
  SyntheticTxRecord,
} from './records.js';
import type { TrieNodeStore } from './state/trie-node-store.js';
import { EventLoopTurns, type Turns } from '../rpc/event-loop-turns.js';
export type { LogIndexKey, LogPosition, PositionedLog } from '../logs/log-index.js';
import {
  blockLogEntries,
  decodeIndexedBlock,
  logIndexEntryKeys,
  logIndexPrefix,
  logKey,
  positionOfLogKey,
  type IndexedBlock,
  type LogIndexKey,
  type LogPosition,
  type PositionedLog,
} from '../logs/log-index.js';
import { encodeStoredLog, storedLogRecord } from '../logs/stored-log.js';
import { ChainParams } from './chain-params.js';
import { BatchPieces } from '../storage/batch-pieces.js';
import { Bucket, bucketKey, bucketRange, uint64BE } from '../storage/buckets.js';
import type { Database } from '../storage/database.js';
import type { KvStore } from '../storage/kv-store.js';
import type { TxLocation } from '../api/chain-reader.js';

const HEAD_KEY = 'head';
/** Bytes of each of a block's pieces written before its last ({@link BatchPieces}). */
const PIECE_BYTES = 1024 * 1024;
/**
 * Stored size of the block records kept decoded in memory. A committed block never changes, and
 * block reads (by number, for receipts, fee history, filters) otherwise pay a RocksDB read and a
 * JSON parse each: most of the time of a batch of `eth_getBlockByNumber`.
 */
const BLOCK_CACHE_BYTES = 8 * 1024 * 1024;

/**
 * Transaction locations kept in memory (about 100 bytes each): receipts polled by hash and
 * traces asked again find them without a RocksDB read. A location never changes once committed.
 * Those of the blocks committed here are kept as they commit: clients ask for the newest most.
 */
const LOCATION_CACHE_ENTRIES = 20_000;

/**
 * Memory for the receipts of the last blocks committed here, which clients poll for as they
 * commit: about seven full blocks of transfers. Counted in bytes, not receipts: a receipt may carry
 * a megabyte of logs, and 4,096 such receipts filled the heap.
 */
const RECEIPT_CACHE_BYTES = 4 * 1024 * 1024;

/** About what a receipt takes in memory: 1 KB of fields (the bloom is half of it), and its logs' hex. */
function receiptBytes(receipt: ReceiptRecord): number {
  let bytes = 1024;
  for (const log of receipt.logs) bytes += 200 + log.data.length + 70 * log.topics.length;
  return bytes;
}
const DENOMS_KEY = 'denoms';

/**
 * A receipt as the Receipt bucket holds it: its logs are the block's stored logs (Log bucket)
 * from `firstLogIndex`, `logCount` of them, each stored once. Receipts stored before held their
 * logs inline (a `ReceiptRecord`), and are read as they are.
 */
type StoredReceipt = ReceiptFields & { readonly firstLogIndex: number; readonly logCount: number };

function storedReceipt({ logs, ...fields }: ReceiptRecord): StoredReceipt {
  return { ...fields, firstLogIndex: logs[0]?.logIndex ?? 0, logCount: logs.length };
}

/** A stored receipt of block `height`, its logs still on disk unless stored with it. */
function receiptEntryOf(bytes: Uint8Array, height: number): ReceiptEntry {
  const stored = json<StoredReceipt | ReceiptRecord>(bytes)!;
  if ('logs' in stored) return { receipt: stored, logs: { records: stored.logs } };
  const { firstLogIndex, logCount, ...receipt } = stored;
  return { receipt, logs: { height, first: firstLogIndex, count: logCount } };
}

/** A receipt's logs read from the Log bucket this many at a time. */
const LOGS_PER_READ = 1024;

/** Where a stored receipt's logs are in the Log bucket: `count` of block `height`'s, from `logIndex` `first`. */
export interface StoredReceiptLogs {
  readonly height: number;
  readonly first: number;
  readonly count: number;
}

/**
 * A receipt as read, its logs either in hand (a receipt of a block committed here, or one stored
 * with its logs) or still in the Log bucket.
 */
export interface ReceiptEntry {
  readonly receipt: ReceiptFields;
  readonly logs: { readonly records: readonly LogRecord[] } | StoredReceiptLogs;
}

function uint32BE(value: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, value);
  return bytes;
}

function json<T>(bytes: Uint8Array | undefined): T | undefined {
  // Read where it lies, not copied: copying a receipt of 28,000 logs (10 MB) took 30-40 ms.
  if (bytes === undefined) return undefined;
  return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8')) as T;
}

function jsonBytes(value: unknown): Uint8Array {
  return Buffer.from(JSON.stringify(value), 'utf8');
}

/** The chain's blocks, transactions, receipts, logs and their indexes, written one batch per block. */
export class ChainStore {
  readonly #store: KvStore;
  readonly #blocks = new LRUCache<number, BlockRecord>({ maxSize: BLOCK_CACHE_BYTES });
  readonly #locations = new LRUCache<PrefixedHexString, TxLocation>({ max: LOCATION_CACHE_ENTRIES });
  /** By height, one entry per block: a full block's commit adds one entry, not hundreds. */
  readonly #receipts = new LRUCache<number, readonly ReceiptRecord[]>({
    maxSize: RECEIPT_CACHE_BYTES,
    sizeCalculation: (receipts) => receipts.reduce((bytes, receipt) => bytes + receiptBytes(receipt), 0),
  });
  /**
   * The last height published: RocksDB shows a batch to reads as soon as it is written (before
   * its write resolves here), and the block producer may hold a written block back until its
   * time; reads find no block above it, nor its transactions (head, state and nonces not yet
   * moved). Blocks opened before any commit here are all published.
   */
  #published = Number.POSITIVE_INFINITY;
  /** The block being written, or written and not yet published: the next block may execute on it. */
  #unpublished: BlockRecord | undefined;
  /** The highest height with a synthetic log on disk when first asked (-1: none), read once. */
  #storedLastSynthetic: Promise<number> | undefined;
  /** The highest height with a synthetic log this process committed (-1: none). */
  #committedLastSynthetic = -1;

  constructor(private readonly database: Database) {
    this.#store = database.store;
  }

  /** The height of the last whole block, or undefined in a new database. */
  async headHeight(): Promise<number | undefined> {
    const head = await this.database.meta.get(HEAD_KEY);
    return head === undefined ? undefined : Number(head);
  }

  async blockAt(height: number): Promise<BlockRecord | undefined> {
    if (height > this.#published) return undefined;
    const cached = this.#blocks.get(height);
    if (cached !== undefined) return cached;
    const bytes = await this.#store.get(bucketKey(Bucket.Block, height));
    if (bytes === undefined) return undefined;
    const block = json<BlockRecord>(bytes)!;
    this.#blocks.set(height, block, { size: bytes.length });
    return block;
  }

  /**
   * A block's hash as the EVM's BLOCKHASH sees it: that of a block being written counts too, as
   * a follower executes the next block meanwhile.
   */
  async executionBlockHash(height: number): Promise<PrefixedHexString | undefined> {
    const unpublished = this.#unpublished;
    if (unpublished?.height === height) return unpublished.hash;
    return (await this.blockAt(height))?.hash;
  }

  async heightOf(blockHash: PrefixedHexString): Promise<number | undefined> {
    const bytes = await this.#store.get(bucketKey(Bucket.BlockHash, hexToBytes(blockHash)));
    if (bytes === undefined) return undefined;
    const height = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0));
    return height > this.#published ? undefined : height;
  }

  async locationOf(txHash: PrefixedHexString): Promise<TxLocation | undefined> {
    const cached = this.#locations.get(txHash);
    if (cached !== undefined) return cached;
    const bytes = await this.#store.get(bucketKey(Bucket.TransactionHash, hexToBytes(txHash)));
    if (bytes === undefined) return undefined;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const location = { height: Number(view.getBigUint64(0)), index: view.getUint32(8) };
    if (location.height > this.#published) return undefined;
    this.#locations.set(txHash, location);
    return location;
  }

  /**
   * A committed transaction's receipt with its logs, read in turns of the event loop: a 60M-gas
   * transaction may emit 140,000 logs, and parsing them as one 28 MB record held the thread for
   * half a second.
   */
  async receiptAt(location: TxLocation, turns: Turns = new EventLoopTurns()): Promise<ReceiptRecord | undefined> {
    const cached = this.#receipts.get(location.height)?.[location.index];
    if (cached !== undefined) return cached;
    const entry = await this.receiptEntryAt(location);
    return entry === undefined ? undefined : this.receiptRecord(entry, turns);
  }

  /** The whole receipt of an entry, its logs read and decoded in turns when they are on disk. */
  async receiptRecord({ receipt, logs }: ReceiptEntry, turns: Turns = new EventLoopTurns()): Promise<ReceiptRecord> {
    if ('records' in logs) return { ...receipt, logs: logs.records };
    const records: LogRecord[] = [];
    for await (const stored of this.storedReceiptLogs(logs, turns)) records.push(storedLogRecord(stored));
    return { ...receipt, logs: records };
  }

  /** A committed transaction's receipt, its logs not yet read when they are on disk. */
  async receiptEntryAt(location: TxLocation): Promise<ReceiptEntry | undefined> {
    const cached = this.#receipts.get(location.height)?.[location.index];
    if (cached !== undefined) return { receipt: cached, logs: { records: cached.logs } };
    const bytes = await this.#store.get(bucketKey(Bucket.Receipt, location.height, uint32BE(location.index)));
    return bytes === undefined ? undefined : receiptEntryOf(bytes, location.height);
  }

  /**
   * The receipts of block `height`'s first `count` transactions, in one read: a block of 420
   * transactions read one by one took 60 ms of the thread only to ask RocksDB for them.
   */
  async receiptEntriesAt(height: number, count: number): Promise<(ReceiptEntry | undefined)[]> {
    const cached = this.#receipts.get(height);
    if (cached !== undefined) {
      return cached.slice(0, count).map((receipt) => ({ receipt, logs: { records: receipt.logs } }));
    }
    const keys = Array.from({ length: count }, (_, index) => bucketKey(Bucket.Receipt, height, uint32BE(index)));
    const values = await this.#store.getMany(keys);
    return values.map((bytes) => (bytes === undefined ? undefined : receiptEntryOf(bytes, height)));
  }

  /**
   * A receipt's logs as the Log bucket holds them (logs/stored-log.ts), in order, read
   * {@link LOGS_PER_READ} at a time, with turns of the event loop between them.
   */
  async *storedReceiptLogs({ height, first, count }: StoredReceiptLogs, turns: Turns): AsyncIterable<Uint8Array> {
    for (let start = first; start < first + count; start += LOGS_PER_READ) {
      const positions: LogPosition[] = [];
      for (let logIndex = start; logIndex < Math.min(start + LOGS_PER_READ, first + count); logIndex++) {
        positions.push({ height, logIndex });
      }
      for (const stored of await this.storedLogs(positions)) {
        yield stored;
        const turn = turns.pause();
        if (turn !== undefined) await turn;
      }
    }
  }

  async rawTransactionAt(location: TxLocation): Promise<Uint8Array | undefined> {
    return this.#store.get(bucketKey(Bucket.Transaction, location.height, uint32BE(location.index)));
  }

  /** The raw transactions of block `height` from index `from` up to (not including) `to`, in one read. */
  async rawTransactionsAt(height: number, from: number, to: number): Promise<(Uint8Array | undefined)[]> {
    const keys = [];
    for (let index = from; index < to; index++) keys.push(bucketKey(Bucket.Transaction, height, uint32BE(index)));
    return this.#store.getMany(keys);
  }

  async evmHashOfNative(nativeHash: Uint8Array): Promise<PrefixedHexString | undefined> {
    const bytes = await this.#store.get(bucketKey(Bucket.NativeToEvm, nativeHash));
    if (bytes === undefined) return undefined;
    const txHash = bytesToHex(bytes);
    return (await this.locationOf(txHash)) === undefined ? undefined : txHash;
  }

  async nativeHashOf(txHash: PrefixedHexString): Promise<Uint8Array | undefined> {
    if ((await this.locationOf(txHash)) === undefined) return undefined;
    return this.#store.get(bucketKey(Bucket.EvmToNative, hexToBytes(txHash)));
  }

  /** A native (non-EVM) transaction's result, by its hash. */
  async nativeTransaction(hash: Uint8Array): Promise<StoredNativeTx | undefined> {
    const stored = json<StoredNativeTx>(await this.#store.get(bucketKey(Bucket.NativeTx, hash)));
    return stored === undefined || stored.height > this.#published ? undefined : stored;
  }

  async syntheticTransaction(hash: PrefixedHexString): Promise<SyntheticTxRecord | undefined> {
    return json<SyntheticTxRecord>(await this.#store.get(bucketKey(Bucket.Synthetic, hexToBytes(hash))));
  }

  /** The denominations genesis gave the chain; written once, before the genesis block. */
  async denoms(): Promise<Denoms | undefined> {
    const metadata = json<Record<string, DenomMetadata>>(
      await this.#store.get(bucketKey(Bucket.ChainSettings, Buffer.from(DENOMS_KEY))),
    );
    return metadata === undefined
      ? undefined
      : { base: ChainParams.baseDenom, metadata: new Map(Object.entries(metadata)) };
  }

  async writeDenoms(denoms: Denoms): Promise<void> {
    const batch = this.database.batch();
    batch.put(bucketKey(Bucket.ChainSettings, Buffer.from(DENOMS_KEY)), jsonBytes(Object.fromEntries(denoms.metadata)));
    await batch.write();
  }

  /** The entries of the index `key` for the blocks between two heights (inclusive), in chain order. */
  async *logIndexBlocks(key: LogIndexKey, fromHeight: number, toHeight: number): AsyncIterable<IndexedBlock> {
    const prefix = logIndexPrefix(key);
    const range = { gte: concatBytes(prefix, uint64BE(fromHeight)), lt: concatBytes(prefix, uint64BE(toHeight + 1)) };
    for await (const [indexKey, value] of this.#store.iterate(range)) {
      const height = Number(new DataView(indexKey.buffer, indexKey.byteOffset + prefix.length, 8).getBigUint64(0));
      yield decodeIndexedBlock(key, height, value);
    }
  }

  /** Stored logs (logs/stored-log.ts) at `positions`, in one read. */
  async storedLogs(positions: readonly LogPosition[]): Promise<Uint8Array[]> {
    const values = await this.#store.getMany(positions.map((position) => logKey(position)));
    return values.map((value, index) => {
      if (value === undefined) {
        throw new Error(`the log index names a missing log at ${JSON.stringify(positions[index])}`);
      }
      return value;
    });
  }

  /** Every stored log between two heights (inclusive), in chain order, with its position. */
  storedLogsBetween(fromHeight: number, toHeight: number): AsyncIterable<PositionedLog> {
    return this.#positionedLogs(Bucket.Log, fromHeight, toHeight);
  }

  /**
   * Every synthetic log (`ext` view) between two heights (inclusive), with its `ext` position:
   * one per pointer transfer, listed before the block's EVM logs (decisions.md D5).
   */
  syntheticLogsBetween(fromHeight: number, toHeight: number): AsyncIterable<PositionedLog> {
    return this.#positionedLogs(Bucket.SyntheticLog, fromHeight, toHeight);
  }

  /**
   * The highest height that has a synthetic log (-1: none yet): a range above it has none, and
   * its `ext` view is its `eth` view's (pointer transfers are rare on most chains).
   */
  async lastSyntheticLogHeight(): Promise<number> {
    this.#storedLastSynthetic ??= this.#readLastSyntheticLogHeight();
    return Math.max(await this.#storedLastSynthetic, this.#committedLastSynthetic);
  }

  async #readLastSyntheticLogHeight(): Promise<number> {
    const range = {
      gte: Uint8Array.of(Bucket.SyntheticLog),
      lt: Uint8Array.of(Bucket.SyntheticLog + 1),
      reverse: true,
      limit: 1,
    };
    for await (const [key] of this.#store.iterate(range)) return positionOfLogKey(key).height;
    return -1;
  }

  async *#positionedLogs(bucket: Bucket, fromHeight: number, toHeight: number): AsyncIterable<PositionedLog> {
    const range = { gte: bucketKey(bucket, fromHeight), lt: bucketKey(bucket, toHeight + 1) };
    for await (const [key, stored] of this.#store.iterate(range)) yield { position: positionOfLogKey(key), stored };
  }

  /**
   * Writes a block with everything it changed, trie nodes included, the head last: after a crash
   * the node restarts at the last whole block. What nothing reads before the head moves (trie
   * nodes, found by hash from a state root; logs and their index entries, transactions and
   * receipts, read by height) goes first, in pieces written as they fill ({@link BatchPieces}); the
   * last piece holds what is found by hash (the block, its transactions, native and synthetic ones)
   * and the head, and resolves once on disk (the write-ahead log synced, every piece before it
   * with it), since the caller then publishes the block ({@link publish}): a block a client has
   * seen is never lost to a power cut (docs/performance.md has the cost). Reads do not find the
   * block until then. Pieces a crash left above the head are removed at start
   * ({@link removeAboveHead}). Filling the pieces of a 60M-gas block takes tens of milliseconds:
   * other work gets turns meanwhile.
   */
  async commit(committed: CommittedBlock, nodes: TrieNodeStore, turns: Turns = new EventLoopTurns()): Promise<void> {
    const { block, receipts, rawTransactions, nativeHashes, nativeTransactions, syntheticTransactions } = committed;
    const pieces = new BatchPieces(() => this.database.batch(), PIECE_BYTES);
    const deletedNodes: Uint8Array[] = [];
    // Before any turn: a block executing meanwhile (a follower's pipeline) makes nodes of its own.
    const nodeWrites = nodes.moveInto(pieces, { del: (key) => deletedNodes.push(key) });
    const height = block.height;
    const logs = receipts.flatMap((receipt) => receipt.logs);
    for (const [key, value] of blockLogEntries(block, logs)) {
      pieces.put(key, value);
      const turn = turns.pause();
      if (turn !== undefined) await turn;
    }
    for (const [index, receipt] of receipts.entries()) {
      pieces.put(bucketKey(Bucket.Transaction, height, uint32BE(index)), rawTransactions[index]!);
      pieces.put(bucketKey(Bucket.Receipt, height, uint32BE(index)), jsonBytes(storedReceipt(receipt)));
      const turn = turns.pause();
      if (turn !== undefined) await turn;
    }
    const batch = pieces.last();
    for (const key of deletedNodes) batch.del(key);
    const blockBytes = jsonBytes(block);
    batch.put(bucketKey(Bucket.Block, height), blockBytes);
    batch.put(bucketKey(Bucket.BlockHash, hexToBytes(block.hash)), uint64BE(height));
    for (const [index, receipt] of receipts.entries()) {
      const txHash = hexToBytes(receipt.transactionHash);
      batch.put(bucketKey(Bucket.TransactionHash, txHash), bucketKey(0, height, uint32BE(index)).subarray(1));
      batch.put(bucketKey(Bucket.NativeToEvm, nativeHashes[index]!), txHash);
      batch.put(bucketKey(Bucket.EvmToNative, txHash), nativeHashes[index]!);
      const turn = turns.pause();
      if (turn !== undefined) await turn;
    }
    for (const native of nativeTransactions)
      batch.put(bucketKey(Bucket.NativeTx, hexToBytes(native.hash)), jsonBytes(native));
    for (const synthetic of syntheticTransactions) {
      batch.put(bucketKey(Bucket.Synthetic, hexToBytes(synthetic.hash)), jsonBytes(synthetic));
      for (const log of synthetic.logs) {
        const key = logKey({ height, logIndex: log.logIndex }, Bucket.SyntheticLog);
        batch.put(key, encodeStoredLog(log, block.hash, height, true));
      }
    }
    this.database.meta.put(batch, HEAD_KEY, BigInt(height));
    this.#published = height - 1;
    this.#unpublished = block;
    try {
      await pieces.written();
      await batch.write({ sync: true });
    } catch (error) {
      nodes.notWritten(nodeWrites);
      this.#unpublished = undefined;
      throw error;
    }
    if (receipts.length > 0) this.#receipts.set(height, receipts);
    if (syntheticTransactions.some((synthetic) => synthetic.logs.length > 0)) this.#committedLastSynthetic = height;
    nodes.written(nodeWrites);
    this.#blocks.set(height, block, { size: blockBytes.length });
  }

  /**
   * Removes what a block's first pieces wrote above the head when the node stopped before its
   * last ({@link commit}): its logs with their index entries, its transactions and receipts.
   * Nothing reads them there, but the block made anew at that height may differ. Pieces are
   * written in order and the write-ahead log replays a prefix of them, so an index entry above
   * the head always has its log there too. Returns how many entries it removed.
   */
  async removeAboveHead(head: number): Promise<number> {
    const batch = this.database.batch();
    const above = (bucket: Bucket) => ({ gte: bucketKey(bucket, head + 1), lt: bucketRange(bucket).lt });
    for await (const [key, stored] of this.#store.iterate(above(Bucket.Log))) {
      for (const indexKey of logIndexEntryKeys(storedLogRecord(stored), positionOfLogKey(key).height)) {
        batch.del(indexKey);
      }
      batch.del(key);
    }
    for (const bucket of [Bucket.Transaction, Bucket.Receipt]) {
      for await (const [key] of this.#store.iterate(above(bucket))) batch.del(key);
    }
    const removed = batch.length;
    if (removed > 0) await batch.write({ sync: true });
    return removed;
  }

  /** Shows a committed block to reads by height and by hash: the chain's head has moved to it. */
  publish({ block, receipts }: CommittedBlock): void {
    const { height } = block;
    this.#published = height;
    this.#unpublished = undefined;
    receipts.forEach((receipt, index) => this.#locations.set(receipt.transactionHash, { height, index }));
  }
}
