import type { Common } from '@ethereumjs/common';
import { Capability, type TxOptions, type TypedTransaction } from '@ethereumjs/tx';
import { bytesToHex, type PrefixedHexString } from '@ethereumjs/util';
import { comparePrice, effectiveTip, feeCap, tipCap, type PooledTransaction } from './pooled-transaction.js';
import { claimedChainId, decodeSignedTransaction, fastTxOptions, feeFieldsOf } from './raw-transaction.js';
import { Rejections } from './rejections.js';
import { slotsOf } from './tx-slots.js';
import { EvictionOrder } from './eviction-order.js';
import { PriorityQueue } from './priority-queue.js';
import { nativeTxHash, wrapEvmTransaction } from '../native-tx.js';
import { ChainParams } from '../chain-params.js';
import type { SenderPool } from '../../api/tx-pool-reader.js';

/** What admission reads of the chain. */
export interface PoolChainView {
  readonly common: Common;
  readonly chainId: bigint;
  /** The base fee the next block will have. */
  nextBaseFee(): bigint;
  /** The chain's block gas limit. */
  blockGasLimit(): bigint;
  /** Nonce and balance of an account at the head. */
  account(address: PrefixedHexString): Promise<{ readonly nonce: bigint; readonly balance: bigint }>;
}

/**
 * Recovers a raw transaction's sender off the node's thread: its 64-byte public key, or undefined
 * (at once or later) when admission must recover it itself.
 */
export type SenderKeyRecovery = (raw: Uint8Array) => Promise<Uint8Array | undefined> | undefined;

/** The `[mempool]` limits, named after geth's legacy pool configuration. */
export interface PoolLimits {
  /** Most slots held: a transaction takes one for each 32 KB of its encoding begun (`slotsOf`). */
  readonly size: number;
  /** Lowest gas price of legacy (type 0 and 1) transactions. */
  readonly minGasPrice: bigint;
  /** Transactions per sender kept when the pool is full: a sender below it evicts from the largest holder above it. */
  readonly accountSlots: number;
  /** Most queued (nonce-gapped) transactions per sender. */
  readonly accountQueue: number;
  /** Most queued transactions in all. */
  readonly globalQueue: number;
  /** How long, in ms, a sender's queued transactions wait without one of its transactions becoming ready. */
  readonly lifetimeMs: number;
}

const BLOB_TX_TYPE = 3;

/** The most a transaction may take from its sender's balance: gas limit times fee cap, plus value. */
const costOf = (tx: TypedTransaction): bigint => tx.gasLimit * feeCap(tx) + tx.value;

/** One sender's pooled transactions. */
class SenderTxs {
  readonly byNonce = new Map<bigint, PooledTransaction>();
  /** The most its transactions may take in all: each newcomer is checked against its balance with them (geth's). */
  spend = 0n;
  /** The end of the run of consecutive nonces from the state nonce: transactions from here on are queued. */
  gap: bigint;
  /** Its highest pooled nonce. */
  top: bigint;

  constructor(
    /** Its nonce at the head, as the pool last learned it. */
    public stateNonce: bigint,
    /** When it came or one of its transactions last became ready: its queued ones expire a lifetime later (geth's heartbeat). */
    public beat: number,
  ) {
    this.gap = stateNonce;
    this.top = stateNonce;
  }

  put(pooled: PooledTransaction): void {
    const replaced = this.byNonce.get(pooled.nonce);
    if (replaced !== undefined) this.spend -= costOf(replaced.tx);
    this.byNonce.set(pooled.nonce, pooled);
    this.spend += costOf(pooled.tx);
  }

  drop(pooled: PooledTransaction): void {
    this.byNonce.delete(pooled.nonce);
    this.spend -= costOf(pooled.tx);
  }

  /** How many of its transactions wait behind a gap. */
  get queued(): number {
    return this.byNonce.size - Number(this.gap - this.stateNonce);
  }

  /** Its highest-nonce transaction: the one eviction takes, since dropping it leaves no gap. */
  last(): PooledTransaction {
    return this.byNonce.get(this.top)!;
  }
}

function senderPoolOf(txs: SenderTxs): SenderPool {
  const byNonce = [...txs.byNonce.values()].sort((a, b) => (a.nonce < b.nonce ? -1 : 1));
  return {
    pending: byNonce.filter(({ nonce }) => nonce < txs.gap),
    queued: byNonce.filter(({ nonce }) => nonce >= txs.gap),
  };
}

