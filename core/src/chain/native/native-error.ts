/**
 * The Cosmos SDK's root error codes (codespace `sdk`) that native transactions can end with,
 * with the description the SDK appends to every wrapped message (`<detail>: <description>`).
 */
export const SdkError = {
  TxDecode: { code: 2, description: 'tx parse error' },
  Unauthorized: { code: 4, description: 'unauthorized' },
  InsufficientFunds: { code: 5, description: 'insufficient funds' },
  UnknownRequest: { code: 6, description: 'unknown request' },
  InvalidAddress: { code: 7, description: 'invalid address' },
  InvalidPubKey: { code: 8, description: 'invalid pubkey' },
  UnknownAddress: { code: 9, description: 'unknown address' },
  InvalidCoins: { code: 10, description: 'invalid coins' },
  OutOfGas: { code: 11, description: 'out of gas' },
  MemoTooLarge: { code: 12, description: 'memo too large' },
  InsufficientFee: { code: 13, description: 'insufficient fee' },
  NoSignatures: { code: 15, description: 'no signatures supplied' },
  InvalidRequest: { code: 18, description: 'invalid request' },
  TxInMempoolCache: { code: 19, description: 'tx already in mempool' },
  MempoolIsFull: { code: 20, description: 'mempool is full' },
  TxTooLarge: { code: 21, description: 'tx too large' },
  WrongSequence: { code: 32, description: 'incorrect account sequence' },
} as const;

type SdkErrorKind = (typeof SdkError)[keyof typeof SdkError];

/** A native check or message that failed, with the result code and log Cosmos tooling shows. */
export class NativeError extends Error {
  override readonly name = 'NativeError';

  constructor(
    readonly code: number,
    readonly codespace: string,
    message: string,
  ) {
    super(message);
  }

  /** An SDK error wrapped with a detail, as the SDK's `Wrapf` words it. */
  static sdk(kind: SdkErrorKind, detail?: string): NativeError {
    return new NativeError(
      kind.code,
      'sdk',
      detail === undefined ? kind.description : `${detail}: ${kind.description}`,
    );
  }
}
