import { NativeError, SdkError } from './native-error.js';
import type { Coin } from './native-types.js';

/** A valid denomination, as the Cosmos SDK's default `reDnmString`. */
export const DENOM_PATTERN = /^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$/;

/** The SDK's integers are 256-bit: a larger amount does not decode. */
const MAX_AMOUNT = 2n ** 256n - 1n;

/** Coins of a message, from their protobuf strings, checked as `sdk.Coins.Validate` does. */
export function parseCoins(coins: readonly { denom: string; amount: string }[]): Coin[] {
  const parsed = coins.map(({ denom, amount }) => {
    if (!/^\d+$/.test(amount)) throw NativeError.sdk(SdkError.TxDecode, `invalid amount ${JSON.stringify(amount)}`);
    const value = BigInt(amount);
    if (value > MAX_AMOUNT) {
      throw NativeError.sdk(SdkError.TxDecode, `integer out of range; got: ${value.toString(2).length}, max: 256`);
    }
    return { denom, amount: value };
  });
  const text = parsed.map(({ amount, denom }) => `${amount}${denom}`).join(',');
  if (parsed.length === 0) throw NativeError.sdk(SdkError.InvalidCoins, text);
  parsed.forEach((coin, index) => {
    if (!DENOM_PATTERN.test(coin.denom) || coin.amount === 0n) throw NativeError.sdk(SdkError.InvalidCoins, text);
    const previous = parsed[index - 1];
    if (previous !== undefined && previous.denom >= coin.denom) throw NativeError.sdk(SdkError.InvalidCoins, text);
  });
  return parsed;
}
