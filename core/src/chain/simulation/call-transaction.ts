import { createTx, TransactionType, type TxOptions, type TypedTransaction, type TypedTxData } from '@ethereumjs/tx';
import { Address, hexToBytes, type EOACode7702AuthorizationListItem, type PrefixedHexString } from '@ethereumjs/util';
import type { CallRequest } from '../../rpc/call-codecs.js';
import { InvalidInputError } from '../../errors/rpc-error.js';
import { toQuantity } from '../../rpc/hex-codecs.js';

const ZERO_ADDRESS: PrefixedHexString = `0x${'00'.repeat(20)}`;

/** What a simulated call pays per gas; zero when the request names no price (geth's NoBaseFee). */
export function pricesOf(request: CallRequest): { readonly feeCap: bigint; readonly tip: bigint } {
  if (request.gasPrice !== undefined) return { feeCap: request.gasPrice, tip: request.gasPrice };
  return { feeCap: request.maxFeePerGas ?? 0n, tip: request.maxPriorityFeePerGas ?? 0n };
}

/** The price per gas a simulated call pays in a block of base fee `baseFee` (zero when it names none). */
export function gasPriceOf(request: CallRequest, baseFee: bigint): bigint {
  if (request.gasPrice !== undefined) return request.gasPrice;
  const { feeCap, tip } = pricesOf(request);
  return feeCap === 0n ? 0n : baseFee + (tip < feeCap - baseFee ? tip : feeCap - baseFee);
}

/** geth refuses a call object with both fee styles (`TransactionArgs.ToMessage`). */
export function checkFeeStyle(request: CallRequest): void {
  if (
    request.gasPrice !== undefined &&
    (request.maxFeePerGas !== undefined || request.maxPriorityFeePerGas !== undefined)
  ) {
    throw new InvalidInputError('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified');
  }
}

/** Whether the request names any fee: without one, the call runs with a zero base fee, as geth does. */
export function paysFees(request: CallRequest): boolean {
  const { feeCap, tip } = pricesOf(request);
  return feeCap !== 0n || tip !== 0n;
}

function typeOf(request: CallRequest): TransactionType {
  if (request.authorizationList !== undefined) return TransactionType.EOACodeEIP7702;
  if (request.maxFeePerGas !== undefined || request.maxPriorityFeePerGas !== undefined) {
    return TransactionType.FeeMarketEIP1559;
  }
  if (request.accessList !== undefined) return TransactionType.AccessListEIP2930;
  return TransactionType.Legacy;
}

/** A call's EIP-7702 authorizations as a set-code transaction's fields write them. */
export function authorizationItemsOf(request: CallRequest): EOACode7702AuthorizationListItem[] {
  return (request.authorizationList ?? []).map((entry) => ({
    chainId: toQuantity(entry.chainId),
    address: entry.address,
    nonce: toQuantity(entry.nonce),
    yParity: toQuantity(entry.yParity),
    r: toQuantity(entry.r),
    s: toQuantity(entry.s),
  }));
}

/**
 * An unsigned transaction for the VM to run as `request` describes, sent by `from` (the zero
 * address by default). The VM asks a transaction for its sender; an unsigned one has none, so it
 * is given one.
 */
export function callTransaction(request: CallRequest, gasLimit: bigint, options: TxOptions): TypedTransaction {
  const type = typeOf(request);
  const { feeCap, tip } = pricesOf(request);
  const txData: TypedTxData = {
    type,
    nonce: 0n,
    gasLimit,
    value: request.value ?? 0n,
    data: request.input ?? new Uint8Array(0),
    ...(request.to === undefined ? {} : { to: request.to }),
    ...(type === TransactionType.Legacy || type === TransactionType.AccessListEIP2930
      ? { gasPrice: feeCap }
      : { maxFeePerGas: feeCap, maxPriorityFeePerGas: tip }),
    ...(type === TransactionType.Legacy
      ? {}
      : {
          accessList: (request.accessList ?? []).map((entry) => ({
            address: entry.address,
            storageKeys: [...entry.storageKeys],
          })),
        }),
    ...(type === TransactionType.EOACodeEIP7702
      ? {
          authorizationList: authorizationItemsOf(request),
        }
      : {}),
  };
  const tx = createTx(txData, { ...options, freeze: false });
  const sender = new Address(hexToBytes(request.from ?? ZERO_ADDRESS));
  tx.getSenderAddress = () => sender;
  return tx;
}

/** The sender a call runs as, lower-case. */
export function senderOf(request: CallRequest): PrefixedHexString {
  return request.from ?? ZERO_ADDRESS;
}
