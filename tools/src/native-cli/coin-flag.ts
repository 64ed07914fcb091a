import { parseCoins, type Coin } from '@cosmjs/proto-signing';
import { UsageError } from '../cli/usage-error.js';

/** One coin written as `<amount><denom>` (`1000usei`), the value of `--<flag>`. */
export function coinFlag(flag: string, text: string): Coin {
  let coins: Coin[] = [];
  try {
    coins = parseCoins(text);
  } catch {
    // Reported below, with the flag's name.
  }
  if (coins.length !== 1) {
    throw new UsageError(`--${flag} ${text} is not an amount followed by a denomination, such as 1000usei`);
  }
  return coins[0]!;
}
