import { createTx, TransactionType, type TypedTransaction } from '@ethereumjs/tx';
import { MAX_INTEGER } from '@ethereumjs/util';
import {
  InvalidInputError,
  LATEST_BLOCK,
  suggestedGasPrice,
  suggestedTip,
  toQuantity,
  type CallRequest,
  type ChainReader,
  type TxPoolReader,
  type Simulator,
} from '@evmnode/core';

/**
 * How the fee fields are filled: `legacy` always gives a legacy transaction priced by `gasPrice`
 * (`eth_sendTransaction`, interface.md §4.1); `geth` gives what geth's `ToTransaction` builds after
 * its defaults: legacy when `gasPrice` is set, EIP-1559 otherwise.
 */
export type FeeStyle = 'legacy' | 'geth';

/** What filling reads of the node. */
export interface FillServices {
  readonly chain: ChainReader;
  readonly pool: TxPoolReader;
  readonly simulator: Simulator;
  /** `[mempool] min_gas_price`: a filled legacy price below it would only be refused. */
  readonly minGasPrice: bigint;
}

type FeeFields =
  | { readonly type: typeof TransactionType.Legacy; readonly gasPrice: bigint }
  | {
      readonly type: typeof TransactionType.FeeMarketEIP1559;
      readonly maxFeePerGas: bigint;
      readonly maxPriorityFeePerGas: bigint;
    };

export const ZERO_ADDRESS = `0x${'00'.repeat(20)}` as const;
const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);

function feeCapBelowTip(maxFeePerGas: bigint, maxPriorityFeePerGas: bigint): InvalidInputError {
  return new InvalidInputError(
    `maxFeePerGas (${toQuantity(maxFeePerGas)}) < maxPriorityFeePerGas (${toQuantity(maxPriorityFeePerGas)})`,
  );
}

/**
 * A legacy price for the request: its `gasPrice`; else what its EIP-1559 fields would pay in the
 * next block, within their cap (a legacy transaction pays its whole price); else the suggested
 * gas price. Filled prices are raised to the pool's minimum.
 */
function legacyGasPrice(request: CallRequest, { chain, minGasPrice }: FillServices): bigint {
  if (request.gasPrice !== undefined) return request.gasPrice;
  const feeMarket = request.maxFeePerGas !== undefined || request.maxPriorityFeePerGas !== undefined;
  const wanted = feeMarket
    ? chain.nextBaseFee() + (request.maxPriorityFeePerGas ?? suggestedTip(chain))
    : suggestedGasPrice(chain);
  const price = max(wanted, minGasPrice);
  return request.maxFeePerGas !== undefined && request.maxFeePerGas < price ? request.maxFeePerGas : price;
}

/** geth's fee defaults (`setFeeDefaults` and `setLondonFeeDefaults`), or the legacy price. */
function feeFieldsOf(request: CallRequest, services: FillServices, style: FeeStyle): FeeFields {
  const { gasPrice, maxFeePerGas, maxPriorityFeePerGas } = request;
  if (gasPrice !== undefined && (maxFeePerGas !== undefined || maxPriorityFeePerGas !== undefined)) {
    throw new InvalidInputError('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified');
  }
  if (maxFeePerGas !== undefined && maxPriorityFeePerGas !== undefined && maxFeePerGas < maxPriorityFeePerGas) {
    throw feeCapBelowTip(maxFeePerGas, maxPriorityFeePerGas);
  }
  if (style === 'legacy' || gasPrice !== undefined) {
    return { type: TransactionType.Legacy, gasPrice: legacyGasPrice(request, services) };
  }
  const { chain } = services;
  const tip = maxPriorityFeePerGas ?? suggestedTip(chain);
  // geth's slack: twice the base fee, so that the transaction stays valid while the base fee rises.
  const feeCap = maxFeePerGas ?? tip + 2n * chain.nextBaseFee();
  if (feeCap < tip) throw feeCapBelowTip(feeCap, tip);
  return { type: TransactionType.FeeMarketEIP1559, maxFeePerGas: feeCap, maxPriorityFeePerGas: tip };
}

/**
 * The unsigned transaction of a call object, with geth's defaults (`TransactionArgs.setDefaults`)
 * for what it leaves out: fees (see {@link FeeStyle}), value 0, the sender's pending nonce, and
 * gas by estimate on the latest state. One implementation for `eth_sendTransaction`,
 * `eth_signTransaction` and `eth_fillTransaction`.
 */
export async function fillTransaction(
  request: CallRequest,
  services: FillServices,
  style: FeeStyle,
): Promise<TypedTransaction> {
  const { chain, pool, simulator } = services;
  if (request.authorizationList !== undefined) {
    throw new InvalidInputError(
      'authorization lists are not signed by the node: sign EIP-7702 transactions in the client and send them with eth_sendRawTransaction',
    );
  }
  const from = request.from ?? ZERO_ADDRESS;
  const fees = feeFieldsOf(request, services, style);
  const value = request.value ?? 0n;
  const nonce = request.nonce ?? (await pool.pendingNonce(from));
  const input = request.input ?? new Uint8Array();
  if (request.to === undefined && input.length === 0) {
    throw new InvalidInputError('contract creation without any data provided');
  }
  // As geth, a legacy transaction carries no access list (it is dropped when gasPrice is given).
  const accessList =
    fees.type === TransactionType.FeeMarketEIP1559 && request.accessList !== undefined
      ? request.accessList.map((entry) => ({ address: entry.address, storageKeys: [...entry.storageKeys] }))
      : undefined;
  const { type, ...prices } = fees;
  const destination = {
    ...(request.to === undefined ? {} : { to: request.to }),
    ...(accessList === undefined ? {} : { accessList }),
  };
  const gasLimit =
    request.gas ?? (await simulator.estimateGas({ from, value, input, ...destination, ...prices }, LATEST_BLOCK));
  if (request.chainId !== undefined && request.chainId !== chain.chainId) {
    throw new InvalidInputError(`chainId does not match node's (have=${request.chainId}, want=${chain.chainId})`);
  }
  // No account could pay more than 2^256-1, and the library refuses to build such a transaction.
  const [priceField, price] =
    fees.type === TransactionType.Legacy ? ['gasPrice', fees.gasPrice] : ['maxFeePerGas', fees.maxFeePerGas];
  if (gasLimit * price > MAX_INTEGER) throw new InvalidInputError(`gas * ${priceField} exceeds 2^256-1`);
  // Init code past EIP-3860's limit is signed as geth signs it; the pool refuses it in geth's words.
  return createTx(
    { type, nonce, gasLimit, value, data: input, ...destination, ...prices },
    { common: chain.common, allowUnlimitedInitCodeSize: true },
  );
}
