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
