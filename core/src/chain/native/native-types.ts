import type { PrefixedHexString } from '@ethereumjs/util';

/** An amount of one denomination, in its base units. */
export interface Coin {
  readonly denom: string;
  readonly amount: bigint;
}

/** An ABCI event: what a native transaction did, as Cosmos tooling reads it. */
export interface NativeEvent {
  readonly type: string;
  readonly attributes: readonly { readonly key: string; readonly value: string }[];
}

/** The answer of an admission check (CheckTx): code 0 means admitted to the pool. */
export interface NativeCheckResult {
  /** SHA-256 of the transaction bytes. */
  readonly hash: Uint8Array;
  readonly code: number;
  /** The module whose error it is (`sdk` for the Cosmos SDK's own); '' on success. */
  readonly codespace: string;
  readonly log: string;
  readonly gasWanted: bigint;
  readonly gasUsed: bigint;
}

/** A committed native transaction and its result (DeliverTx), as stored. */
export interface NativeTxRecord extends NativeCheckResult {
  readonly height: number;
  /** Its position among all the block's transactions, native and EVM. */
  readonly index: number;
  readonly events: readonly NativeEvent[];
  /** The raw `TxRaw` bytes. */
  readonly tx: Uint8Array;
  /** The protobuf `TxMsgData` of its message responses; empty when it failed. */
  readonly data: Uint8Array;
}

/** A native account (the auth module's record). */
export interface NativeAccount {
  /** Bech32. */
  readonly address: string;
  readonly accountNumber: bigint;
  readonly sequence: bigint;
  /** Compressed secp256k1 key, once a transaction signed by it is known. */
  readonly pubKey: Uint8Array | undefined;
}

/** What an ERC20 pointer of a native denomination shows (name, symbol, decimals). */
export interface DenomMetadata {
  readonly name: string;
  readonly symbol: string;
  readonly decimals: number;
}

/** A bank transfer made by a native-side effect (a precompile or a pointer), for tracers and synthetic records. */
export interface NativeTransfer {
  readonly from: PrefixedHexString;
  readonly to: PrefixedHexString;
  readonly denom: string;
  readonly amount: bigint;
}
