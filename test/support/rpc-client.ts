import { request } from 'node:http';

/** A raw HTTP exchange with the node, for tests that need to send what no client library would. */
export interface RawResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

export async function post(
  url: string,
  body: string | Uint8Array,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Promise<RawResponse> {
  const response = await fetch(url, { method: 'POST', body, headers });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** Posts a JSON-RPC call and returns the parsed response. */
export async function rpc(url: string, method: string, params: unknown[] = [], id: unknown = 1): Promise<any> {
  const { text } = await post(url, JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  return JSON.parse(text);
}

/**
 * Posts a JSON-RPC call from a chosen loopback address (`127.0.0.2`: another client to the node,
 * which tells clients apart by remote address) and returns the parsed response.
 */
export function rpcFrom(localAddress: string, url: string, method: string, params: unknown[] = []): Promise<any> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', localAddress, headers: { 'content-type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
