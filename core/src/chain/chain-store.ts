import { bytesToHex, concatBytes, hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import type { Denoms } from './native/bank.js';
import type { DenomMetadata } from './native/native-types.js';
import type {
  BlockRecord,
  CommittedBlock,
  LogRecord,
  ReceiptRecord,
  StoredNativeTx,
  SyntheticTxRecord,
} from './records.js';
import type { TrieNodeStore } from './state/trie-node-store.js';
import { encodeStoredLog } from '../logs/stored-log.js';
import { ChainParams } from './chain-params.js';
import { Bucket, bucketKey, uint64BE } from '../storage/buckets.js';
import type { Database } from '../storage/database.js';
import type { KvStore, WriteBatch } from '../storage/kv-store.js';

const HEAD_KEY = 'head';
const DENOMS_KEY = 'denoms';

function uint32BE(value: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, value);
  return bytes;
}

const EMPTY = new Uint8Array(0);

/** height (8 bytes) || block log index (4 bytes): how log keys and index entries end. */
function logPositionBytes(position: LogPosition): Uint8Array {
  return concatBytes(uint64BE(position.height), uint32BE(position.logIndex));
}

function logKey(position: LogPosition): Uint8Array {
  return concatBytes(Uint8Array.of(Bucket.Log), logPositionBytes(position));
}

/** A log and its index entries: by address, by each topic at its position, and by address and first topic. */
function putLog(batch: WriteBatch, log: LogRecord, block: BlockRecord): void {
  const position = logPositionBytes({ height: block.height, logIndex: log.logIndex });
  const indexKeys: LogIndexKey[] = [{ address: log.address }];
  if (log.topics[0] !== undefined) indexKeys.push({ address: log.address, topic0: log.topics[0] });
  log.topics.forEach((topic, topicPosition) => indexKeys.push({ topic, position: topicPosition }));
  batch.put(concatBytes(Uint8Array.of(Bucket.Log), position), encodeStoredLog(log, block.hash, block.height));
  for (const key of indexKeys) batch.put(concatBytes(logIndexPrefix(key), position), EMPTY);
}

function json<T>(bytes: Uint8Array | undefined): T | undefined {
  return bytes === undefined ? undefined : (JSON.parse(Buffer.from(bytes).toString('utf8')) as T);
}

function jsonBytes(value: unknown): Uint8Array {
  return Buffer.from(JSON.stringify(value), 'utf8');
}

/** Where a log is: its block height and block-global log index. */
export interface LogPosition {
  readonly height: number;
  readonly logIndex: number;
}

/**
 * An index to scan: logs emitted by an address, logs with a topic at a position (0-3), or logs
 * emitted by an address with a first topic (an event of a contract).
 */
export type LogIndexKey =
  | { readonly address: PrefixedHexString }
  | { readonly topic: PrefixedHexString; readonly position: number }
  | { readonly address: PrefixedHexString; readonly topic0: PrefixedHexString };

function logIndexPrefix(key: LogIndexKey): Uint8Array {
  if ('topic0' in key) return bucketKey(Bucket.LogByAddressTopic, hexToBytes(key.address), hexToBytes(key.topic0));
  if ('address' in key) return bucketKey(Bucket.LogByAddress, hexToBytes(key.address));
  return bucketKey(Bucket.LogByTopic, hexToBytes(key.topic), Uint8Array.of(key.position));
}

/** A stored log (logs/stored-log.ts) with its position. */
export interface PositionedLog {
  readonly position: LogPosition;
  readonly stored: Uint8Array;
}

/** Where a transaction is: its block height and index in the block. */
export interface TxLocation {
  readonly height: number;
  readonly index: number;
}

/** The chain's blocks, transactions, receipts, logs and their indexes, written one batch per block. */
export class ChainStore {
  readonly #store: KvStore;

  constructor(private readonly database: Database) {
    this.#store = database.store;
  }

  /** The height of the last whole block, or undefined in a new database. */
  async headHeight(): Promise<number | undefined> {
    const head = await this.database.meta.get(HEAD_KEY);
    return head === undefined ? undefined : Number(head);
  }

