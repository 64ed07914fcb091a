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
 * The most object members a request may hold, among its values. A member costs `JSON.parse` five
 * to forty times an array element (a property added to an object, a new shape or a dictionary's
 * entry, for each new name): one object of 50,000 members took 43–55 ms, and 500 objects of 100
 * names never seen before 72 ms. This many take 15–30 ms. A batch of a thousand calls holds some
 * six thousand, an override of 20,000 storage slots this many.
 */
export const MAX_OBJECT_MEMBERS = 20_000;

/** Why a parsed request exceeds the limits, in the words of a JSON decoder's error, or undefined. */
export function limitFault(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const pending: object[] = [value];
  const depths: number[] = [1];
  let values = 0;
  let members = 0;
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
      let count = 0;
      for (const key in next) {
        count++;
        visit((next as Record<string, unknown>)[key], depth + 1);
      }
      values += count;
      members += count;
    }
    if (values > MAX_JSON_VALUES) return `exceeded max values (${MAX_JSON_VALUES})`;
    if (members > MAX_OBJECT_MEMBERS) return `exceeded max object members (${MAX_OBJECT_MEMBERS})`;
  }
  return undefined;
}
