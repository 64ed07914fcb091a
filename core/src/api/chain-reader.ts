import type { Common } from '@ethereumjs/common';
import type { PrefixedHexString } from '@ethereumjs/util';
import type { BlockRecord, CommittedBlock, ReceiptFields, ReceiptRecord } from '../chain/records.js';
import type { StorageProof } from '../chain/state/state-proofs.js';
import type { StorageRange } from '../chain/state/storage-range.js';
import type { BlockRef } from '../rpc/block-codecs.js';

/** An account as the chain reads it. */
export interface AccountState {
  readonly nonce: bigint;
  readonly balance: bigint;
}

/** Where a committed EVM transaction is: its block height and index in the block. */
export interface TxLocation {
  readonly height: number;
  readonly index: number;
}

/** Called once per committed block, in height order, after the block is durable. */
export type BlockListener = (committed: CommittedBlock) => void;

/**
 * The committed chain, read-only: the head, blocks, EVM transactions and receipts, state after any
 * height the node keeps, and the event bus of committed blocks. Blocks are final once committed.
 */
export interface ChainReader {
  readonly chainId: bigint;
  /** The EVM rules (Prague, the chain's ID, its signature recovery): what building or decoding a transaction needs. */
  readonly common: Common;
  /** The address blocks name as their miner. */
  readonly proposer: PrefixedHexString;

  /** The last committed block: `latest`, `safe`, `finalized` and `pending` all mean it. */
  head(): BlockRecord;
  /** The base fee of the next block. */
  nextBaseFee(): bigint;
  /**
   * The height a block reference names, with geth's errors: -32000 for a number above the head,
   * -32001 for an unknown hash.
   */
  resolveHeight(ref: BlockRef): Promise<number>;
  /** The committed block at `height`, or undefined above the head. */
  blockAt(height: number): Promise<BlockRecord | undefined>;
  /** The height of the block with `hash`, or undefined when there is none. */
  heightOf(hash: PrefixedHexString): Promise<number | undefined>;
  /** Where the committed EVM transaction `hash` is, or undefined when it is not committed. */
  locationOf(hash: PrefixedHexString): Promise<TxLocation | undefined>;
  /** The SHA-256 hash of the native transaction wrapping the committed EVM transaction `hash`; undefined when none does. */
  nativeTxHashOf(hash: PrefixedHexString): Promise<Uint8Array | undefined>;
  /** The hash of the EVM transaction a committed native transaction (by its SHA-256 hash) wraps; undefined when none. */
  evmTxHashOf(nativeHash: Uint8Array): Promise<PrefixedHexString | undefined>;
  /** A committed transaction's receipt with its logs, read in turns however many there are. */
  receiptAt(location: TxLocation): Promise<ReceiptRecord | undefined>;
  /** The same receipt without its logs: one read, whatever the transaction emitted. */
  receiptFieldsAt(location: TxLocation): Promise<ReceiptFields | undefined>;
  /** The signed transaction as submitted (typed-transaction envelope). */
  rawTransactionAt(location: TxLocation): Promise<Uint8Array | undefined>;
  /** Subscribes to committed blocks; returns the unsubscribe function. */
  onBlock(listener: BlockListener): () => void;

  /** The lowest height whose state is served: 0 on an archive node, higher under `[state] keep_recent`. */
  earliestStateHeight(): number;
  /** Nonce and balance after block `height`; below {@link earliestStateHeight}, the pruned error (-32000). */
  accountAt(address: PrefixedHexString, height: number): Promise<AccountState>;
  /** Nonce and balance at the head. */
  accountAtHead(address: PrefixedHexString): Promise<AccountState>;
  /** An account at the head when it was read since the head moved: lets a hot read answer without waiting. */
  knownAccountAtHead(address: PrefixedHexString): AccountState | undefined;
  /** Contract code after block `height` (empty for accounts without code). */
  codeAt(address: PrefixedHexString, height: number): Promise<Uint8Array>;
  /** A 32-byte storage slot after block `height`, left-padded (zero when unset). */
  storageAt(address: PrefixedHexString, slot: Uint8Array, height: number): Promise<Uint8Array>;
  /** Proofs of storage slots after block `height` against its state root. */
  proofAt(address: PrefixedHexString, slots: readonly Uint8Array[], height: number): Promise<StorageProof[]>;
  /**
   * Up to `limit` storage slots of `address` after block `height` whose hashed key (keccak256 of
   * the slot, the trie's order) is at least `start`, and the hashed key of the next one, if any.
   * It reads the trie nodes of that page only.
   */
  storageRangeAt(address: PrefixedHexString, height: number, start: Uint8Array, limit: number): Promise<StorageRange>;
  /** The bech32 native address associated with `evmAddress` after block `height`; undefined when none is. */
  nativeAddressOf(evmAddress: PrefixedHexString, height: number): Promise<string | undefined>;
  /** The EVM address associated with the bech32 `nativeAddress` after block `height`; undefined when none is. */
  evmAddressOf(nativeAddress: string, height: number): Promise<PrefixedHexString | undefined>;
}
