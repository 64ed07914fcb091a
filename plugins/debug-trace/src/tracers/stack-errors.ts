/**
 * How many stack items each opcode takes, for geth's stack underflow text (opcodes absent take
 * none). PUSHn take none, DUPn take n, SWAPn n + 1, LOGn n + 2.
 */
const STACK_INPUTS: ReadonlyMap<number, number> = new Map([
  ...[0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x0a, 0x0b, 0x10, 0x11, 0x12, 0x13, 0x14].map((op) => [op, 2] as const),
  ...[0x16, 0x17, 0x18, 0x1a, 0x1b, 0x1c, 0x1d, 0x20, 0x52, 0x53, 0x55, 0x57, 0x5d, 0xf3, 0xfd].map(
    (op) => [op, 2] as const,
  ),
  ...[0x08, 0x09, 0x37, 0x39, 0x3e, 0x5e, 0xf0].map((op) => [op, 3] as const),
  ...[0x15, 0x19, 0x1e, 0x31, 0x35, 0x3b, 0x3f, 0x40, 0x49, 0x50, 0x51, 0x54, 0x56, 0x5c, 0xff].map(
    (op) => [op, 1] as const,
  ),
  [0x3c, 4],
  [0xf5, 4],
  [0xf1, 7],
  [0xf2, 7],
  [0xf4, 6],
  [0xfa, 6],
  ...Array.from({ length: 16 }, (_, n) => [0x80 + n, n + 1] as const),
  ...Array.from({ length: 16 }, (_, n) => [0x90 + n, n + 2] as const),
  ...Array.from({ length: 5 }, (_, n) => [0xa0 + n, n + 2] as const),
]);

/** How many stack items `opcode` takes. */
export const stackInputsOf = (opcode: number): number => STACK_INPUTS.get(opcode) ?? 0;

/** geth's stack size limit. */
const STACK_LIMIT = 1024;

/**
 * geth's words for ethereumjs's stack errors at `opcode` with `stackLength` items: geth checks
 * the stack before the opcode runs and names the sizes. Other errors are returned unchanged.
 */
export function gethStackError(error: string, opcode: number, stackLength: number): string {
  if (error === 'stack underflow') return `stack underflow (${stackLength} <=> ${stackInputsOf(opcode)})`;
  // Only opcodes that leave one item more than they take overflow: geth's limit for them is 1023.
  if (error === 'stack overflow') return `stack limit reached ${stackLength} (${STACK_LIMIT - 1})`;
  return error;
}
