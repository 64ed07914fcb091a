import type { Coin, NativeAccount, NativeCheckResult, NativeTxRecord } from '../chain/native/native-types.js';
import type { SubmitOptions } from './tx-submitter.js';

/**
 * The native side as the native gateway serves it: admission of native transactions (the
 * Tendermint CheckTx), their results once committed, and accounts and balances at the head.
 */
export interface NativeLayer {
  /** The native chain ID signatures cover. */
  readonly chainId: string;
  /**
   * Checks a transaction and admits it to the pool (code 0), or says why not, nothing applied. One
   * client (`options.clientId`) may have at most its share of the checks waiting.
   */
  submit(raw: Uint8Array, options?: SubmitOptions): Promise<NativeCheckResult>;
  /**
   * Runs a transaction on the head state as the SDK's simulate does (no signature, gas limit or
   * minimum fee checks), committing nothing: code 0 and its `gasUsed`, or the SDK's error.
   */
  simulate(raw: Uint8Array): Promise<NativeCheckResult>;
  /** A committed native transaction's result (`hash`: its SHA-256). */
  txByHash(hash: Uint8Array): Promise<NativeTxRecord | undefined>;
  /** Resolves with the transaction's result once a block includes it, or undefined after `timeoutMs`. */
  whenIncluded(hash: Uint8Array, timeoutMs: number): Promise<NativeTxRecord | undefined>;
  /** The auth account of a bech32 address at the head, or after `height`; throws `NativeAddressError` when it is not one. */
  account(address: string, height?: number): Promise<NativeAccount | undefined>;
  /** A balance in `denom` at the head. */
  balance(address: string, denom: string): Promise<bigint>;
  /** Every non-zero balance at the head, or after `height`. */
  allBalances(address: string, height?: number): Promise<Coin[]>;
  /** The total supply of `denom` at the head (zero for an unknown one). */
  supply(denom: string): Promise<bigint>;
}
