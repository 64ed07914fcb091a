import { Transaction } from 'ethers';
import { lower, quantity } from './chain-kit.js';

/** Where a transaction was mined. */
export interface MinedAt {
  readonly blockHash: string;
  readonly blockNumber: number;
  readonly blockTimestamp: string;
  readonly index: number;
  readonly baseFee: bigint;
}

const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);

/**
 * A transaction as geth (1.16) writes it, derived from its signed bytes with ethers:
 * `gasPrice` of a fee-market transaction is what it paid once mined (base fee plus effective tip)
 * and its fee cap while it waits in the pool, where the block fields are null; typed transactions
 * carry `v` = `yParity`, protected legacy ones their EIP-155 `v` and chain ID.
 */
export function expectedTransaction(raw: string, minedAt?: MinedAt): Record<string, unknown> {
  const tx = Transaction.from(raw);
  const signature = tx.signature!;
  const typed = tx.type !== 0;
  const feeMarket = tx.type === 2 || tx.type === 4;
  const gasPrice = !feeMarket
    ? tx.gasPrice!
    : minedAt === undefined
      ? tx.maxFeePerGas!
      : minedAt.baseFee + min(tx.maxPriorityFeePerGas!, tx.maxFeePerGas! - minedAt.baseFee);
  return {
    blockHash: minedAt?.blockHash ?? null,
    blockNumber: minedAt === undefined ? null : quantity(minedAt.blockNumber),
    blockTimestamp: minedAt?.blockTimestamp ?? null,
    from: lower(tx.from!),
    gas: quantity(tx.gasLimit),
    gasPrice: quantity(gasPrice),
    ...(feeMarket
      ? { maxFeePerGas: quantity(tx.maxFeePerGas!), maxPriorityFeePerGas: quantity(tx.maxPriorityFeePerGas!) }
      : {}),
    hash: tx.hash,
    input: tx.data,
    nonce: quantity(tx.nonce),
    to: tx.to === null ? null : lower(tx.to),
    transactionIndex: minedAt === undefined ? null : quantity(minedAt.index),
    value: quantity(tx.value),
    type: quantity(tx.type!),
    ...(typed
      ? {
          accessList: tx.accessList!.map(({ address, storageKeys }) => ({ address: lower(address), storageKeys })),
        }
      : {}),
    ...(typed || tx.chainId !== 0n ? { chainId: quantity(tx.chainId) } : {}),
    ...(tx.type === 4
      ? {
          authorizationList: tx.authorizationList!.map((authorization) => ({
            chainId: quantity(authorization.chainId),
            address: lower(authorization.address),
            nonce: quantity(authorization.nonce),
            yParity: quantity(authorization.signature.yParity),
            r: quantity(BigInt(authorization.signature.r)),
            s: quantity(BigInt(authorization.signature.s)),
          })),
        }
      : {}),
    v: quantity(typed ? signature.yParity : signature.networkV!),
    r: quantity(BigInt(signature.r)),
    s: quantity(BigInt(signature.s)),
    ...(typed ? { yParity: quantity(signature.yParity) } : {}),
  };
}
