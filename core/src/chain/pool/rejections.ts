import { LimitExceededError, TransactionRejectedError } from '../../errors/rpc-error.js';

/**
 * Transaction rejections with geth's wording (ethers and viem classify errors by these strings)
 * and, in `data`, the native check code of the Cosmos SDK's `sdk` codespace (decisions.md D3).
 */
const SdkCode = {
  TxDecode: 2,
  Unauthorized: 4,
  InsufficientFunds: 5,
  OutOfGas: 11,
  InsufficientFee: 13,
  TxInMempoolCache: 19,
  MempoolIsFull: 20,
  TxTooLarge: 21,
  InvalidChainId: 28,
  WrongSequence: 32,
  NotSupported: 37,
  InvalidGasLimit: 41,
} as const;

function rejected(message: string, code: number): TransactionRejectedError {
  return new TransactionRejectedError(message, { code, codespace: 'sdk' });
}

export const Rejections = {
  undecodable: (detail: string) => rejected(`rlp: ${detail}`, SdkCode.TxDecode),
  typeNotSupported: () => rejected('transaction type not supported', SdkCode.NotSupported),
  oversized: (size: number, limit: number) =>
    rejected(`oversized data: transaction size ${size}, limit ${limit}`, SdkCode.TxTooLarge),
  initCodeTooLarge: (size: number, limit: bigint) =>
    rejected(`max initcode size exceeded: code size ${size}, limit ${limit}`, SdkCode.TxTooLarge),
  invalidChainId: (have: bigint, want: bigint) =>
    rejected(`invalid chain id for signer: have ${have} want ${want}`, SdkCode.InvalidChainId),
  unprotected: () => rejected('only replay-protected (EIP-155) transactions allowed over RPC', SdkCode.Unauthorized),
  invalidSender: () => rejected('invalid sender', SdkCode.Unauthorized),
  exceedsBlockGasLimit: () => rejected('exceeds block gas limit', SdkCode.InvalidGasLimit),
  intrinsicGasTooLow: (gas: bigint, needed: bigint) =>
    rejected(`intrinsic gas too low: gas ${gas}, minimum needed ${needed}`, SdkCode.OutOfGas),
  floorDataGas: (gas: bigint, needed: bigint) =>
    rejected(`insufficient gas for floor data gas cost: gas ${gas}, minimum needed ${needed}`, SdkCode.OutOfGas),
  underpriced: (price: bigint, minimum: bigint) =>
    rejected(`transaction underpriced: gas price ${price}, minimum needed ${minimum}`, SdkCode.InsufficientFee),
  feeCapTooLow: (sender: string, maxFee: bigint, baseFee: bigint) =>
    rejected(
      `max fee per gas less than block base fee: address ${sender}, maxFeePerGas: ${maxFee}, baseFee: ${baseFee}`,
      SdkCode.InsufficientFee,
    ),
  tipAboveFeeCap: (sender: string, tip: bigint, maxFee: bigint) =>
    rejected(
      `max priority fee per gas higher than max fee per gas: address ${sender}, maxPriorityFeePerGas: ${tip}, maxFeePerGas: ${maxFee}`,
      SdkCode.InsufficientFee,
    ),
  nonceTooLow: (next: bigint, nonce: bigint) =>
    rejected(`nonce too low: next nonce ${next}, tx nonce ${nonce}`, SdkCode.WrongSequence),
  alreadyKnown: () => rejected('already known', SdkCode.TxInMempoolCache),
  replacementUnderpriced: () => rejected('replacement transaction underpriced', SdkCode.InsufficientFee),
  insufficientFunds: (balance: bigint, cost: bigint) =>
    rejected(
      `insufficient funds for gas * price + value: balance ${balance}, tx cost ${cost}, overshot ${cost - balance}`,
      SdkCode.InsufficientFunds,
    ),
  /** Its cost with what the sender's pooled transactions may take is above its balance (geth's overdraft check). */
  overdraft: (balance: bigint, pooledCost: bigint, added: bigint, replacing: boolean) =>
    rejected(
      `insufficient funds for gas * price + value: balance ${balance}, queued cost ${pooledCost}, ` +
        `tx ${replacing ? 'bumped' : 'cost'} ${added}, overshot ${pooledCost + added - balance}`,
      SdkCode.InsufficientFunds,
    ),
  /** The pool is full and the transaction pays no more than the cheapest it could evict (geth's ErrUnderpriced). */
  underpricedForFullPool: () => rejected('transaction underpriced', SdkCode.InsufficientFee),
  /** The sender already holds its share of queued (nonce-gapped) transactions (geth's ErrAccountLimitExceeded). */
  accountLimitExceeded: (queued: number) =>
    rejected(`account limit exceeded: queued ${queued} txs`, SdkCode.MempoolIsFull),
  /** A queued transaction may only evict queued ones, never a ready one (geth's ErrFutureReplacePending). */
  futureReplacesPending: () => rejected('future transaction tries to replace pending', SdkCode.MempoolIsFull),
  /** Transient: nothing can make room now, but blocks and expiry will, so -32005 (decisions.md D3). */
  poolFull: () => new LimitExceededError('txpool is full'),
};
