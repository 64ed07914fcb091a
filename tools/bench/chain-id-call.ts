/** The call the dispatch bench measures: `eth_chainId`, and how to read a JSON-RPC answer. */
import type { PostedCall } from './http-load.js';

export function chainIdRequest(id: number): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_chainId', params: [] });
}

/** `eth_chainId` with id 1, right when it answers `chainId`. */
export function chainIdCall(chainId: string): PostedCall {
  return {
    body: chainIdRequest(1),
    problem: (text) => {
      const answer = readAnswer(text);
      return answer?.id === 1 && answer.result === chainId ? undefined : `not ${chainId}: ${text.slice(0, 200)}`;
    },
  };
}

/** The answer's `id`, `result` and `error`, or undefined when `text` is not a JSON object. */
export function readAnswer(
  text: string,
): { readonly id?: unknown; readonly result?: unknown; readonly error?: unknown } | undefined {
  try {
    const answer: unknown = JSON.parse(text);
    return typeof answer === 'object' && answer !== null ? answer : undefined;
  } catch {
    return undefined;
  }
}
