import { expect } from 'chai';
import { isSpecified, expectValidResult } from './openrpc.js';
import { rpc } from './rpc-client.js';
import type { WsClient } from './ws-client.js';

/** One JSON-RPC call over some transport; resolves to the whole answer. */
export type Call = (method: string, params?: unknown[]) => Promise<any>;

/** Calls over HTTP. */
export const overHttp =
  (url: string): Call =>
  (method, params = []) =>
    rpc(url, method, params);

/** Calls over a WebSocket connection, each with its own id. */
export function overWs(client: WsClient): Call {
  let id = 0;
  return (method, params = []) => client.call(method, params, ++id);
}

/**
 * The result of a call that must succeed, validated against the execution-apis schema of the
 * method when the specification defines it (methods beyond it, such as `eth_getVMError`, have none).
 */
export async function resultOf(call: Call, method: string, params: unknown[] = []): Promise<any> {
  const answer = await call(method, params);
  expect(answer.error, `${method} ${JSON.stringify(params)}: ${JSON.stringify(answer.error)}`).to.equal(undefined);
  if (isSpecified(method)) expectValidResult(method, answer.result);
  return answer.result;
}

/** The error object of a call that must fail. */
export async function errorOf(call: Call, method: string, params: unknown[] = []): Promise<any> {
  const answer = await call(method, params);
  expect(answer.result, `${method} ${JSON.stringify(params)} answered ${JSON.stringify(answer.result)}`).to.equal(
    undefined,
  );
  return answer.error;
}

/** The answer to a method the node does not serve, in geth's words. */
export const methodNotFound = (method: string) => ({
  code: -32601,
  message: `the method ${method} does not exist/is not available`,
});

/** decisions.md D3's refusal of a legacy method the node does not enable. */
export const legacyGateRefusal = (method: string) => ({
  code: -32601,
  message:
    `${method} is not enabled on this node. The ext_* and ext2_* JSON-RPC surfaces are deprecated, scheduled for ` +
    'removal, and should not be used for new integrations - prefer standard eth_* (and debug_*) methods. To allow ' +
    'this legacy method, add it to enabled_legacy_ext_apis under [evm] in app.toml.',
  data: 'legacy_ext_deprecated',
});
