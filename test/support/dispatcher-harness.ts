import { pino } from 'pino';
import { HeldAnswers, type MethodDefinition, type Transport } from '@evmnode/core';
import { Dispatcher, MethodRegistry, RequestHooks, RpcRequest, wsFragments } from '@evmnode/core/internal';
import { coreConfigWith } from './config.js';

/** A dispatcher over the given methods, with the node's real registry, hooks and error mapping. */
export function dispatcherHarness(methods: readonly MethodDefinition[], config: Record<string, unknown> = {}) {
  const core = coreConfigWith(config);
  const registry = new MethodRegistry(core);
  registry.register('test', methods);
  const hooks = new RequestHooks();
  const logs: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) },
  );
  /** The held answers' clock, for a test to let them grow stale. */
  const heldClock = { now: 0 };
  const heldAnswers = new HeldAnswers(core.evm.max_held_answer_bytes, () => heldClock.now);
  const dispatcher = new Dispatcher(registry, hooks, core, logger, heldAnswers);

  /** Sends `body` (JSON text) and returns the raw response text, or undefined for no response. */
  async function sendRaw(
    body: string,
    transport: Transport = 'http',
    request = new RpcRequest(transport, 'req-1', undefined, 'test-client'),
  ): Promise<string | undefined> {
    // A response is text, or UTF-8 bytes for results that are already JSON.
    const answer = await dispatcher.dispatch(JSON.parse(body) as unknown, body, request);
    return answer === undefined
      ? undefined
      : Buffer.concat(wsFragments(answer).map((fragment) => Buffer.from(fragment))).toString();
  }

  /** Sends a value and returns the parsed response. */
  async function send(body: unknown, transport: Transport = 'http'): Promise<any> {
    const text = await sendRaw(JSON.stringify(body), transport);
    return text === undefined ? undefined : JSON.parse(text);
  }

  return { dispatcher, registry, hooks, heldAnswers, heldClock, logs, send, sendRaw };
}

/** A call envelope. */
export function call(method: string, params?: unknown[], id: unknown = 1): Record<string, unknown> {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}
