import { createTxFromRLP, type TxOptions } from '@ethereumjs/tx';
import type { PrefixedHexString } from '@ethereumjs/util';
import { LRUCache } from 'lru-cache';
import { formatBlock } from './block-json.js';
import { appendReceiptJson, formatReceipt, type ReceiptLogs, type ReceiptShift } from './receipt-json.js';
import { formatSyntheticReceipt, formatSyntheticTransaction } from './synthetic-json.js';
import { formatTransaction } from './transaction-json.js';
import type { Chain } from '../chain/chain.js';
import type { TxLocation } from '../api/chain-reader.js';
import { fastTxOptions } from '../chain/pool/raw-transaction.js';
import type { BlockRecord, SyntheticTxRecord } from '../chain/records.js';
import type { BlockRef } from '../rpc/block-codecs.js';
import { EventLoopTurns, type Turns } from '../rpc/event-loop-turns.js';
import type { ReceiptEntry } from '../chain/chain-store.js';
import { GatheredLogsRoom } from '../logs/gathered-logs-room.js';
import type { HeldAnswers } from '../transport/held-answers.js';
import { RawJson } from '../rpc/raw-json.js';
import { InvalidInputError, SyntheticTxError } from '../errors/rpc-error.js';
import type { BlockView, ChainViews } from '../api/chain-views.js';
import type { PoolTransaction } from '../api/tx-pool-reader.js';

type Json = Record<string, unknown>;

/** A synthetic transaction with its block and its place in a view's list. */
interface PlacedSynthetic {
  readonly record: SyntheticTxRecord;
  readonly block: BlockRecord;
  readonly index: number;
}

function blockAnswerKey(height: number, fullTransactions: boolean, view: BlockView): string {
  return `${height}/${fullTransactions}/${view}`;
}

const OPEN_BRACKET = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE_BRACKET = Buffer.from(']');
const EMPTY_ARRAY = Buffer.from('[]');

function syntheticReceiptOf({ record, block, index }: PlacedSynthetic): Json {
  return formatSyntheticReceipt(record, block, index);
}

/** `value` as JSON text. */
function jsonOf(value: unknown): RawJson {
  return new RawJson(Buffer.from(JSON.stringify(value)));
}

/** Indexes above this are out of range whatever the block (geth decodes them as uint). */
const MAX_TRANSACTION_INDEX = 0xffff_ffffn;

/** Bytes of block answers kept as JSON text: a committed block's answer never changes (instant finality). */
const BLOCK_ANSWER_CACHE_BYTES = 16 * 1024 * 1024;

/**
 * Blocks, transactions and receipts as JSON-RPC serves them, read from the chain store: the
 * shared reading side of the `eth_` methods (and of the legacy namespaces that add synthetic
 * entries to the same shapes).
 */
