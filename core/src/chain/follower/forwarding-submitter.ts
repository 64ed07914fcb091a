import { bytesToHex, type PrefixedHexString } from '@ethereumjs/util';
import type { SubmitOptions, TxSubmitter } from '../../api/tx-submitter.js';
import { ResourceUnavailableError, RpcError } from '../../errors/rpc-error.js';
import type { FailFastLimiter } from '../../rpc/fail-fast-limiter.js';
import { ChainParams } from '../chain-params.js';
import { Rejections } from '../pool/rejections.js';
import { forwardLimit } from './forward-limit.js';

/** No forwarded call may hang the client waiting on it. */
const REQUEST_TIMEOUT_MS = 10_000;

interface RpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

interface RpcAnswer {
  readonly result?: unknown;
  readonly error?: unknown;
}

/** A JSON-RPC error object, to pass on as it is; anything else in its place is no answer. */
function isRpcErrorObject(error: unknown): error is RpcErrorObject {
  const candidate = error as Partial<RpcErrorObject> | null | undefined;
  return Number.isSafeInteger(candidate?.code) && typeof candidate?.message === 'string';
}

/**
 * A follower's `eth_sendRawTransaction`: sent to the producer's JSON-RPC endpoint, whose answer,
 * hash or error (code, message and data), is the follower's. The slow mode is the producer's:
 * its answer comes after its block commits when it runs in that mode.
 */
export class ForwardingSubmitter implements TxSubmitter {
  #nextId = 1;
  readonly #limit: FailFastLimiter;

  constructor(
    private readonly url: string,
    clientShare: number,
  ) {
    this.#limit = forwardLimit(clientShare);
  }

  async submit(raw: Uint8Array, _waitForCommit: boolean, options: SubmitOptions = {}): Promise<PrefixedHexString> {
    // The producer would refuse it: not worth a forward of up to a request's 5 MiB.
    if (raw.length > ChainParams.maxTxBytes) throw Rejections.oversized(raw.length, ChainParams.maxTxBytes);
    return this.#limit.run('eth_sendRawTransaction', options.clientId, () => this.#forward(raw));
  }

  async #forward(raw: Uint8Array): Promise<PrefixedHexString> {
    let answer: RpcAnswer | null;
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
      answer = (await response.json()) as RpcAnswer | null;
    } catch (error) {
      throw new ResourceUnavailableError(`the producer at ${this.url} cannot be reached: ${(error as Error).message}`);
    }
    // A proxy's answer of its own (`null`, `{"error": "busy"}`) is no hash, and no error to pass on.
    const { result, error } = answer ?? {};
    if (isRpcErrorObject(error)) throw new RpcError(error.code, error.message, error.data);
    if (typeof result !== 'string' || !/^0x[0-9a-f]{64}$/.test(result))
      throw new ResourceUnavailableError(`the producer at ${this.url} gave no hash`);
    return result as PrefixedHexString;
  }
}