  async blockAt(height: number): Promise<BlockRecord | undefined> {
    return json<BlockRecord>(await this.#store.get(bucketKey(Bucket.Block, height)));
  }

  async heightOf(blockHash: PrefixedHexString): Promise<number | undefined> {
    const bytes = await this.#store.get(bucketKey(Bucket.BlockHash, hexToBytes(blockHash)));
    return bytes === undefined ? undefined : Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0));
  }

  async locationOf(txHash: PrefixedHexString): Promise<TxLocation | undefined> {
    const bytes = await this.#store.get(bucketKey(Bucket.TransactionHash, hexToBytes(txHash)));
    if (bytes === undefined) return undefined;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return { height: Number(view.getBigUint64(0)), index: view.getUint32(8) };
  }

  async receiptAt(location: TxLocation): Promise<ReceiptRecord | undefined> {
    return json<ReceiptRecord>(
      await this.#store.get(bucketKey(Bucket.Receipt, location.height, uint32BE(location.index))),
    );
  }

  async rawTransactionAt(location: TxLocation): Promise<Uint8Array | undefined> {
    return this.#store.get(bucketKey(Bucket.Transaction, location.height, uint32BE(location.index)));
  }

  async evmHashOfNative(nativeHash: Uint8Array): Promise<PrefixedHexString | undefined> {
    const bytes = await this.#store.get(bucketKey(Bucket.NativeToEvm, nativeHash));
    return bytes === undefined ? undefined : bytesToHex(bytes);
  }

  async nativeHashOf(txHash: PrefixedHexString): Promise<Uint8Array | undefined> {
    return this.#store.get(bucketKey(Bucket.EvmToNative, hexToBytes(txHash)));
  }

  /** A native (non-EVM) transaction's result, by its hash. */
  async nativeTransaction(hash: Uint8Array): Promise<StoredNativeTx | undefined> {
    return json<StoredNativeTx>(await this.#store.get(bucketKey(Bucket.NativeTx, hash)));
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

  /**
   * Positions of the logs an index holds between two heights (inclusive), in chain order. The
   * scan reads only index entries of matching logs, whatever the range.
   */
  async *logPositions(key: LogIndexKey, fromHeight: number, toHeight: number): AsyncIterable<LogPosition> {
    const prefix = logIndexPrefix(key);
    const range = { gte: concatBytes(prefix, uint64BE(fromHeight)), lt: concatBytes(prefix, uint64BE(toHeight + 1)) };
    for await (const indexKey of this.#store.iterateKeys(range)) {
      const view = new DataView(indexKey.buffer, indexKey.byteOffset + prefix.length, 12);
      yield { height: Number(view.getBigUint64(0)), logIndex: view.getUint32(8) };
    }
  }

  /** Stored logs (logs/stored-log.ts) at `positions`, in one read. */
  async storedLogs(positions: readonly LogPosition[]): Promise<Uint8Array[]> {
    const values = await this.#store.getMany(positions.map(logKey));
    return values.map((value, index) => {
      if (value === undefined)
        throw new Error(`the log index names a missing log at ${JSON.stringify(positions[index])}`);
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

  async *#positionedLogs(bucket: Bucket, fromHeight: number, toHeight: number): AsyncIterable<PositionedLog> {
    const range = { gte: bucketKey(bucket, fromHeight), lt: bucketKey(bucket, toHeight + 1) };
    for await (const [key, stored] of this.#store.iterate(range)) {
      const view = new DataView(key.buffer, key.byteOffset + 1, 12);
      yield { position: { height: Number(view.getBigUint64(0)), logIndex: view.getUint32(8) }, stored };
    }
  }

  /**
   * Writes a block with everything it changed, trie nodes included, in one atomic batch whose
   * last entry moves the head: after a crash the node restarts at the last whole block.
   */
  async commit(committed: CommittedBlock, nodes: TrieNodeStore): Promise<void> {
    const { block, receipts, rawTransactions, nativeHashes, nativeTransactions, syntheticTransactions } = committed;
    const batch = this.database.batch();
    nodes.moveInto(batch);
    const height = block.height;
    batch.put(bucketKey(Bucket.Block, height), jsonBytes(block));
    batch.put(bucketKey(Bucket.BlockHash, hexToBytes(block.hash)), uint64BE(height));
    receipts.forEach((receipt, index) => {
      const position = uint32BE(index);
      const txHash = hexToBytes(receipt.transactionHash);
      batch.put(bucketKey(Bucket.Transaction, height, position), rawTransactions[index]!);
      batch.put(bucketKey(Bucket.Receipt, height, position), jsonBytes(receipt));
      batch.put(bucketKey(Bucket.TransactionHash, txHash), bucketKey(0, height, position).subarray(1));
      batch.put(bucketKey(Bucket.NativeToEvm, nativeHashes[index]!), txHash);
      batch.put(bucketKey(Bucket.EvmToNative, txHash), nativeHashes[index]!);
      for (const log of receipt.logs) putLog(batch, log, block);
    });
    for (const native of nativeTransactions)
      batch.put(bucketKey(Bucket.NativeTx, hexToBytes(native.hash)), jsonBytes(native));
    for (const synthetic of syntheticTransactions) {
      batch.put(bucketKey(Bucket.Synthetic, hexToBytes(synthetic.hash)), jsonBytes(synthetic));
      for (const log of synthetic.logs) {
        const position = logPositionBytes({ height, logIndex: log.logIndex });
        batch.put(
          concatBytes(Uint8Array.of(Bucket.SyntheticLog), position),
          encodeStoredLog(log, block.hash, height, true),
        );
      }
    }
    this.database.meta.put(batch, HEAD_KEY, BigInt(height));
    await batch.write();
    nodes.committed();
  }
}
