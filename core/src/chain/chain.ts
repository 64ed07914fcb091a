import type { Common } from '@ethereumjs/common';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Address, bytesToHex, hexToBytes, setLengthLeft, type PrefixedHexString } from '@ethereumjs/util';
import { sha256 } from '@noble/hashes/sha2.js';
import type { Logger } from 'pino';
import { baseFeeAfter } from './base-fee.js';
import { BlockProduction } from './block-production.js';
import { ChainEvents } from './chain-events.js';
import { ChainParams } from './chain-params.js';
import { ChainStore } from './chain-store.js';
import { dataHashOf, type ConsensusHeader } from './consensus-header.js';
import { evmCommon } from './evm/evm-common.js';
import type { Genesis } from './genesis.js';
import { decodeNativeAddress, encodeNativeAddress, NativeAddressError } from './native/addresses.js';
import { associatedEvmAddress, associatedNativeAddress } from './native/association.js';
import type { Denoms } from './native/bank.js';
import { NativePool } from './native/native-pool.js';
import { AdmissionRecoveryThread } from './pool/admission-recovery-thread.js';
import { TxPool } from './pool/tx-pool.js';
import {
  blockRecordOf,
  blockSizeOf,
  receiptsRootOf,
  type BlockRecord,
  type CommittedBlock,
  type ReceiptFields,
  type ReceiptRecord,
} from './records.js';
import { applyGenesisState, HEAD_READ_CACHES, stateManagerAt } from './state/world-state.js';
import { StatePruner } from './state/state-pruner.js';
import { storageProofs, type StorageProof } from './state/state-proofs.js';
import { accountStorageRange, type StorageRange } from './state/storage-range.js';
import { TrieNodeStore } from './state/trie-node-store.js';
import type { BlockRef } from '../rpc/block-codecs.js';
import type { CoreConfig } from '../config/core-schema.js';
import { InvalidInputError, ResourceNotFoundError } from '../errors/rpc-error.js';
import { StartupError } from '../node/startup-error.js';
import type { Database } from '../storage/database.js';
import type { AccountState, BlockListener, ChainReader, TxLocation } from '../api/chain-reader.js';
import type { TxSubmitter } from '../api/tx-submitter.js';
import { RecentSenders } from './recent-senders.js';

/** Most accounts kept from one block to the next by {@link Chain.accountAtHead}. */
const HEAD_ACCOUNTS_KEPT = 10_000;

const ZERO_HASH: PrefixedHexString = `0x${'00'.repeat(32)}`;

/** The default proposer: derived from the chain ID, so that it is stable and differs from the fee collector. */
function defaultProposer(chainId: bigint): PrefixedHexString {
  return bytesToHex(sha256(Buffer.from(`evmnode proposer ${chainId}`)).subarray(0, 20));
}

/**
 * The chain engine: the head, the stores of blocks and state, the pools and the block event bus.
 * Plugins see it through {@link ChainReader} and {@link TxSubmitter}; the {@link BlockProducer}
 * extends it block by block.
 */
export class Chain implements ChainReader, TxSubmitter {
  readonly common: Common;
  readonly events: ChainEvents;
  readonly pool: TxPool;
  /** Admitted native (non-EVM) transactions. */
  readonly nativePool: NativePool;
  /** Senders of the transactions executed lately, for replays of their blocks. */
  readonly recentSenders = new RecentSenders();
  readonly proposer: PrefixedHexString;
  /** Recovers the senders of transactions admitted under load off the node's thread. */
  readonly admissionRecovery: AdmissionRecoveryThread;
  readonly #keepRecent: number;
  readonly #pruner: StatePruner | undefined;
  #prunedAt = 0;
  #head: BlockRecord;
  /** The head's state, replaced (never moved) at each block: see {@link applyCommitted}. */
  #headState: MerkleStateManager;
  readonly #headAccounts = new Map<PrefixedHexString, AccountState>();
  readonly #waiters = new Map<PrefixedHexString, (() => void)[]>();
  /** On demand: the block being produced. */
  #production: BlockProduction | undefined;
  /** Blocks being executed (by the producer or the follower), each settling once its records are built. */
  readonly #building = new Set<Promise<void>>();