/**
 * Admits signed EVM transactions after the checks of decisions.md D4, holds them by sender and
 * nonce (gaps wait until filled), and hands the block producer the ready ones by effective tip.
 * Its limits are geth's (`[mempool]`): queued transactions per sender and in all, their lifetime,
 * and, when full, eviction of the cheapest transaction for a better-paying one, so that no sender
 * can lock others out.
 */
export class TxPool {
  readonly #bySender = new Map<PrefixedHexString, SenderTxs>();
  readonly #byHash = new Map<PrefixedHexString, PooledTransaction>();
  readonly #decodeOptions: TxOptions;
  /** EIP-3860's limit on a deployment's init code. */
  readonly #initCodeLimit: bigint;
  readonly #evictionOrder = new EvictionOrder(
    (sender) => this.#bySender.get(sender)!.last(),
    () => this.#bySender.keys(),
  );
  /** Senders holding more than `accountSlots` transactions, the first a full pool evicts from. */
  readonly #aboveShare = new Set<SenderTxs>();
  #arrivals = 0;
  /** The slots the pooled transactions take. */
  #slots = 0;
  /** Queued transactions in all. */
  #queued = 0;
  /** The earliest time a queued transaction may expire. */
  #expiryDue = Infinity;

  constructor(
    private readonly chain: PoolChainView,
    private readonly limits: PoolLimits,
    /** Told of transactions evicted or expired: they will never be included. */
    private readonly onDiscard: (hash: PrefixedHexString) => void = () => undefined,
    private readonly recoverSenderKey: SenderKeyRecovery = () => undefined,
  ) {
    // Init code past EIP-3860's limit is decoded, to be refused in geth's words (`#checkStateless`).
    this.#decodeOptions = { ...fastTxOptions(chain.common), allowUnlimitedInitCodeSize: true };
    this.#initCodeLimit = this.#decodeOptions.common!.param('maxInitCodeSize');
  }

  /** A pooled transaction by hash. */
  byHash(hash: PrefixedHexString): PooledTransaction | undefined {
    return this.#byHash.get(hash);
  }

  get size(): number {
    return this.#byHash.size;
  }

  /** The slots its transactions take, of `[mempool] size`. */
  get slots(): number {
    return this.#slots;
  }

  /** The nonce after the sender's ready transactions: `stateNonce` plus those without a gap. */
  pendingNonce(sender: PrefixedHexString, stateNonce: bigint): bigint {
    const queued = this.#bySender.get(sender)?.byNonce;
    let next = stateNonce;
    while (queued?.has(next) === true) next++;
    return next;
  }

  /** How many transactions wait behind a nonce gap. */
  get queued(): number {
    return this.#queued;
  }

  /** Every sender's transactions, ready and queued, each in nonce order. */
  content(): Map<PrefixedHexString, SenderPool> {
    const content = new Map<PrefixedHexString, SenderPool>();
    for (const [sender, txs] of this.#bySender) content.set(sender, senderPoolOf(txs));
    return content;
  }

  /** One sender's transactions, ready and queued, each in nonce order. */
  contentFrom(sender: PrefixedHexString): SenderPool {
    const txs = this.#bySender.get(sender);
    return txs === undefined ? { pending: [], queued: [] } : senderPoolOf(txs);
  }

  /** Checks `raw` and admits it, or throws the rejection; a rejected transaction changes nothing. */
  async admit(raw: Uint8Array): Promise<PooledTransaction> {
    // Handed over before decoding, so that the worker recovers while this thread decodes; and only
    // while transactions wait for a block: the hand-over and the wake-up add about 0.2 ms to a
    // lone send (an on-demand round trip), and pay only under load.
    const recovering = this.#byHash.size > 0 ? this.recoverSenderKey(raw) : undefined;
    const tx = this.#decode(raw);
    if (recovering !== undefined) {
      const publicKey = await recovering;
      // Where ethereumjs keeps the key it recovers (a frozen transaction's cache stays writable).
      if (publicKey !== undefined) tx.cache.senderPubKey = publicKey;
    }
    const sender = this.#checkStateless(tx);
    const account = await this.chain.account(sender);
    if (tx.nonce < account.nonce) throw Rejections.nonceTooLow(account.nonce, tx.nonce);
    const cost = costOf(tx);
    if (account.balance < cost) throw Rejections.insufficientFunds(account.balance, cost);
    return this.#insert(tx, raw, sender, account);
  }

  /**
   * Ready transactions in inclusion order: each sender's run of consecutive nonces from its state
   * nonce, interleaved by effective tip at `baseFee` (then arrival). Those that cannot pay the base
   * fee wait.
   */
  ready(stateNonces: ReadonlyMap<PrefixedHexString, bigint>, baseFee: bigint): PooledTransaction[] {
    this.#expire(performance.now());
    // Each transaction's tip worked out once: a block's selection compares thousands of them.
    const ranked = (pooled: PooledTransaction) => ({ pooled, tip: effectiveTip(pooled.tx, baseFee) });
    type Ranked = ReturnType<typeof ranked>;
    const heads = new PriorityQueue<Ranked>((a, b) =>
      a.tip !== b.tip ? a.tip > b.tip : a.pooled.arrival < b.pooled.arrival,
    );
    for (const [sender, nonce] of stateNonces) {
      const head = this.#bySender.get(sender)?.byNonce.get(nonce);
      if (head !== undefined && feeCap(head.tx) >= baseFee) heads.push(ranked(head));
    }
    const ordered: PooledTransaction[] = [];
    for (let next = heads.pop(); next !== undefined; next = heads.pop()) {
      ordered.push(next.pooled);
      const following = this.#bySender.get(next.pooled.sender)?.byNonce.get(next.pooled.nonce + 1n);
      if (following !== undefined && feeCap(following.tx) >= baseFee) heads.push(ranked(following));
    }
    return ordered;
  }

  /** Senders with pooled transactions. */
  senders(): IterableIterator<PrefixedHexString> {
    return this.#bySender.keys();
  }

  /** Drops `sender`'s transactions below its new state nonce (included, or made stale). */
  pruneBelow(sender: PrefixedHexString, stateNonce: bigint): void {
    const txs = this.#bySender.get(sender);
    if (txs === undefined || stateNonce <= txs.stateNonce) return;
    this.#settle(txs, () => {
      for (const [nonce, pooled] of txs.byNonce) {
        if (nonce >= stateNonce) continue;
        txs.drop(pooled);
        this.#forget(pooled);
      }
      txs.stateNonce = stateNonce;
      if (txs.gap < stateNonce) txs.gap = stateNonce;
      if (txs.top < stateNonce) txs.top = stateNonce;
      this.#promote(txs, performance.now());
    });
    if (txs.byNonce.size === 0) this.#bySender.delete(sender);
  }

  /** Removes one transaction (it failed its checks when executed); the sender's later ones wait behind the gap. */
  remove(pooled: PooledTransaction): void {
    const txs = this.#bySender.get(pooled.sender);
    if (txs?.byNonce.get(pooled.nonce) !== pooled) return;
    this.#settle(txs, () => {
      txs.drop(pooled);
      this.#forget(pooled);
      if (pooled.nonce < txs.gap) txs.gap = pooled.nonce;
      // Nonces may be far apart: the new top is found among those held, not by counting down.
      if (pooled.nonce === txs.top) txs.top = [...txs.byNonce.keys()].reduce((a, b) => (a > b ? a : b), txs.stateNonce);
    });
    if (txs.byNonce.size === 0) this.#bySender.delete(pooled.sender);
  }

  #hold(pooled: PooledTransaction): void {
    this.#byHash.set(pooled.hash, pooled);
    this.#slots += slotsOf(pooled.raw);
    this.#senderChanged(pooled.sender);
  }

  #forget(pooled: PooledTransaction): void {
    this.#byHash.delete(pooled.hash);
    this.#slots -= slotsOf(pooled.raw);
    this.#senderChanged(pooled.sender);
  }

  /** Keeps what eviction looks up in step with a change to `sender`'s transactions. */
  #senderChanged(sender: PrefixedHexString): void {
    this.#evictionOrder.changed(sender);
    const txs = this.#bySender.get(sender);
    if (txs === undefined) return;
    if (txs.byNonce.size > this.limits.accountSlots) this.#aboveShare.add(txs);
    else this.#aboveShare.delete(txs);
  }

  /** Applies `change` to a sender's transactions, keeping the count of queued ones in step. */
  #settle(txs: SenderTxs, change: () => void): void {
    const before = txs.queued;
    change();
    this.#queued += txs.queued - before;
    if (before === 0 && txs.queued > 0) this.#expiryDue = Math.min(this.#expiryDue, txs.beat + this.limits.lifetimeMs);
  }

  /** Moves the gap past transactions that now follow the run without one; they are ready, which is a heartbeat. */
  #promote(txs: SenderTxs, now: number): void {
    const from = txs.gap;
    while (txs.byNonce.has(txs.gap)) txs.gap++;
    if (txs.gap !== from) txs.beat = now;
  }

  /** Drops what will not be included: `pooled`, evicted or expired. */
  #discard(pooled: PooledTransaction): void {
    this.remove(pooled);
    this.onDiscard(pooled.hash);
  }

  /**
   * Drops the queued transactions of senders none of whose transactions became ready for a
   * lifetime (geth drops an account's whole queue then). A scan happens only once one may be due.
   */
  #expire(now: number): void {
    if (now < this.#expiryDue) return;
    let due = Infinity;
    for (const txs of [...this.#bySender.values()]) {
      if (txs.queued === 0) continue;
      const expiry = txs.beat + this.limits.lifetimeMs;
      if (expiry > now) due = Math.min(due, expiry);
      else for (const pooled of [...txs.byNonce.values()]) if (pooled.nonce > txs.gap) this.#discard(pooled);
    }
    this.#expiryDue = due;
  }

  #decode(raw: Uint8Array): TypedTransaction {
    if (raw.length > ChainParams.maxTxBytes) throw Rejections.oversized(raw.length, ChainParams.maxTxBytes);
    if (raw.length === 0) throw Rejections.undecodable('empty transaction');
    if (raw[0] === BLOB_TX_TYPE) throw Rejections.typeNotSupported();
    try {
      return decodeSignedTransaction(raw, this.#decodeOptions);
    } catch (error) {
      // The library refuses a chain ID other than its Common's; geth reports it as such.
      const claimed = claimedChainId(raw);
      if (claimed !== undefined && claimed !== this.chain.chainId)
        throw Rejections.invalidChainId(claimed, this.chain.chainId);
      const message = (error as Error).message;
      if (/unknown|not supported|invalid tx type/i.test(message) && raw[0]! < 0x80) throw Rejections.typeNotSupported();
      // The library refuses these while decoding; geth decodes them and reports them in its own words.
      if (/maxFeePerGas cannot be less than maxPriorityFeePerGas/.test(message)) {
        const fees = feeFieldsOf(raw);
        if (fees !== undefined) throw Rejections.tipAboveFeeCap(fees.sender, fees.tip, fees.cap);
      }
      if (/invalid signature|y-parity|v value/i.test(message)) throw Rejections.invalidSender();
      throw Rejections.undecodable(message.split('\n')[0]!.replace(/ \(tx type=.*$/, ''));
    }
  }

  /** Checks that need no state; returns the recovered sender. */
  #checkStateless(tx: TypedTransaction): PrefixedHexString {
    if (tx.to === undefined && BigInt(tx.data.length) > this.#initCodeLimit) {
      throw Rejections.initCodeTooLarge(tx.data.length, this.#initCodeLimit);
    }
    if (tx.type === 0 && !tx.supports(Capability.EIP155ReplayProtection)) throw Rejections.unprotected();
    let sender: PrefixedHexString;
    try {
      sender = tx.getSenderAddress().toString();
    } catch {
      throw Rejections.invalidSender();
    }
    if (tx.gasLimit > this.chain.blockGasLimit()) throw Rejections.exceedsBlockGasLimit();
    const intrinsic = tx.getIntrinsicGas();
    if (tx.gasLimit < intrinsic) throw Rejections.intrinsicGasTooLow(tx.gasLimit, intrinsic);
    const floor = tx.getMinimumGasLimit();
    if (tx.gasLimit < floor) throw Rejections.floorDataGas(tx.gasLimit, floor);
    if (tipCap(tx) > feeCap(tx)) throw Rejections.tipAboveFeeCap(sender, tipCap(tx), feeCap(tx));
    if ((tx.type === 0 || tx.type === 1) && feeCap(tx) < this.limits.minGasPrice) {
      throw Rejections.underpriced(feeCap(tx), this.limits.minGasPrice);
    }
    const baseFee = this.chain.nextBaseFee();
    if (feeCap(tx) < baseFee) throw Rejections.feeCapTooLow(sender, feeCap(tx), baseFee);
    return sender;
  }

  /**
   * The synchronous last step, so that concurrent admissions see each other: a replacement, or a
   * new transaction within the queue limits, for which a full pool makes room.
   */
  #insert(
    tx: TypedTransaction,
    raw: Uint8Array,
    sender: PrefixedHexString,
    { nonce: stateNonce, balance }: { readonly nonce: bigint; readonly balance: bigint },
  ): PooledTransaction {
    const now = performance.now();
    this.#expire(now);
    const hash = bytesToHex(tx.hash());
    if (this.#byHash.has(hash)) throw Rejections.alreadyKnown();
    // The head's nonce can be past what blocks told the pool (an EIP-7702 authorization moves it).
    this.pruneBelow(sender, stateNonce);
    const txs = this.#bySender.get(sender);
    // A block may have included the sender's transactions while its account was read.
    if (txs !== undefined && tx.nonce < txs.stateNonce) throw Rejections.nonceTooLow(txs.stateNonce, tx.nonce);
    const existing = txs?.byNonce.get(tx.nonce);
    // With what the sender's pooled transactions may take, so that a balance that pays for one
    // does not hold the pool's room with many that blocks would find unpaid. A replacement adds
    // what it takes beyond the transaction it replaces (geth's bump).
    const spend = txs?.spend ?? 0n;
    const added = costOf(tx) - (existing === undefined ? 0n : costOf(existing.tx));
    if (balance < spend + added) throw Rejections.overdraft(balance, spend, added, existing !== undefined);
    const pooled: PooledTransaction = {
      tx,
      raw,
      hash,
      sender,
      nonce: tx.nonce,
      arrival: ++this.#arrivals,
      nativeHash: nativeTxHash(wrapEvmTransaction(raw)),
    };
    if (existing !== undefined) {
      // A replacement must raise both fee fields by at least 10%.
      const enough = (next: bigint, previous: bigint) => next * 100n >= previous * 110n;
      if (!enough(feeCap(tx), feeCap(existing.tx)) || !enough(tipCap(tx), tipCap(existing.tx))) {
        throw Rejections.replacementUnderpriced();
      }
      this.#makeRoomInPool(tx, txs, tx.nonce >= txs!.gap, slotsOf(raw) - slotsOf(existing.raw));
      this.#forget(existing);
      txs!.put(pooled);
      this.#hold(pooled);
      return pooled;
    }
    const queued = tx.nonce > (txs?.gap ?? stateNonce);
    if (queued) this.#makeRoomInQueue(txs);
    this.#makeRoomInPool(tx, txs, queued, slotsOf(raw));
    const owner = this.#bySender.get(sender) ?? new SenderTxs(stateNonce, now);
    this.#bySender.set(sender, owner);
    this.#settle(owner, () => {
      owner.put(pooled);
      if (tx.nonce > owner.top) owner.top = tx.nonce;
      this.#promote(owner, now);
    });
    this.#hold(pooled);
    return pooled;
  }

  /**
   * A sender holds at most `accountQueue` queued transactions. When all queues are full, the
   * largest holder gives its last one to a sender holding fewer.
   */
  #makeRoomInQueue(own: SenderTxs | undefined): void {
    const held = own?.queued ?? 0;
    if (held >= this.limits.accountQueue) throw Rejections.accountLimitExceeded(held);
    if (this.#queued < this.limits.globalQueue) return;
    let largest: SenderTxs | undefined;
    for (const txs of this.#bySender.values()) {
      if (txs !== own && txs.queued > (largest?.queued ?? 0)) largest = txs;
    }
    if (largest === undefined || largest.queued <= held + 1) throw Rejections.poolFull();
    this.#discard(largest.last());
  }

  /**
   * Makes room for `needed` more slots by evicting other senders' last transactions, each chosen as
   * follows: from the largest holder when the newcomer's sender holds fewer than `accountSlots` and
   * that holder more, else the cheapest at the next base fee, if the newcomer pays more. A queued
   * newcomer never evicts a ready one. The evictions are all chosen before any is made, so that a
   * refused newcomer changes nothing.
   */
  #makeRoomInPool(tx: TypedTransaction, own: SenderTxs | undefined, queued: boolean, needed: number): void {
    if (this.limits.size - this.#slots >= needed) return;
    const evictions = new EvictionPlan();
    const shareLeft = (own?.byNonce.size ?? 0) < this.limits.accountSlots;
    const baseFee = this.chain.nextBaseFee();
    while (this.limits.size - this.#slots + evictions.slots < needed) {
      let victim: SenderTxs | undefined;
      if (shareLeft) {
        for (const txs of this.#aboveShare) {
          const held = evictions.left(txs);
          if (txs !== own && held > Math.max(this.limits.accountSlots, victim ? evictions.left(victim) : 0))
            victim = txs;
        }
      }
      if (victim === undefined) {
        const cheapest = this.#cheapestToEvict(own, evictions, baseFee);
        if (cheapest === undefined) throw Rejections.poolFull();
        if (comparePrice(tx, cheapest.pooled.tx, baseFee) <= 0) throw Rejections.underpricedForFullPool();
        victim = cheapest.txs;
      }
      const evicted = evictions.take(victim);
      if (queued && evicted.nonce < victim.gap) throw Rejections.futureReplacesPending();
    }
    for (const evicted of evictions.transactions) this.#discard(evicted);
  }

  /** The sender, `own` aside, whose next transaction to evict pays least at `baseFee`, and that transaction. */
  #cheapestToEvict(
    own: SenderTxs | undefined,
    evictions: EvictionPlan,
    baseFee: bigint,
  ): { readonly txs: SenderTxs; readonly pooled: PooledTransaction } | undefined {
    let cheapest: { txs: SenderTxs; pooled: PooledTransaction } | undefined;
    const consider = (txs: SenderTxs | undefined) => {
      if (txs === undefined || txs === own || evictions.left(txs) === 0) return;
      const pooled = evictions.next(txs);
      if (cheapest === undefined || comparePrice(pooled.tx, cheapest.pooled.tx, baseFee) < 0)
        cheapest = { txs, pooled };
    };
    // Senders the plan took from are looked at apart: their next transaction is not their last.
    const passed = (sender: PrefixedHexString) => {
      const txs = this.#bySender.get(sender);
      return txs === own || evictions.touches(txs!);
    };
    for (const sender of this.#evictionOrder.candidates(baseFee, passed)) consider(this.#bySender.get(sender));
    for (const txs of evictions.senders()) consider(txs);
    return cheapest;
  }
}

