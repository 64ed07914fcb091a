import WebSocket from 'ws';
import type { NativeCheckResult } from '../native/native-types.js';
import { forwardLimit } from './forward-limit.js';
import type { FailFastLimiter } from '../../rpc/fail-fast-limiter.js';
import { parseRequestJson } from '../../rpc/request-json.js';

/** What the follower reads of a CometBFT 0.38 `block` answer. */
export interface CometBlock {
  readonly block_id: { readonly hash: string };
  readonly block: {
    readonly header: { readonly height: string; readonly time: string; readonly proposer_address: string };
    readonly data: { readonly txs: readonly string[] | null };
  };
}

/**
 * `value` when it has every field of a {@link CometBlock} the follower reads, with its type. What
 * comes from the producer is checked before use: a push or an answer of another shape (a proxy's
 * error page, a message of another version) must not throw where no one catches it.
 */
function asCometBlock(value: unknown): CometBlock | undefined {
  const candidate = value as { block_id?: { hash?: unknown }; block?: Partial<CometBlock['block']> } | null;
  const header = candidate?.block?.header as Record<string, unknown> | undefined;
  const txs = (candidate?.block?.data as { txs?: unknown } | undefined)?.txs;
  const wellFormed =
    typeof candidate?.block_id?.hash === 'string' &&
    typeof header?.height === 'string' &&
    typeof header.time === 'string' &&
    typeof header.proposer_address === 'string' &&
    (txs === null || (Array.isArray(txs) && txs.every((tx) => typeof tx === 'string')));
  return wellFormed ? (value as CometBlock) : undefined;
}

/** A new-block event's block, or undefined for any other message: not JSON, or of another shape. */
async function pushedBlock(message: Buffer): Promise<CometBlock | undefined> {
  // A new-block event's data holds the block as `block` serves it, and its results.
  let event: { result?: { data?: { value?: unknown } } } | null;
  try {
    event = (await parseRequestJson(message)) as typeof event;
  } catch {
    return undefined;
  }
  const pushed = asCometBlock(event?.result?.data?.value);
  // The event's other fields (the block's results) are not kept.
  return pushed === undefined ? undefined : { block: pushed.block, block_id: pushed.block_id };
}

/**
 * The most an answer or a push of the producer may weigh: a block of 60M gas holds at most about
 * 15 MB of transactions. A larger one is refused unread; it held the follower's thread for
 * seconds and its memory at gigabytes. What is read is parsed as requests are
 * (`parseRequestJson`: long ones checked off the thread first, nesting and values bounded).
 */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/** The subscription query of new blocks. */
const NEW_BLOCK_QUERY = "tm.event='NewBlock'";

/** CometBFT's `ResultBroadcastTx`. */
interface BroadcastResult {
  readonly code: number;
  readonly log: string;
  readonly codespace: string;
  readonly hash: string;
}

function isBroadcastResult(result: Partial<BroadcastResult> | null): result is BroadcastResult {
  return (
    Number.isSafeInteger(result?.code) &&
    typeof result?.log === 'string' &&
    typeof result.codespace === 'string' &&
    typeof result.hash === 'string' &&
    /^[0-9a-fA-F]{64}$/.test(result.hash)
  );
}

/** No call to the producer may hang the follower. */
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * What a JSON-RPC error says: CometBFT puts the detail in `data` and a fixed text in `message`;
 * an error of another shape is quoted as it came, shortened.
 */
function errorText(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { data, message } = error as { data?: unknown; message?: unknown };
    if (typeof data === 'string') return data;
    if (typeof message === 'string') return message;
  }
  return (JSON.stringify(error) ?? String(error)).slice(0, 200);
}

/** The producer's native gateway, as a follower uses it: its head, its blocks one by one, and broadcasts. */
export class UpstreamGateway {
  #nextId = 1;
  readonly #broadcasts: FailFastLimiter;

  constructor(
    readonly url: string,
    /** `[evm] max_client_share`: one client's share of the broadcasts forwarded at once. */
    clientShare: number,
  ) {
    this.#broadcasts = forwardLimit(clientShare);
  }