  private constructor(
    database: Database,
    readonly store: ChainStore,
    readonly nodes: TrieNodeStore,
    readonly chainId: bigint,
    /** The chain's denominations, fixed by its genesis. */
    readonly denoms: Denoms,
    head: BlockRecord,
    config: CoreConfig,
    private readonly logger: Logger,
  ) {
    this.common = evmCommon(chainId);
    this.events = new ChainEvents((error) => logger.error({ err: error }, 'a block listener failed'));
    this.proposer = (config.consensus.proposer || defaultProposer(chainId)).toLowerCase() as PrefixedHexString;
    this.#keepRecent = config.state.keep_recent;
    this.#pruner = this.#keepRecent === 0 ? undefined : new StatePruner(store, database.store, nodes, this.common);
    this.#prunedAt = head.height;
    this.#head = head;
    this.#headState = this.#stateManagerAtHead(head);
    this.admissionRecovery = new AdmissionRecoveryThread(chainId, (error) =>
      logger.warn({ err: error }, 'the admission recovery thread failed: senders are recovered on the main thread'),
    );
    this.pool = new TxPool(
      {
        common: this.common,
        chainId,
        nextBaseFee: () => this.nextBaseFee(),
        blockGasLimit: () => BigInt(this.#head.gasLimit),
        account: (address) => this.accountAtHead(address),
      },
      {
        size: config.mempool.size,
        minGasPrice: BigInt(config.mempool.min_gas_price),
        accountSlots: config.mempool.account_slots,
        accountQueue: config.mempool.account_queue,
        globalQueue: config.mempool.global_queue,
        lifetimeMs: config.mempool.lifetime,
      },
      (hash) => this.#settleWaiters(hash),
      (raw) => this.admissionRecovery.publicKeyOf(raw),
    );
    this.nativePool = new NativePool(config.mempool.size);
  }

  /**
   * Opens the chain in `database`. A new database gets the genesis block and state; `genesis` is
   * loaded only then, since a chain applies its genesis once.
   */
  static async open(database: Database, genesis: () => Genesis, config: CoreConfig, logger: Logger): Promise<Chain> {
    const chainId = BigInt(config.node.chain_id);
    const store = new ChainStore(database);
    const nodes = new TrieNodeStore(database.store);
    const headHeight = await store.headHeight();
    const head =
      headHeight === undefined
        ? await Chain.#writeGenesis(store, nodes, genesis(), chainId)
        : await store.blockAt(headHeight);
    if (head === undefined) throw new StartupError(`the database has no block at its head height ${headHeight}`);
    const removed = await store.removeAboveHead(head.height);
    if (removed > 0) logger.info({ height: head.height + 1, entries: removed }, 'removed a block written in part');
    const denoms = await store.denoms();
    if (denoms === undefined)
      throw new StartupError('the database has no denominations: it was not written by this evmnode');
    return new Chain(database, store, nodes, chainId, denoms, head, config, logger);
  }

  static async #writeGenesis(
    store: ChainStore,
    nodes: TrieNodeStore,
    genesis: Genesis,
    chainId: bigint,
  ): Promise<BlockRecord> {
    if (genesis.chainId !== chainId) {
      throw new StartupError(
        `genesis chainId ${genesis.chainId} differs from [node] chain_id ${chainId}: make them equal`,
      );
    }
    const denoms: Denoms = { base: ChainParams.baseDenom, metadata: genesis.denoms };
    await store.writeDenoms(denoms);
    const stateRoot = await applyGenesisState(stateManagerAt(nodes, evmCommon(genesis.chainId)), genesis, denoms);
    const header: ConsensusHeader = {
      chainId: genesis.chainId,
      height: 0n,
      timeMs: genesis.timeMs,
      parentHash: ZERO_HASH,
      dataHash: dataHashOf([]),
      appHash: ZERO_HASH,
      proposer: `0x${'00'.repeat(20)}`,
    };
    const block = blockRecordOf(header, {
      gasLimit: genesis.gasLimit,
      gasUsed: 0n,
      baseFeePerGas: genesis.baseFeePerGas,
      prevRandao: ZERO_HASH,
      stateRoot: bytesToHex(stateRoot),
      logsBloom: `0x${'00'.repeat(256)}`,
      receiptsRoot: receiptsRootOf([]),
      size: blockSizeOf([]),
      transactions: [],
      tips: [],
      nativeTransactions: [],
      synthetic: { ext: [], ext2: [] },
    });
    const committed = {
      block,
      receipts: [],
      rawTransactions: [],
      nativeHashes: [],
      nativeTransactions: [],
      syntheticTransactions: [],
    };
    await store.commit(committed, nodes);
    store.publish(committed);
    return block;
  }

