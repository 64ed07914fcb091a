/** The few JSON-RPC calls the chain bench makes, over keep-alive HTTP (node:http). */
import http from 'node:http';

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
 * Connections kept open between calls. node:http rather than fetch: the load generator shares the
 * machine's cores with the servers it measures, and fetch took about 600 µs of its CPU per call
 * against 115 µs here (a loop of calls at 32 in flight against a fixed answer).
 */
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/** POSTs `body` to `url`; resolves to the status and the answer's text. */
function post(url: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        timeout: REQUEST_TIMEOUT_MS,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    request.on('error', reject);
    request.end(body);
  });
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
