/** The one call the bench measures: `eth_chainId`, and how to check its answer. */

export function chainIdRequest(id: number): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_chainId', params: [] });
}

/** The answer's id when it is a successful `eth_chainId` answer equal to `chainId`, else undefined. */
export function answeredId(text: string, chainId: string): number | undefined {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof answer !== 'object' || answer === null) return undefined;
  const { id, result } = answer as { id?: unknown; result?: unknown };
  return typeof id === 'number' && result === chainId ? id : undefined;
}
