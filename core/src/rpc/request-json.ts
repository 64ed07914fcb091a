/**
 * The deepest nesting of arrays and objects a request may have; deeper JSON is refused as Go's
 * `encoding/json` refuses it past 10,000 levels (geth's and CometBFT's decoders). `JSON.parse`
 * takes any depth, but the node's own recursion over a value (`JSON.stringify` in an error's text,
 * say) runs out of stack at a few thousand levels. No call's parameters come near this.
 */
export const MAX_NESTING_DEPTH = 1_000;

/**
 * A request's JSON value, as `JSON.parse` gives it; a SyntaxError, as `JSON.parse` throws, when the
 * text is not JSON or nests deeper than {@link MAX_NESTING_DEPTH}.
 */
export function parseRequestJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  // Each level takes two characters at least: a shorter text cannot nest too deep.
  if (text.length > 2 * MAX_NESTING_DEPTH && nestsTooDeep(value)) throw new SyntaxError('exceeded max depth');
  return value;
}

/** Whether arrays and objects in `value` nest deeper than {@link MAX_NESTING_DEPTH}: a walk without recursion. */
function nestsTooDeep(value: unknown): boolean {
  const pending: unknown[] = [value];
  const depths: number[] = [1];
  while (pending.length > 0) {
    const next = pending.pop();
    const depth = depths.pop()!;
    if (typeof next !== 'object' || next === null) continue;
    if (depth > MAX_NESTING_DEPTH) return true;
    for (const child of Array.isArray(next) ? next : Object.values(next)) {
      pending.push(child);
      depths.push(depth + 1);
    }
  }
  return false;
}
