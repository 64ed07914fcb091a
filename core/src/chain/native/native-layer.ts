import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { sha256 } from '@noble/hashes/sha2.js';
import { decodeNativeAddress } from './addresses.js';
import { bankAccountOf } from './association.js';
import { Auth } from './auth.js';
import { Bank } from './bank.js';
import { checkAnte, simulate, type NativeRules } from './native-executor.js';
import { NativeError, SdkError } from './native-error.js';
import { decodeNativeTransaction, gasUsedBy, type NativeTransaction } from './native-transaction.js';
import type { Coin, NativeAccount, NativeCheckResult, NativeTxRecord } from './native-types.js';
import type { Chain } from '../chain.js';
import { ChainParams } from '../chain-params.js';
import type { StoredNativeTx } from '../records.js';
import { stateManagerAt } from '../state/world-state.js';
import type { NativeLayer } from '../../api/native-layer.js';
import type { SubmitOptions } from '../../api/tx-submitter.js';
import { ClientQuota } from '../../rpc/client-quota.js';

/** A transaction refused: its error, nothing used. */
function refusal(hash: Uint8Array, error: NativeError): NativeCheckResult {
  return { hash, code: error.code, codespace: error.codespace, log: error.message, gasWanted: 0n, gasUsed: 0n };
}

/**
 * The transaction `raw` decodes to, when a block could hold it: at most `maxTxBytes`, and no more
 * gas than a block has, the gas it asks for (the SDK's first ante check, SetUpContextDecorator)
 * or, in a simulation, which asks for none, the gas it would use.
 */
function decodeWithinBlockLimits(raw: Uint8Array, blockGas: bigint, simulation = false): NativeTransaction {
  if (raw.length > ChainParams.maxTxBytes)
    throw NativeError.sdk(SdkError.TxTooLarge, `tx size ${raw.length} exceeds ${ChainParams.maxTxBytes} bytes`);
  const tx = decodeNativeTransaction(raw);
  const gas = simulation ? gasUsedBy(tx) : tx.gasLimit;
  if (gas > blockGas)
    throw NativeError.sdk(
      SdkError.OutOfGas,
      `tx gas ${simulation ? 'used' : 'wanted'} ${gas} exceeds block max gas limit ${blockGas}`,
    );
  return tx;
}

/**
 * Transactions that may wait for their admission check at once, and their bytes: past either, one
 * more is refused at once as from a full mempool. `broadcast_tx_async` answers before its check, so
 * a flood of them otherwise queued without bound (RSS from 150 to 635 MB). One client may have
 * `[evm] max_client_share` of the places.
 */
const MAX_WAITING_ADMISSIONS = 1_000;
const MAX_WAITING_ADMISSION_BYTES = 16 * 1024 * 1024;

/**
 * The native side as the native gateway serves it: admission of native transactions (the
 * Tendermint CheckTx), their results once committed, and accounts and balances at the head.
 */
export class ChainNativeLayer implements NativeLayer {
  readonly #rules: NativeRules;
  /** Admissions run one at a time: a signer's next sequence depends on the one admitted before. */
  #admitting: Promise<unknown> = Promise.resolve();
  #waiting = 0;
  #waitingBytes = 0;
  readonly #waitingPerClient: ClientQuota;

  constructor(
    private readonly chain: Chain,
    rules: Omit<NativeRules, 'denoms'>,
    clientShare: number,
    /** Where submissions go instead of the node's own pool (a follower's producer), when they do. */
    private readonly forward?: (raw: Uint8Array, clientId?: string) => Promise<NativeCheckResult>,
  ) {
    this.#rules = { ...rules, denoms: chain.denoms };
    this.#waitingPerClient = new ClientQuota(MAX_WAITING_ADMISSIONS, clientShare);
  }

  /** The native chain ID signatures cover. */
  get chainId(): string {
    return this.#rules.chainId;
  }

