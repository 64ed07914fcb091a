/**
 * The deepest nesting of arrays and objects a request may have; deeper JSON is refused as Go's
 * `encoding/json` refuses it past 10,000 levels (geth's and CometBFT's decoders). `JSON.parse`
 * takes any depth, but the node's own recursion over a value (`JSON.stringify` in an error's text,
 * say) runs out of stack at a few thousand levels. No call's parameters come near this.
 */
export const MAX_NESTING_DEPTH = 1_000;

/**
 * The most values (array elements and object members) a request may hold. `JSON.parse` takes
 * about 0.2–0.4 µs a value, and a call's decoding may visit each once more, so a body of the largest
 * size made of tiny values (a million `[1]`) would hold the node's thread for a third of a second;
 * this many take 20–40 ms. A batch of a thousand calls holds some ten thousand.
 */
export const MAX_JSON_VALUES = 50_000;

/**
 * The most distinct names object members of a request may have. `JSON.parse` pays for each new
 * name (a string to intern, a shape or a dictionary's entry to add): one object of 50,000 names
 * took 27–55 ms, 500 objects of 100 names never seen before 72 ms, while 25 objects of the same
 * 2,000 names take 1 ms. This many names of 100 characters take 11–36 ms. A batch of a thousand
 * calls has a handful of names; an override of 16,000 accounts, or of as many storage slots, fits.
 */
export const MAX_DISTINCT_KEYS = 20_000;

/** Why a parsed request exceeds the limits, in the words of a JSON decoder's error, or undefined. */
export function limitFault(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const pending: object[] = [value];
  const depths: number[] = [1];
  let values = 0;
  const keys = new Set<string>();
  const visit = (child: unknown, depth: number): void => {
    if (typeof child !== 'object' || child === null) return;
    pending.push(child);
    depths.push(depth);
  };
  while (pending.length > 0) {
    const next = pending.pop()!;
    const depth = depths.pop()!;
    if (depth > MAX_NESTING_DEPTH) return 'exceeded max depth';
    if (Array.isArray(next)) {
      values += next.length;
      for (const child of next as unknown[]) visit(child, depth + 1);
    } else {
      // for-in: `Object.values` of an object with many keys takes twice as long.
      for (const key in next) {
        values++;
        keys.add(key);
        visit((next as Record<string, unknown>)[key], depth + 1);
      }
    }
    if (values > MAX_JSON_VALUES) return `exceeded max values (${MAX_JSON_VALUES})`;
    if (keys.size > MAX_DISTINCT_KEYS) return `exceeded max distinct keys (${MAX_DISTINCT_KEYS})`;
  }
  return undefined;
}