  /** The last committed block: `latest`, `safe`, `finalized` and `pending` all mean it. */
  head(): BlockRecord {
    return this.#head;
  }

  blockAt(height: number): Promise<BlockRecord | undefined> {
    return this.store.blockAt(height);
  }

  heightOf(hash: PrefixedHexString): Promise<number | undefined> {
    return this.store.heightOf(hash);
  }

  locationOf(hash: PrefixedHexString): Promise<TxLocation | undefined> {
    return this.store.locationOf(hash);
  }

  nativeTxHashOf(hash: PrefixedHexString): Promise<Uint8Array | undefined> {
    return this.store.nativeHashOf(hash);
  }

  evmTxHashOf(nativeHash: Uint8Array): Promise<PrefixedHexString | undefined> {
    return this.store.evmHashOfNative(nativeHash);
  }

  receiptAt(location: TxLocation): Promise<ReceiptRecord | undefined> {
    return this.store.receiptAt(location);
  }

  async receiptFieldsAt(location: TxLocation): Promise<ReceiptFields | undefined> {
    return (await this.store.receiptEntryAt(location))?.receipt;
  }

  rawTransactionAt(location: TxLocation): Promise<Uint8Array | undefined> {
    return this.store.rawTransactionAt(location);
  }

  onBlock(listener: BlockListener): () => void {
    return this.events.onBlock(listener);
  }