/** The transactions a newcomer would evict, each sender's taken from its highest nonce down. */
class EvictionPlan {
  readonly transactions: PooledTransaction[] = [];
  slots = 0;
  readonly #taken = new Map<SenderTxs, number>();
  /** The nonces, highest first, of senders some of whose transactions are taken. */
  readonly #noncesDown = new Map<SenderTxs, bigint[]>();

  /** Whether some of the sender's transactions are to be evicted. */
  touches(txs: SenderTxs): boolean {
    return this.#taken.has(txs);
  }

  senders(): IterableIterator<SenderTxs> {
    return this.#taken.keys();
  }

  /** How many of the sender's transactions are not to be evicted. */
  left(txs: SenderTxs): number {
    return txs.byNonce.size - (this.#taken.get(txs) ?? 0);
  }

  /** The sender's transaction that would be evicted next. */
  next(txs: SenderTxs): PooledTransaction {
    const taken = this.#taken.get(txs) ?? 0;
    if (taken === 0) return txs.last();
    return txs.byNonce.get(this.#noncesDown.get(txs)![taken]!)!;
  }

  take(txs: SenderTxs): PooledTransaction {
    const evicted = this.next(txs);
    // Rare (a newcomer evicts at most four): a sender's nonces are sorted only once it gives one.
    const byNonceDown = (a: bigint, b: bigint) => (a > b ? -1 : 1);
    if (!this.#noncesDown.has(txs)) this.#noncesDown.set(txs, [...txs.byNonce.keys()].sort(byNonceDown));
    this.#taken.set(txs, (this.#taken.get(txs) ?? 0) + 1);
    this.transactions.push(evicted);
    this.slots += slotsOf(evicted.raw);
    return evicted;
  }
}