export class StoredChainViews implements ChainViews {
  readonly #decodeOptions: TxOptions;
  /** By height, transaction detail and view. */
  readonly #blockAnswers = new LRUCache<string, RawJson>({
    maxSize: BLOCK_ANSWER_CACHE_BYTES,
    sizeCalculation: (answer) => answer.length,
  });

  constructor(
    private readonly chain: Chain,
    /** The room among the answers held for clients that a receipt's logs take while its JSON is made. */
    private readonly heldAnswers: Pick<HeldAnswers, 'take' | 'give' | 'limit'>,
  ) {
    this.#decodeOptions = fastTxOptions(chain.common);
  }

  /**
   * The height a block parameter names, or undefined for a block that does not exist (a future
   * number, an unknown or zero hash): those read as null, never as an error (§2.12).
   */
  async heightOf(ref: BlockRef): Promise<number | undefined> {
    return ref.kind === 'hash' ? this.chain.store.heightOf(ref.hash) : this.#heightNow(ref);
  }

  /** The height a number or tag names at the current head (undefined: not yet produced). */
  #heightNow(ref: Exclude<BlockRef, { kind: 'hash' }>): number | undefined {
    if (ref.kind === 'tag') return ref.tag === 'earliest' ? 0 : this.chain.head().height;
    return ref.number > BigInt(this.chain.head().height) ? undefined : Number(ref.number);
  }

  async block(ref: BlockRef, fullTransactions: boolean, view: BlockView = 'eth'): Promise<Json | null> {
    const record = await this.#blockRecord(ref);
    return record === undefined ? null : this.#formatBlock(record, fullTransactions, view);
  }

  /**
   * {@link block} as JSON, which the methods serve: the answers asked for most (the head, recent
   * heights, a batch over the last blocks) are kept, and build no objects when asked again. A kept
   * answer to a block by number or tag is returned at once, without a promise: a batch takes
   * synchronous answers without waiting its turn.
   */
  blockJson(
    ref: BlockRef,
    fullTransactions: boolean,
    view: BlockView = 'eth',
  ): RawJson | null | Promise<RawJson | null> {
    const height = ref.kind === 'hash' ? undefined : this.#heightNow(ref);
    const kept =
      height === undefined ? undefined : this.#blockAnswers.get(blockAnswerKey(height, fullTransactions, view));
    return kept ?? this.#buildBlockJson(ref, fullTransactions, view);
  }

  async #buildBlockJson(ref: BlockRef, fullTransactions: boolean, view: BlockView): Promise<RawJson | null> {
    const record = await this.#blockRecord(ref);
    if (record === undefined) return null;
    const key = blockAnswerKey(record.height, fullTransactions, view);
    const kept = this.#blockAnswers.get(key);
    if (kept !== undefined) return kept;
    const answer = new RawJson(Buffer.from(JSON.stringify(await this.#formatBlock(record, fullTransactions, view))));
    this.#blockAnswers.set(key, answer);
    return answer;
  }

  async #formatBlock(record: BlockRecord, fullTransactions: boolean, view: BlockView): Promise<Json> {
    const synthetic = syntheticHashes(record, view);
    if (!fullTransactions) return formatBlock(record, [...synthetic, ...record.transactions], false);
    const [syntheticTransactions, committed] = await Promise.all([
      Promise.all(synthetic.map((hash, index) => this.#syntheticTransaction(record, hash, index))),
      this.#committedTransactions(record, synthetic.length),
    ]);
    return formatBlock(record, [...syntheticTransactions, ...committed], true);
  }

  async transactionCount(ref: BlockRef, view: BlockView = 'eth'): Promise<PrefixedHexString | null> {
    const record = await this.#blockRecord(ref);
    if (record === undefined) return null;
    return `0x${(syntheticHashes(record, view).length + record.transactions.length).toString(16)}`;
  }

  /**
   * A committed transaction, else a pool one (null block fields), else null. The `ext` view also
   * finds a synthetic transaction by its hash, and a native transaction in its synthetic form.
   */
  async transactionByHash(hash: PrefixedHexString, view: BlockView = 'eth'): Promise<Json | null> {
    const location = await this.chain.store.locationOf(hash);
    if (location !== undefined) {
      const block = await this.chain.store.blockAt(location.height);
      return block === undefined
        ? null
        : this.#committedTransaction(block, location.index, syntheticHashes(block, view).length);
    }
    const pooled = this.chain.pool.byHash(hash);
    if (pooled !== undefined) return this.pooledTransaction(pooled);
    const bytes = hexBytes(hash);
    if (view !== 'eth') {
      const synthetic = await this.#placedSynthetic(hash, view);
      if (synthetic !== undefined)
        return formatSyntheticTransaction(synthetic.record, synthetic.block, synthetic.index);
      const native = await this.chain.store.nativeTransaction(bytes);
      if (native !== undefined) return this.#nativeInSyntheticForm(native.synthetic, view);
    }
    if (
      (await this.chain.store.evmHashOfNative(bytes)) !== undefined ||
      (await this.chain.store.nativeTransaction(bytes)) !== undefined
    ) {
      throw new InvalidInputError(`transaction ${hash} is a native transaction, not an EVM transaction`);
    }
    return null;
  }

  pooledTransaction(pooled: PoolTransaction): Json {
    return formatTransaction(pooled.tx, { hash: pooled.hash, from: pooled.sender });
  }

  async transactionAt(ref: BlockRef, index: bigint, view: BlockView = 'eth'): Promise<Json | null> {
    const block = await this.#blockRecord(ref);
    if (block === undefined || index > MAX_TRANSACTION_INDEX) return null;
    const synthetic = syntheticHashes(block, view);
    const position = Number(index);
    if (position < synthetic.length) return this.#syntheticTransaction(block, synthetic[position]!, position);
    if (position >= synthetic.length + block.transactions.length) return null;
    return this.#committedTransaction(block, position - synthetic.length, synthetic.length);
  }

  async receipt(hash: PrefixedHexString, view: BlockView = 'eth'): Promise<Json | null> {
    const found = await this.#receiptOf(hash, view);
    if (found === undefined) return null;
    if ('synthetic' in found) return syntheticReceiptOf(found.synthetic);
    return formatReceipt(await this.chain.store.receiptRecord(found.entry), found.block, found.shift);
  }

  async receiptJson(hash: PrefixedHexString, view: BlockView = 'eth'): Promise<RawJson | null> {
    const found = await this.#receiptOf(hash, view);
    if (found === undefined) return null;
    if ('synthetic' in found) return jsonOf(syntheticReceiptOf(found.synthetic));
    const parts: Uint8Array[] = [];
    const turns = new EventLoopTurns();
    const { entry, block, shift } = found;
    const room = new GatheredLogsRoom(this.heldAnswers, receiptsTooLarge);
    try {
      await appendReceiptJson(parts, entry.receipt, this.#logsOf(entry, turns), block, shift, turns, room);
    } finally {
      room.release();
    }
    return new RawJson(parts);
  }

  async blockReceipts(ref: BlockRef, view: BlockView = 'eth'): Promise<Json[] | null> {
    const found = await this.#blockReceiptsOf(ref, view);
    if (found === undefined) return null;
    const { block, synthetic, receipts, shift } = found;
    const records = await Promise.all(receipts.map((entry) => this.chain.store.receiptRecord(entry)));
    return [
      ...synthetic.map((record, index) => formatSyntheticReceipt(record, block, index)),
      ...records.map((receipt) => formatReceipt(receipt, block, shift)),
    ];
  }

  async blockReceiptsJson(ref: BlockRef, view: BlockView = 'eth'): Promise<RawJson | null> {
    const found = await this.#blockReceiptsOf(ref, view);
    if (found === undefined) return null;
    const { block, synthetic, receipts, shift } = found;
    const turns = new EventLoopTurns();
    const parts: Uint8Array[] = [];
    synthetic.forEach((record, index) => {
      parts.push(
        Buffer.from(`${index === 0 ? '[' : ','}${JSON.stringify(formatSyntheticReceipt(record, block, index))}`),
      );
    });
    const room = new GatheredLogsRoom(this.heldAnswers, receiptsTooLarge);
    try {
      for (const [index, entry] of receipts.entries()) {
        parts.push(index + synthetic.length === 0 ? OPEN_BRACKET : COMMA);
        await appendReceiptJson(parts, entry.receipt, this.#logsOf(entry, turns), block, shift, turns, room);
      }
    } finally {
      room.release();
    }
    parts.push(synthetic.length + receipts.length === 0 ? EMPTY_ARRAY : CLOSE_BRACKET);
    return new RawJson(parts);
  }

  /** A receipt's logs, those on disk read as they are needed. */
  #logsOf({ logs }: ReceiptEntry, turns: Turns): ReceiptLogs {
    return 'records' in logs ? logs : { stored: this.chain.store.storedReceiptLogs(logs, turns) };
  }

  /** Where transaction `hash`'s receipt is, as the view shows it; a synthetic one's with its place. */
  async #receiptOf(
    hash: PrefixedHexString,
    view: BlockView,
  ): Promise<
    | { entry: ReceiptEntry; block: BlockRecord; shift: ReceiptShift | undefined }
    | { synthetic: PlacedSynthetic }
    | undefined
  > {
    // On demand, a transaction in the block being made is answered once that block is committed.
    const production = this.chain.productionOf(hash);
    if (production !== undefined) await production;
    const location = await this.chain.store.locationOf(hash);
    if (location === undefined) {
      if (view === 'eth') return undefined;
      const synthetic = await this.#placedSynthetic(hash, view);
      return synthetic === undefined ? undefined : { synthetic };
    }
    const [entry, block] = await Promise.all([
      this.chain.store.receiptEntryAt(location),
      this.chain.store.blockAt(location.height),
    ]);
    if (entry === undefined || block === undefined) return undefined;
    return { entry, block, shift: view === 'eth' ? undefined : await this.#shiftOf(block, view) };
  }

  /** A block's receipts as the view lists them: its synthetic ones first (legacy views), then its EVM ones, shifted. */
  async #blockReceiptsOf(
    ref: BlockRef,
    view: BlockView,
  ): Promise<
    | {
        block: BlockRecord;
        synthetic: SyntheticTxRecord[];
        receipts: ReceiptEntry[];
        shift: ReceiptShift | undefined;
      }
    | undefined
  > {
    const block = await this.#blockRecord(ref);
    if (block === undefined) return undefined;
    const hashes = syntheticHashes(block, view);
    const [synthetic, receipts] = await Promise.all([
      Promise.all(hashes.map((hash) => this.#syntheticRecord(block, hash))),
      this.chain.store.receiptEntriesAt(block.height, block.transactions.length),
    ]);
    const shift = view === 'eth' ? undefined : { transactions: hashes.length, logs: syntheticLogCount(synthetic) };
    return { block, synthetic, receipts: receipts.map((receipt) => receipt!), shift };
  }

  /** Where a legacy view puts a block's EVM receipts: after its synthetic transactions and their logs. */
  async #shiftOf(block: BlockRecord, view: BlockView): Promise<ReceiptShift> {
    const synthetic = syntheticHashes(block, view);
    const records = await Promise.all(synthetic.map((hash) => this.#syntheticRecord(block, hash)));
    return { transactions: synthetic.length, logs: syntheticLogCount(records) };
  }

  /**
   * A synthetic transaction with its block and its place in the view's list; one the view does not
   * list (a bank send, in `ext`) takes its place among all the block's synthetic transactions.
   */
  async #placedSynthetic(hash: PrefixedHexString, view: BlockView): Promise<PlacedSynthetic | undefined> {
    const record = await this.chain.store.syntheticTransaction(hash);
    if (record === undefined) return undefined;
    const native = await this.chain.store.nativeTransaction(hexBytes(record.nativeHash));
    const block = native === undefined ? undefined : await this.chain.store.blockAt(native.height);
    if (block === undefined) return undefined;
    const listed = syntheticHashes(block, view).indexOf(hash);
    return { record, block, index: listed >= 0 ? listed : block.synthetic.ext2.indexOf(hash) };
  }

  /**
   * A native transaction as the `ext` view shows it: the first of the synthetic transactions it
   * yielded that the view lists, else its first one (its bank send); null when it yielded none.
   */
  async #nativeInSyntheticForm(yielded: readonly PrefixedHexString[], view: BlockView): Promise<Json | null> {
    const placed = await Promise.all(yielded.map((hash) => this.#placedSynthetic(hash, view)));
    const found = placed.filter((entry) => entry !== undefined);
    const shown = found.find(({ block, record }) => syntheticHashes(block, view).includes(record.hash)) ?? found[0];
    return shown === undefined ? null : formatSyntheticTransaction(shown.record, shown.block, shown.index);
  }

  async #blockRecord(ref: BlockRef): Promise<BlockRecord | undefined> {
    const height = await this.heightOf(ref);
    if (height === undefined) return undefined;
    return height === this.chain.head().height ? this.chain.head() : this.chain.store.blockAt(height);
  }

  /** A synthetic transaction of a legacy view. */
  async #syntheticTransaction(block: BlockRecord, hash: PrefixedHexString, index: number): Promise<Json> {
    return formatSyntheticTransaction(await this.#syntheticRecord(block, hash), block, index);
  }

  /** The stored record of a synthetic transaction its block names; one the store lacks is -32501. */
  async #syntheticRecord(block: BlockRecord, hash: PrefixedHexString): Promise<SyntheticTxRecord> {
    const synthetic = await this.chain.store.syntheticTransaction(hash);
    if (synthetic === undefined) {
      throw new SyntheticTxError(`synthetic transaction ${hash} of block ${block.height} has no stored record`);
    }
    return synthetic;
  }

  /** An EVM transaction; `offset` is how many synthetic transactions the view lists before it. */
  async #committedTransaction(block: BlockRecord, index: number, offset = 0): Promise<Json> {
    const location: TxLocation = { height: block.height, index };
    const [raw, entry] = await Promise.all([
      this.chain.store.rawTransactionAt(location),
      this.chain.store.receiptEntryAt(location),
    ]);
    return this.#formatCommitted(block, index, offset, raw!, entry!.receipt.from);
  }

  /** A block's transactions, each read with one read for all: a full block holds thousands. */
  async #committedTransactions(block: BlockRecord, offset: number): Promise<Json[]> {
    const count = block.transactions.length;
    const [raws, entries] = await Promise.all([
      this.chain.store.rawTransactionsAt(block.height, 0, count),
      this.chain.store.receiptEntriesAt(block.height, count),
    ]);
    const turns = new EventLoopTurns();
    const transactions: Json[] = [];
    for (let index = 0; index < count; index++) {
      transactions.push(this.#formatCommitted(block, index, offset, raws[index]!, entries[index]!.receipt.from));
      const turn = turns.pause();
      if (turn !== undefined) await turn;
    }
    return transactions;
  }

  #formatCommitted(block: BlockRecord, index: number, offset: number, raw: Uint8Array, from: PrefixedHexString): Json {
    const tx = createTxFromRLP(raw, this.#decodeOptions);
    return formatTransaction(
      tx,
      { hash: block.transactions[index]!, from },
      {
        blockHash: block.hash,
        blockNumber: block.height,
        blockTimestamp: block.timestamp,
        index: index + offset,
        baseFee: BigInt(block.baseFeePerGas),
      },
    );
  }
}

/** What a caller is told when receipts' logs alone pass the answers the node holds. */
const receiptsTooLarge = (mib: number) => `receipts too large: their logs pass ${mib} MiB (max_held_answer_bytes)`;

function syntheticHashes(block: BlockRecord, view: BlockView): readonly PrefixedHexString[] {
  return view === 'eth' ? [] : block.synthetic[view];
}

function syntheticLogCount(records: readonly SyntheticTxRecord[]): number {
  return records.reduce((count, record) => count + record.logs.length, 0);
}

function hexBytes(hash: PrefixedHexString): Uint8Array {
  return Buffer.from(hash.slice(2), 'hex');
}
