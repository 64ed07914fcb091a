/** The few JSON-RPC calls the chain bench makes, over keep-alive HTTP (fetch). */

/** A JSON-RPC error answer, with its code (e.g. -32601 method not found, -32003 rejected transaction). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** The subset of a receipt the bench reads. */
export interface Receipt {
  readonly transactionHash: string;
  readonly status: string;
  readonly blockNumber: string;
  readonly gasUsed: string;
  readonly contractAddress: string | null;
}

/** No single call may hang the bench: every request gives up after this long. */
const REQUEST_TIMEOUT_MS = 30_000;
let nextId = 1;

export async function rpc<T>(url: string, method: string, params: readonly unknown[] = []): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  let answer: { result?: T; error?: { code: number; message: string } };
  try {
    answer = JSON.parse(text) as typeof answer;
  } catch {
    throw new Error(`${method}: HTTP ${response.status}, not JSON: ${text.slice(0, 200)}`);
  }
  if (answer.error !== undefined) throw new RpcError(answer.error.code, `${method}: ${answer.error.message}`);
  if (!('result' in answer)) throw new Error(`${method}: answer without result: ${text.slice(0, 200)}`);
  return answer.result;
}

export const receiptOf = (url: string, hash: string): Promise<Receipt | null> =>
  rpc<Receipt | null>(url, 'eth_getTransactionReceipt', [hash]);

export const blockNumber = async (url: string): Promise<number> => Number(await rpc<string>(url, 'eth_blockNumber'));