  /** The base fee of the next block. */
  nextBaseFee(): bigint {
    return baseFeeAfter(this.#head);
  }

  /** The height a block reference names, with geth-compatible errors for future heights and unknown hashes. */
  async resolveHeight(ref: BlockRef): Promise<number> {
    const head = this.#head.height;
    switch (ref.kind) {
      case 'tag':
        return ref.tag === 'earliest' ? 0 : head;
      case 'number':
        if (ref.number > BigInt(head)) {
          throw new InvalidInputError(`requested height ${ref.number} is not yet available; safe latest is ${head}`);
        }
        return Number(ref.number);
      case 'hash': {
        const height = await this.store.heightOf(ref.hash);
        if (height === undefined) throw new ResourceNotFoundError('block not found by hash');
        return height;
      }
    }
  }

  /** The lowest height whose state is served: 0 on an archive node. */
  earliestStateHeight(): number {
    return this.#keepRecent === 0 ? 0 : Math.max(0, this.#head.height - this.#keepRecent + 1);
  }

  /** Whether {@link pruneIfDue} would prune now. */
  pruneDue(): boolean {
    return this.#pruner !== undefined && this.#head.height - this.#prunedAt >= this.#keepRecent;
  }

  /**
   * Deletes state older than `[state] keep_recent` blocks, every `keep_recent` blocks. The block
   * producer calls it between blocks, when no block is writing state.
   */
  async pruneIfDue(): Promise<void> {
    const head = this.#head.height;
    if (this.#pruner === undefined || !this.pruneDue()) return;
    const started = performance.now();
    const { kept, deleted } = await this.#pruner.prune(this.earliestStateHeight(), head);
    this.nodes.forgetCached();
    this.#prunedAt = head;
    this.logger.info({ head, kept, deleted, durationMs: Math.round(performance.now() - started) }, 'pruned old state');
  }

  /**
   * Nonce and balance at the head. Accounts read at the head are kept until the next block: the
   * most asked-for answers (balances, nonces, pool admission) then skip the state manager.
   */
  async accountAtHead(address: PrefixedHexString): Promise<AccountState> {
    for (;;) {
      const known = this.knownAccountAtHead(address);
      if (known !== undefined) return known;
      const head = this.#head;
      const account = await Chain.#readAccount(this.#headState, address);
      // Read again when a block committed meanwhile: the pool would otherwise take a nonce the
      // block has already used for the sender's state nonce, and count its next ones as queued.
      if (this.#head !== head) continue;
      if (this.#headAccounts.size < HEAD_ACCOUNTS_KEPT) this.#headAccounts.set(address, account);
      return account;
    }
  }

  /** An account at the head when it was read since the head moved; lets a hot read answer at once. */
  knownAccountAtHead(address: PrefixedHexString): AccountState | undefined {
    return this.#headAccounts.get(address);
  }

  /** The `pending` nonce: the head's nonce plus the sender's ready pool transactions. */
  async pendingNonce(address: PrefixedHexString): Promise<bigint> {
    for (;;) {
      const head = this.#head;
      const { nonce } = await this.accountAtHead(address);
      // A block committed during the read prunes the pool past the nonce read before it: read again.
      if (this.#head === head) return this.pool.pendingNonce(address, nonce);
    }
  }

  /**
   * The state after block `height`, for reading (every height unless `[state] keep_recent` limits
   * it). The head's state is shared and cached; an older one is opened on its root.
   */
  async stateAt(height: number): Promise<MerkleStateManager> {
    if (height === this.#head.height) return this.#headState;
    return stateManagerAt(this.nodes, this.common, hexToBytes((await this.stateBlockAt(height)).stateRoot));
  }

  /**
   * The block at `height`, checked to still have its state (every height unless
   * `[state] keep_recent` limits it): what the state after it is read or simulated from.
   */
  async stateBlockAt(height: number): Promise<BlockRecord> {
    if (height === this.#head.height) return this.#head;
    const earliest = this.earliestStateHeight();
    if (height < earliest) {
      throw new InvalidInputError(`requested height ${height} has been pruned; earliest available is ${earliest}`);
    }
    const block = await this.store.blockAt(height);
    if (block === undefined) throw new ResourceNotFoundError(`block ${height} not found`);
    return block;
  }

  /** Nonce and balance after block `height`. */
  async accountAt(address: PrefixedHexString, height: number): Promise<AccountState> {
    if (height === this.#head.height) return this.accountAtHead(address);
    return Chain.#readAccount(await this.stateAt(height), address);
  }

  /** Contract code after block `height` (empty for accounts without code). */
  async codeAt(address: PrefixedHexString, height: number): Promise<Uint8Array> {
    return (await this.stateAt(height)).getCode(new Address(hexToBytes(address)));
  }

  /** A 32-byte storage slot after block `height`, left-padded (zero when unset). */
  async storageAt(address: PrefixedHexString, slot: Uint8Array, height: number): Promise<Uint8Array> {
    const value = await (await this.stateAt(height)).getStorage(new Address(hexToBytes(address)), slot);
    return setLengthLeft(value, 32);
  }

  /**
   * Proofs of storage slots after block `height` against its state root. They are built on a
   * state opened at that root, never on the shared head state, whose root moves when a block commits.
   */
  async proofAt(address: PrefixedHexString, slots: readonly Uint8Array[], height: number): Promise<StorageProof[]> {
    const state =
      height === this.#head.height
        ? stateManagerAt(this.nodes, this.common, hexToBytes(this.#head.stateRoot))
        : await this.stateAt(height);
    return storageProofs(state, address, slots);
  }

  /** Up to `limit` storage slots of `address` after block `height`, from hashed key `start` on, in hashed-key order. */
  async storageRangeAt(
    address: PrefixedHexString,
    height: number,
    start: Uint8Array,
    limit: number,
  ): Promise<StorageRange> {
    const { stateRoot } = await this.stateBlockAt(height);
    return accountStorageRange(this.nodes, this.common, hexToBytes(stateRoot), address, start, limit);
  }

  /** The bech32 native address associated with `evmAddress` after block `height`; undefined when it is not associated. */
  async nativeAddressOf(evmAddress: PrefixedHexString, height: number): Promise<string | undefined> {
    const native = await associatedNativeAddress(await this.stateAt(height), hexToBytes(evmAddress));
    return native === undefined ? undefined : encodeNativeAddress(native);
  }

  /**
   * The EVM address associated with the bech32 `nativeAddress` after block `height`; undefined
   * when it is not associated, an {@link InvalidInputError} when it is not a native address.
   */
  async evmAddressOf(nativeAddress: string, height: number): Promise<PrefixedHexString | undefined> {
    let native: Uint8Array;
    try {
      native = decodeNativeAddress(nativeAddress);
    } catch (error) {
      if (error instanceof NativeAddressError) throw new InvalidInputError(error.message);
      throw error;
    }
    const evm = await associatedEvmAddress(await this.stateAt(height), native);
    return evm === undefined ? undefined : bytesToHex(evm);
  }

  static async #readAccount(state: MerkleStateManager, address: PrefixedHexString): Promise<AccountState> {
    const account = await state.getAccount(new Address(hexToBytes(address)));
    return { nonce: account?.nonce ?? 0n, balance: account?.balance ?? 0n };
  }

  /**
   * Admits a signed transaction and returns its hash; with `waitForCommit` (the `slow` mode),
   * only once the block that includes it is committed.
   */
  async submit(raw: Uint8Array, waitForCommit: boolean): Promise<PrefixedHexString> {
    const pooled = await this.pool.admit(raw);
    this.events.arrived();
    if (waitForCommit) await new Promise<void>((resolve) => this.#waitFor(pooled.hash, resolve));
    return pooled.hash;
  }

  #waitFor(hash: PrefixedHexString, resolve: () => void): void {
    const waiting = this.#waiters.get(hash);
    if (waiting === undefined) this.#waiters.set(hash, [resolve]);
    else waiting.push(resolve);
  }

  /**
   * Marks a block as being executed, until the returned function is called: background replays
   * (trace baking) wait for it between their transactions, rather than share the thread with it.
   */
  beginBuilding(): () => void {
    let done!: () => void;
    const building = new Promise<void>((resolve) => (done = resolve));
    this.#building.add(building);
    return () => {
      this.#building.delete(building);
      done();
    };
  }

  /** Resolves once no block is being executed: at once when none is. */
  async notBuilding(): Promise<void> {
    while (this.#building.size > 0) await Promise.all(this.#building);
  }

  /** Called by the on-demand producer as it starts a block, before it picks the block's transactions. */
  beginProduction(): BlockProduction {
    const production = new BlockProduction();
    this.#production = production;
    void production.ended.then(() => {
      if (this.#production === production) this.#production = undefined;
    });
    return production;
  }

  /**
   * While a block is being produced on demand: resolves once it is committed and published (or
   * abandoned) if it holds EVM transaction `hash`, at once otherwise. Undefined when no block is
   * being produced, so that a receipt read pays nothing for this on a node with a block time.
   */
  productionOf(hash: PrefixedHexString): Promise<void> | undefined {
    const production = this.#production;
    if (production === undefined) return undefined;
    return production.holds(hash).then((holds) => (holds ? production.ended : undefined));
  }

  #stateManagerAtHead(head: BlockRecord): MerkleStateManager {
    return stateManagerAt(this.nodes, this.common, hexToBytes(head.stateRoot), HEAD_READ_CACHES);
  }

  /** Called by the producer once a block is durable: moves the head, settles the pools, publishes the block. */
  applyCommitted(
    committed: CommittedBlock,
    senders: ReadonlyMap<PrefixedHexString, bigint>,
    dropped: readonly PrefixedHexString[],
    droppedNative: readonly PrefixedHexString[],
  ): void {
    // A new state object rather than the old one moved to the new root: a read in flight on the
    // old one would otherwise finish on the old root and cache what it read as the new head's.
    // Head, state and account cache change together, with no await between them.
    this.store.publish(committed);
    this.#headState = this.#stateManagerAtHead(committed.block);
    this.#headAccounts.clear();
    this.#head = committed.block;
    for (const [sender, nonce] of senders) this.pool.pruneBelow(sender, nonce);
    this.nativePool.remove([...committed.block.nativeTransactions, ...droppedNative]);
    for (const hash of [...committed.block.transactions, ...dropped]) this.#settleWaiters(hash);
    this.events.publish(committed);
  }

  /** Answers the `slow` submissions of a transaction that was included or will never be. */
  #settleWaiters(hash: PrefixedHexString): void {
    for (const resolve of this.#waiters.get(hash) ?? []) resolve();
    this.#waiters.delete(hash);
  }
}