  /** Checks a transaction and admits it to the pool (code 0), or says why not, nothing applied. */
  submit(raw: Uint8Array, options: SubmitOptions = {}): Promise<NativeCheckResult> {
    const { clientId } = options;
    if (this.forward !== undefined) return this.forward(raw, clientId);
    const full =
      this.#waiting >= MAX_WAITING_ADMISSIONS || this.#waitingBytes + raw.length > MAX_WAITING_ADMISSION_BYTES
        ? `mempool is full: ${this.#waiting} transactions waiting to be checked`
        : clientId !== undefined && !this.#waitingPerClient.tryAcquire(clientId)
          ? `mempool is full: this client has ${this.#waitingPerClient.perClient} transactions waiting to be checked`
          : undefined;
    if (full !== undefined) return Promise.resolve(refusal(sha256(raw), NativeError.sdk(SdkError.MempoolIsFull, full)));
    this.#waiting++;
    this.#waitingBytes += raw.length;
    const admitted = this.#admitting
      .then(() => this.#admit(raw))
      .finally(() => {
        this.#waiting--;
        this.#waitingBytes -= raw.length;
        if (clientId !== undefined) this.#waitingPerClient.release(clientId);
      });
    this.#admitting = admitted.catch(() => undefined);
    return admitted;
  }

  async #admit(raw: Uint8Array): Promise<NativeCheckResult> {
    const hash = sha256(raw);
    try {
      const tx = decodeWithinBlockLimits(raw, BigInt(this.chain.head().gasLimit));
      const pool = this.chain.nativePool;
      if (pool.has(hash) || (await this.chain.store.nativeTransaction(hash)) !== undefined) {
        throw NativeError.sdk(SdkError.TxInMempoolCache);
      }
      if (pool.wouldOverflow(raw))
        throw NativeError.sdk(SdkError.MempoolIsFull, `mempool is full: ${pool.size} transactions`);
      const head = await this.chain.stateAt(this.chain.head().height);
      await checkAnte(head, tx, this.#rules, pool.pendingCount(tx.signer.bytes));
      pool.add(tx);
      this.chain.events.arrived();
      return { hash, code: 0, codespace: '', log: '', gasWanted: tx.gasLimit, gasUsed: gasUsedBy(tx) };
    } catch (error) {
      if (error instanceof NativeError) return refusal(hash, error);
      throw error;
    }
  }

  /**
   * Runs a transaction on the head state as the SDK's simulate does, committing nothing: its gas
   * used (code 0), or the decode, ante or message error, as CheckTx words it.
   */
  async simulate(raw: Uint8Array): Promise<NativeCheckResult> {
    const hash = sha256(raw);
    try {
      const tx = decodeWithinBlockLimits(raw, BigInt(this.chain.head().gasLimit), true);
      // A state of its own at the head's root: the shared head state is never written outside a block.
      const state = stateManagerAt(this.chain.nodes, this.chain.common, hexToBytes(this.chain.head().stateRoot));
      await state.checkpoint();
      try {
        const { code, codespace, log, gasUsed } = await simulate(state, tx, this.#rules);
        return { hash, code, codespace, log, gasWanted: tx.gasLimit, gasUsed };
      } finally {
        await state.revert();
      }
    } catch (error) {
      if (error instanceof NativeError) return refusal(hash, error);
      throw error;
    }
  }

  /** A committed native transaction's result. */
  async txByHash(hash: Uint8Array): Promise<NativeTxRecord | undefined> {
    const stored = await this.chain.store.nativeTransaction(hash);
    return stored === undefined ? undefined : nativeTxRecordOf(stored);
  }

  /** Resolves with the transaction's result once a block includes it, or undefined after `timeoutMs`. */
  async whenIncluded(hash: Uint8Array, timeoutMs: number): Promise<NativeTxRecord | undefined> {
    const hex = bytesToHex(hash);
    return new Promise((resolve, reject) => {
      const settle = (record: NativeTxRecord | undefined): void => {
        clearTimeout(timer);
        unsubscribe();
        resolve(record);
      };
      const timer = setTimeout(() => settle(undefined), timeoutMs);
      const unsubscribe = this.chain.events.onBlock(({ nativeTransactions }) => {
        const included = nativeTransactions.find((stored) => stored.hash === hex);
        if (included !== undefined) settle(nativeTxRecordOf(included));
      });
      // Subscribed first: a block committed during this read is not missed.
      this.txByHash(hash).then((record) => record !== undefined && settle(record), reject);
    });
  }

  /** The auth account of a bech32 address at the head (or after `height`); throws `NativeAddressError` when it is not one. */
  async account(address: string, height?: number): Promise<NativeAccount | undefined> {
    return new Auth(await this.#stateAfter(height)).account(decodeNativeAddress(address));
  }

  async balance(address: string, denom: string): Promise<bigint> {
    const state = await this.#headState();
    return new Bank(state, this.#rules.denoms).balance(await bankAccountOf(state, decodeNativeAddress(address)), denom);
  }

  async allBalances(address: string, height?: number): Promise<Coin[]> {
    const state = await this.#stateAfter(height);
    return new Bank(state, this.#rules.denoms).allBalances(await bankAccountOf(state, decodeNativeAddress(address)));
  }

  async supply(denom: string): Promise<bigint> {
    return new Bank(await this.#headState(), this.#rules.denoms).supply(denom);
  }

  #headState() {
    return this.chain.stateAt(this.chain.head().height);
  }

  #stateAfter(height: number | undefined) {
    return height === undefined ? this.#headState() : this.chain.stateAt(height);
  }
}

function nativeTxRecordOf(stored: StoredNativeTx): NativeTxRecord {
  return {
    hash: hexToBytes(stored.hash),
    height: stored.height,
    index: stored.index,
    code: stored.code,
    codespace: stored.codespace,
    log: stored.log,
    gasWanted: BigInt(stored.gasWanted),
    gasUsed: BigInt(stored.gasUsed),
    events: stored.events,
    tx: hexToBytes(stored.tx),
    data: hexToBytes(stored.data),
  };
}