  /** The producer's head height. */
  async latestHeight(): Promise<number> {
    const status = await this.#call<{ sync_info?: { latest_block_height?: unknown } } | null>('status', {});
    const height = status?.sync_info?.latest_block_height;
    if (typeof height !== 'string' || !/^\d+$/.test(height))
      throw new Error(`status at ${this.url}: no latest block height in the answer`);
    return Number(height);
  }

  async block(height: number): Promise<CometBlock> {
    const block = asCometBlock(await this.#call<unknown>('block', { height: String(height) }));
    if (block === undefined) throw new Error(`block ${height} at ${this.url}: the answer is not a block`);
    return block;
  }

  /**
   * Calls `onBlock` with each block the producer commits, pushed over its
   * `/websocket` subscription to `tm.event='NewBlock'`, until `signal` aborts; a dropped
   * connection is opened again after `retryMs`. Other messages are ignored: the follower's polls
   * find every block without them.
   */
  watchNewBlocks(onBlock: (block: CometBlock) => void, retryMs: number, signal: AbortSignal): void {
    if (signal.aborted) return;
    const socket = new WebSocket(`${this.url.replace(/^http/, 'ws').replace(/\/$/, '')}/websocket`, {
      maxPayload: MAX_ANSWER_BYTES,
    });
    const stop = () => socket.terminate();
    signal.addEventListener('abort', stop, { once: true });
    socket.on('open', () =>
      socket.send(
        JSON.stringify({ jsonrpc: '2.0', id: 'new-blocks', method: 'subscribe', params: { query: NEW_BLOCK_QUERY } }),
      ),
    );
    socket.on('message', (data: Buffer) => {
      void pushedBlock(data).then((block) => {
        if (block !== undefined && !signal.aborted) onBlock(block);
      });
    });
    socket.on('error', () => socket.terminate());
    socket.on('close', () => {
      signal.removeEventListener('abort', stop);
      if (!signal.aborted) setTimeout(() => this.watchNewBlocks(onBlock, retryMs, signal), retryMs).unref();
    });
  }

  /** `broadcast_tx_sync`: the producer's admission check of a native transaction, sent for `clientId`. */
  async broadcast(raw: Uint8Array, clientId: string | undefined): Promise<NativeCheckResult> {
    const result = await this.#broadcasts.run('broadcast_tx_sync', clientId, () =>
      this.#call<Partial<BroadcastResult> | null>('broadcast_tx_sync', { tx: Buffer.from(raw).toString('base64') }),
    );
    if (!isBroadcastResult(result)) throw new Error(`broadcast_tx_sync at ${this.url}: the answer is not a result`);
    return {
      hash: Buffer.from(result.hash, 'hex'),
      code: result.code,
      codespace: result.codespace,
      log: result.log,
      // CometBFT's broadcast answer carries no gas figures.
      gasWanted: 0n,
      gasUsed: 0n,
    };
  }

  async #call<T>(method: string, params: object): Promise<T> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: this.#nextId++, method, params }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const body = await cappedBody(response, method, this.url);
    let answer: { result?: T; error?: unknown } | null;
    try {
      answer = (await parseRequestJson(body)) as typeof answer;
    } catch (error) {
      throw new Error(`${method} at ${this.url}: ${(error as Error).message}`);
    }
    if (answer === null || typeof answer !== 'object')
      throw new Error(`${method} at ${this.url}: not a JSON-RPC answer`);
    if (answer.error !== undefined) throw new Error(`${method} at ${this.url}: ${errorText(answer.error)}`);
    return answer.result as T;
  }
}

/** The body of `response`, read up to {@link MAX_ANSWER_BYTES}: past them the answer is refused and its reading stopped. */
async function cappedBody(response: Response, method: string, url: string): Promise<Buffer> {
  if (response.body === null) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  // Leaving the loop by a throw cancels the stream.
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    if (bytes > MAX_ANSWER_BYTES) throw new Error(`${method} at ${url}: the answer passes ${MAX_ANSWER_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, bytes);
}
