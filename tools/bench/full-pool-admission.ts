/**
 * The pool's own time to admit a transaction when it is full, against when it is empty: each
 * newcomer, from a sender of its own and paying more than any pooled one, evicts the cheapest.
 * The pool runs in this process with its chain's reads answered at once and every sender's key
 * recovered beforehand (as the node's recovery threads hand it over), so that what is timed is
 * decoding, the checks and the eviction on the node's thread.
 */
import { Wallet } from 'ethers';
import { hexToBytes } from '@ethereumjs/util';
import { evmCommon, TxPool } from '@evmnode/core/internal';

const CHAIN_ID = 713_714n;
const GWEI = 1_000_000_000n;
const NEWCOMERS = 1_000;

/** Transfers from `count` fresh senders, each tipping `tipOf(index)` gwei, and their senders' public keys. */
async function transfersFromFreshSenders(
  count: number,
  tipOf: (index: number) => bigint,
): Promise<{ readonly raw: Uint8Array; readonly publicKey: Uint8Array }[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const wallet = Wallet.createRandom();
      const signed = await wallet.signTransaction({
        type: 2,
        chainId: CHAIN_ID,
        nonce: 0,
        to: Wallet.createRandom().address,
        gasLimit: 21_000n,
        maxFeePerGas: 100n * GWEI,
        maxPriorityFeePerGas: tipOf(index),
      });
      return {
        raw: hexToBytes(signed as `0x${string}`),
        publicKey: hexToBytes(`0x${wallet.signingKey.publicKey.slice(4)}`),
      };
    }),
  );
}

function poolOf(size: number, keys: ReadonlyMap<Uint8Array, Uint8Array>): TxPool {
  const chain = {
    common: evmCommon(CHAIN_ID),
    chainId: CHAIN_ID,
    nextBaseFee: () => GWEI,
    blockGasLimit: () => 12_500_000n,
    account: () => Promise.resolve({ nonce: 0n, balance: 10n ** 24n }),
  };
  const limits = {
    size,
    minGasPrice: GWEI,
    accountSlots: 16,
    accountQueue: 64,
    globalQueue: 1024,
    lifetimeMs: 3_600_000,
  };
  return new TxPool(chain, limits, undefined, (raw) => Promise.resolve(keys.get(raw)));
}

/** Mean µs per admission of `transactions`. */
async function admissionTime(pool: TxPool, transactions: readonly { readonly raw: Uint8Array }[]): Promise<number> {
  const started = performance.now();
  for (const { raw } of transactions) await pool.admit(raw);
  return ((performance.now() - started) * 1000) / transactions.length;
}

/** Prints the pool's time per admission into a full pool of `senders` senders and into an empty one. */
export async function benchFullPoolAdmission(senders: number): Promise<void> {
  const pooled = await transfersFromFreshSenders(senders, (index) => GWEI + BigInt(index));
  const newcomers = await transfersFromFreshSenders(NEWCOMERS, () => 2n * GWEI);
  const keys = new Map([...pooled, ...newcomers].map(({ raw, publicKey }) => [raw, publicKey]));
  const full = poolOf(senders, keys);
  for (const { raw } of pooled) await full.admit(raw);
  // The same admissions twice over, into pools of their own: the first warms the code.
  const rounds: { full: number; empty: number }[] = [];
  for (let round = 0; round < 2; round++) {
    const fullPool = round === 0 ? full : poolOf(senders, keys);
    if (round > 0) for (const { raw } of pooled) await fullPool.admit(raw);
    rounds.push({
      full: await admissionTime(fullPool, newcomers),
      empty: await admissionTime(poolOf(senders, keys), newcomers),
    });
    if (fullPool.size !== senders) throw new Error(`the full pool holds ${fullPool.size}, want ${senders}`);
  }
  const { full: fullUs, empty: emptyUs } = rounds.at(-1)!;
  console.log(
    `pool admission, ${NEWCOMERS} newcomers each evicting one of ${senders} senders' transactions: ` +
      `${fullUs.toFixed(1)} µs each, against ${emptyUs.toFixed(1)} µs into an empty pool`,
  );
}
