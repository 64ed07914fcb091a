/** The one call the bench measures: `eth_chainId`, and how to read its answer. */

export function chainIdRequest(id: number): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_chainId', params: [] });
}

/** The answer's `id` and `result`, or undefined when `text` is not a JSON object. */
export function readAnswer(text: string): { readonly id?: unknown; readonly result?: unknown } | undefined {
  try {
    const answer: unknown = JSON.parse(text);
    return typeof answer === 'object' && answer !== null ? answer : undefined;
  } catch {
    return undefined;
  }
}
