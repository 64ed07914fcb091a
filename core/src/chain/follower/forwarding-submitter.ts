import { bytesToHex, type PrefixedHexString } from '@ethereumjs/util';
import type { TxSubmitter } from '../../api/tx-submitter.js';
import { ResourceUnavailableError, RpcError } from '../../errors/rpc-error.js';

/** No forwarded call may hang the client waiting on it. */
const REQUEST_TIMEOUT_MS = 10_000;

interface RpcAnswer {
  readonly result?: PrefixedHexString;
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
}

/**
 * A follower's `eth_sendRawTransaction`: sent to the producer's JSON-RPC endpoint, whose answer,
 * hash or error (code, message and data), is the follower's. The slow mode is the producer's:
 * its answer comes after its block commits when it runs in that mode.
 */
export class ForwardingSubmitter implements TxSubmitter {
  #nextId = 1;

  constructor(private readonly url: string) {}

  async submit(raw: Uint8Array): Promise<PrefixedHexString> {
    let answer: RpcAnswer;
    try {
      const response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: this.#nextId++,
          method: 'eth_sendRawTransaction',
          params: [bytesToHex(raw)],
        }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      answer = (await response.json()) as RpcAnswer;
    } catch (error) {
      throw new ResourceUnavailableError(`the producer at ${this.url} cannot be reached: ${(error as Error).message}`);
    }
    if (answer.error !== undefined) throw new RpcError(answer.error.code, answer.error.message, answer.error.data);
    if (typeof answer.result !== 'string')
      throw new ResourceUnavailableError(`the producer at ${this.url} gave no hash`);
    return answer.result;
  }
}
