import {
  arrayOf,
  blockNumberOrTag,
  codec,
  CodecError,
  defineMethod,
  EventLoopTurns,
  InvalidInputError,
  jsonKind,
  rewardPercentiles,
  toQuantity,
  type BlockRecord,
  type ChainReader,
} from '@evmnode/core';

const MAX_PERCENTILES = 100;

/**
 * Blocks read at once. A full block's record lists each transaction's hash and tip, and a
 * request may span `max_blocks_for_log` (2,000) blocks: read all at once, 60M-gas blocks of
 * transfers would be gigabytes of records held together, and their tips parsed in one turn.
 */
const BLOCKS_PER_READ = 32;

const MAX_UINT64 = 0xffff_ffff_ffff_ffffn;

/**
 * geth's `math.ParseUint64`: empty is 0, else `0x` and hex digits or decimal digits, within 64 bits.
 * Digits past a uint64's (leading zeros aside) are refused before `BigInt` reads them: a million
 * decimal digits take it most of a second.
 */
function parseUint64(text: string): bigint | undefined {
  if (text === '') return 0n;
  const hexDigits = /^0[xX]0*([0-9a-fA-F]+)$/.exec(text)?.[1];
  if (hexDigits !== undefined) return hexDigits.length <= 16 ? BigInt(`0x${hexDigits}`) : undefined;
  const decimalDigits = /^0*(\d+)$/.exec(text)?.[1];
  if (decimalDigits === undefined || decimalDigits.length > 20) return undefined;
  const value = BigInt(decimalDigits);
  return value <= MAX_UINT64 ? value : undefined;
}

/**
 * geth's `math.HexOrDecimal64`: it parses the raw JSON text (a string without its quotes), so any
 * other JSON value (`true`, `1.5`, `-1`) fails with its own text.
 */
const hexOrDecimal64 = codec('math.HexOrDecimal64', (value): bigint => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const count = parseUint64(text);
  if (count === undefined) throw new CodecError(`invalid hex or decimal integer ${JSON.stringify(text)}`);
  return count;
});

/** A JSON number (Go `float64`). */
const float64 = codec('float64', (value): number => {
  if (typeof value !== 'number') throw new CodecError(jsonKind(value), 'float64');
  return value;
});

function checkPercentiles(percentiles: readonly number[]): void {
  if (percentiles.length > MAX_PERCENTILES) {
    throw new InvalidInputError(`rewardPercentiles length must be less than or equal to ${MAX_PERCENTILES}`);
  }
  percentiles.forEach((percentile, index) => {
    if (percentile < 0 || percentile > 100 || (index > 0 && percentile < percentiles[index - 1]!)) {
      throw new InvalidInputError('invalid reward percentiles: must be ascending and between 0 and 100');
    }
  });
}

/**
 * `eth_feeHistory` (§2.8): base fees (one more than blocks: the next block's), gas used ratios
 * with four decimals, and tip percentiles weighted by gas. The count is clamped to
 * `max_blocks_for_log` and to the chain; a newest block beyond the head is refused with the
 * reference node's -32000, heights in decimal.
 */
export function feeHistoryMethod(chain: ChainReader, maxBlocks: number) {
  return defineMethod({
    name: 'eth_feeHistory',
    params: [hexOrDecimal64, blockNumberOrTag, arrayOf(float64)],
    handler: async ([requested, newest, percentiles], request) => {
      checkPercentiles(percentiles);
      // The head as the call begins: blocks commit while it reads.
      const headBlock = chain.head();
      const head = headBlock.height;
      const headNextBaseFee = chain.nextBaseFee();
      if (requested === 0n) return { oldestBlock: '0x0', baseFeePerGas: [], gasUsedRatio: [] };
      if (typeof newest === 'bigint' && newest > BigInt(head)) {
        throw new InvalidInputError(`requested last block ${newest} is not yet available; safe latest is ${head}`);
      }
      const newestHeight = typeof newest === 'bigint' ? Number(newest) : newest === 'earliest' ? 0 : head;
      const count = Math.min(Number(requested > BigInt(maxBlocks) ? BigInt(maxBlocks) : requested), newestHeight + 1);
      const oldest = newestHeight - count + 1;
      const baseFeePerGas: string[] = [];
      const gasUsedRatio: number[] = [];
      const reward: string[][] = [];
      const turns = new EventLoopTurns(undefined, request.clientId);
      for (let from = oldest; from <= newestHeight; from += BLOCKS_PER_READ) {
        const heights = Array.from({ length: Math.min(BLOCKS_PER_READ, newestHeight + 1 - from) }, (_, i) => from + i);
        const blocks = await Promise.all(
          heights.map(async (height): Promise<BlockRecord> =>
            height === head ? headBlock : (await chain.blockAt(height))!,
          ),
        );
        for (const block of blocks) {
          baseFeePerGas.push(block.baseFeePerGas);
          gasUsedRatio.push(
            Math.round((Number(BigInt(block.gasUsed)) / Number(BigInt(block.gasLimit))) * 10_000) / 10_000,
          );
          if (percentiles.length > 0) reward.push(rewardPercentiles(block, percentiles).map(toQuantity));
          const turn = turns.pause();
          if (turn !== undefined) await turn;
        }
      }
      const nextBaseFee =
        newestHeight === head ? headNextBaseFee : BigInt((await chain.blockAt(newestHeight + 1))!.baseFeePerGas);
      return {
        oldestBlock: toQuantity(oldest),
        baseFeePerGas: [...baseFeePerGas, toQuantity(nextBaseFee)],
        gasUsedRatio,
        ...(percentiles.length === 0 ? {} : { reward }),
      };
    },
  });
}
