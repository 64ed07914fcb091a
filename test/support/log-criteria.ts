/**
 * The widest criteria the node takes: 1,000 addresses and 1,000 topics at each of four positions
 * (5,001 values as the node counts the room criteria take).
 */
export function widestLogCriteria(): { address: string[]; topics: string[][] } {
  const hex = (value: number, bytes: number) => `0x${value.toString(16).padStart(bytes * 2, '0')}`;
  return {
    address: Array.from({ length: 1000 }, (_, index) => hex(index + 1, 20)),
    topics: Array.from({ length: 4 }, (_, position) =>
      Array.from({ length: 1000 }, (_, index) => hex(position * 1000 + index + 1, 32)),
    ),
  };
}
