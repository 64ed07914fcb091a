import type { Common } from '@ethereumjs/common';
import { Capability, createTxFromRLP, type TxOptions, type TypedTransaction } from '@ethereumjs/tx';
import { bytesToHex, type PrefixedHexString } from '@ethereumjs/util';
import { effectiveTip, feeCap, tipCap, type PooledTransaction } from './pooled-transaction.js';
import { claimedChainId, fastTxOptions, feeFieldsOf } from './raw-transaction.js';
import { Rejections } from './rejections.js';
import { ChainParams } from '../chain-params.js';

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

export interface PoolLimits {
  /** Most transactions held. */
  readonly size: number;
  /** Lowest gas price of legacy (type 0 and 1) transactions. */
  readonly minGasPrice: bigint;
}

const BLOB_TX_TYPE = 3;

/**
 * Admits signed EVM transactions after the checks of decisions.md D4, holds them by sender and
 * nonce (gaps wait until filled), and hands the block producer the ready ones by effective tip.
 */
export class TxPool {
  readonly #bySender = new Map<PrefixedHexString, Map<bigint, PooledTransaction>>();
  readonly #byHash = new Map<PrefixedHexString, PooledTransaction>();
  readonly #decodeOptions: TxOptions;
  #arrivals = 0;

  constructor(
    private readonly chain: PoolChainView,
    private readonly limits: PoolLimits,
  ) {
    this.#decodeOptions = fastTxOptions(chain.common);
  }

  /** A pooled transaction by hash. */
  byHash(hash: PrefixedHexString): PooledTransaction | undefined {
    return this.#byHash.get(hash);
  }

  get size(): number {
    return this.#byHash.size;
  }

  /** The nonce after the sender's ready transactions: `stateNonce` plus those without a gap. */
  pendingNonce(sender: PrefixedHexString, stateNonce: bigint): bigint {
    const queued = this.#bySender.get(sender);
    let next = stateNonce;
    while (queued?.has(next) === true) next++;
    return next;
  }

  /** Checks `raw` and admits it, or throws the rejection; a rejected transaction changes nothing. */
  async admit(raw: Uint8Array): Promise<PooledTransaction> {
    const tx = this.#decode(raw);
    const sender = this.#checkStateless(tx);
    const account = await this.chain.account(sender);
    if (tx.nonce < account.nonce) throw Rejections.nonceTooLow(account.nonce, tx.nonce);
    const cost = tx.gasLimit * feeCap(tx) + tx.value;
    if (account.balance < cost) throw Rejections.insufficientFunds(account.balance, cost);
    return this.#insert(tx, raw, sender);
  }

  /**
   * Ready transactions in inclusion order: each sender's run of consecutive nonces from its state
   * nonce, interleaved by effective tip at `baseFee` (then arrival). Those that cannot pay the base
   * fee wait.
   */
  ready(stateNonces: ReadonlyMap<PrefixedHexString, bigint>, baseFee: bigint): PooledTransaction[] {
    const heads: PooledTransaction[] = [];
    for (const [sender, nonce] of stateNonces) {
      const head = this.#bySender.get(sender)?.get(nonce);
      if (head !== undefined && feeCap(head.tx) >= baseFee) heads.push(head);
    }
    const before = (a: PooledTransaction, b: PooledTransaction): boolean => {
      const tipA = effectiveTip(a.tx, baseFee);
      const tipB = effectiveTip(b.tx, baseFee);
      return tipA !== tipB ? tipA > tipB : a.arrival < b.arrival;
    };
    const ordered: PooledTransaction[] = [];
    // Few senders have ready heads at once; a sorted insert keeps the code plain.
    heads.sort((a, b) => (before(a, b) ? -1 : 1));
    while (heads.length > 0) {
      const next = heads.shift()!;
      ordered.push(next);
      const following = this.#bySender.get(next.sender)?.get(next.nonce + 1n);
      if (following === undefined || feeCap(following.tx) < baseFee) continue;
      const at = heads.findIndex((candidate) => before(following, candidate));
      heads.splice(at === -1 ? heads.length : at, 0, following);
    }
    return ordered;
  }

  /** Senders with pooled transactions. */
  senders(): IterableIterator<PrefixedHexString> {
    return this.#bySender.keys();
  }

  /** Drops `sender`'s transactions below its new state nonce (included, or made stale). */
  pruneBelow(sender: PrefixedHexString, stateNonce: bigint): PooledTransaction[] {
    const queued = this.#bySender.get(sender);
    if (queued === undefined) return [];
    const dropped: PooledTransaction[] = [];
    for (const [nonce, pooled] of queued) {
      if (nonce >= stateNonce) continue;
      queued.delete(nonce);
      this.#byHash.delete(pooled.hash);
      dropped.push(pooled);
    }
    if (queued.size === 0) this.#bySender.delete(sender);
    return dropped;
  }

  /** Removes one transaction (it failed its checks when executed). */
  remove(pooled: PooledTransaction): void {
    const queued = this.#bySender.get(pooled.sender);
    if (queued?.get(pooled.nonce) === pooled) {
      queued.delete(pooled.nonce);
      if (queued.size === 0) this.#bySender.delete(pooled.sender);
    }
    this.#byHash.delete(pooled.hash);
  }

  #decode(raw: Uint8Array): TypedTransaction {
    if (raw.length > ChainParams.maxTxBytes) throw Rejections.oversized(raw.length, ChainParams.maxTxBytes);
    if (raw.length === 0) throw Rejections.undecodable('empty transaction');
    if (raw[0] === BLOB_TX_TYPE) throw Rejections.typeNotSupported();
    const claimed = claimedChainId(raw);
    if (claimed !== undefined && claimed !== this.chain.chainId)
      throw Rejections.invalidChainId(claimed, this.chain.chainId);
    try {
      return createTxFromRLP(raw, this.#decodeOptions);
    } catch (error) {
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

  /** The synchronous last step, so that concurrent admissions see each other. */
  #insert(tx: TypedTransaction, raw: Uint8Array, sender: PrefixedHexString): PooledTransaction {
    const hash = bytesToHex(tx.hash());
    if (this.#byHash.has(hash)) throw Rejections.alreadyKnown();
    const queued = this.#bySender.get(sender);
    const existing = queued?.get(tx.nonce);
    if (existing !== undefined) {
      // A replacement must raise both fee fields by at least 10%.
      const enough = (next: bigint, previous: bigint) => next * 100n >= previous * 110n;
      if (!enough(feeCap(tx), feeCap(existing.tx)) || !enough(tipCap(tx), tipCap(existing.tx))) {
        throw Rejections.replacementUnderpriced();
      }
      this.#byHash.delete(existing.hash);
    } else if (this.#byHash.size >= this.limits.size) {
      throw Rejections.mempoolFull(this.#byHash.size);
    }
    const pooled: PooledTransaction = { tx, raw, hash, sender, nonce: tx.nonce, arrival: ++this.#arrivals };
    if (queued === undefined) this.#bySender.set(sender, new Map([[tx.nonce, pooled]]));
    else queued.set(tx.nonce, pooled);
    this.#byHash.set(hash, pooled);
    return pooled;
  }
}
