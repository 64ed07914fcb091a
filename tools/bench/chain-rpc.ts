/** The few JSON-RPC calls the chain bench makes, over keep-alive HTTP (undici). */
import { Pool } from 'undici';

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
  readonly transactionIndex: string;
  readonly gasUsed: string;
  readonly contractAddress: string | null;
}

/** No single call may hang the bench: every request gives up after this long. */
const REQUEST_TIMEOUT_MS = 30_000;
let nextId = 1;

/**
 * Connections kept open between calls, one pool per server. The load generator shares the
 * machine's cores with the servers it measures, so its own cost per call counts: at 32 calls in
 * flight against a fixed answer, fetch took about 600 µs of its CPU a call, node:http with a
 * keep-alive agent 58–65 µs and undici's pool 25–28 µs. One call at a time per connection, as
 * wallets send them.
 */
const endpoints = new Map<string, { readonly pool: Pool; readonly path: string }>();

function endpointOf(url: string): { readonly pool: Pool; readonly path: string } {
  let endpoint = endpoints.get(url);
  if (endpoint === undefined) {
    const { origin, pathname } = new URL(url);
    const pool = new Pool(origin, {
      connections: 256,
      pipelining: 1,
      headersTimeout: REQUEST_TIMEOUT_MS,
      bodyTimeout: REQUEST_TIMEOUT_MS,
    });
    endpoint = { pool, path: pathname };
    endpoints.set(url, endpoint);
  }
  return endpoint;
}

/** POSTs `body` to `url`; resolves to the status and the answer's text. */
export async function post(url: string, body: string): Promise<{ status: number; text: string }> {
  const { pool, path } = endpointOf(url);
  const answer = await pool.request({ path, method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: answer.statusCode, text: await answer.body.text() };
}

export async function rpc<T>(url: string, method: string, params: readonly unknown[] = []): Promise<T> {
  const { status, text } = await post(url, JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }));
  let answer: { result?: T; error?: { code: number; message: string } };
  try {
    answer = JSON.parse(text) as typeof answer;
  } catch {
    throw new Error(`${method}: HTTP ${status}, not JSON: ${text.slice(0, 200)}`);
  }
  if (answer.error !== undefined) throw new RpcError(answer.error.code, `${method}: ${answer.error.message}`);
  if (!('result' in answer)) throw new Error(`${method}: answer without result: ${text.slice(0, 200)}`);
  return answer.result;
}

export const receiptOf = (url: string, hash: string): Promise<Receipt | null> =>
  rpc<Receipt | null>(url, 'eth_getTransactionReceipt', [hash]);

export const blockNumber = async (url: string): Promise<number> => Number(await rpc<string>(url, 'eth_blockNumber'));
