import WebSocket from 'ws';
import type { NativeCheckResult } from '../native/native-types.js';

/** What the follower reads of a CometBFT 0.38 `block` answer. */
export interface CometBlock {
  readonly block_id: { readonly hash: string };
  readonly block: {
    readonly header: { readonly height: string; readonly time: string; readonly proposer_address: string };
    readonly data: { readonly txs: readonly string[] | null };
  };
}

/** The subscription query of new blocks. */
const NEW_BLOCK_QUERY = "tm.event='NewBlock'";

/** A new-block event's data: the block as `block` serves it. */
interface NewBlockEventData {
  readonly value?: Partial<CometBlock>;
}

/** CometBFT's `ResultBroadcastTx`. */
interface BroadcastResult {
  readonly code: number;
  readonly log: string;
  readonly codespace: string;
  readonly hash: string;
}

/** No call to the producer may hang the follower. */
const REQUEST_TIMEOUT_MS = 10_000;

/** The producer's native gateway, as a follower uses it: its head, its blocks one by one, and broadcasts. */
export class UpstreamGateway {
  #nextId = 1;

  constructor(readonly url: string) {}

  /** The producer's head height. */
  async latestHeight(): Promise<number> {
    const status = await this.#call<{ sync_info: { latest_block_height: string } }>('status', {});
    return Number(status.sync_info.latest_block_height);
  }

  block(height: number): Promise<CometBlock> {
    return this.#call<CometBlock>('block', { height: String(height) });
  }

  /**
   * Calls `onBlock` with each block the producer commits, pushed over its
   * `/websocket` subscription to `tm.event='NewBlock'`, until `signal` aborts; a dropped
   * connection is opened again after `retryMs`.
   */
  watchNewBlocks(onBlock: (block: CometBlock) => void, retryMs: number, signal: AbortSignal): void {
    if (signal.aborted) return;
    const socket = new WebSocket(`${this.url.replace(/^http/, 'ws').replace(/\/$/, '')}/websocket`);
    const stop = () => socket.terminate();
    signal.addEventListener('abort', stop, { once: true });
    socket.on('open', () =>
      socket.send(
        JSON.stringify({ jsonrpc: '2.0', id: 'new-blocks', method: 'subscribe', params: { query: NEW_BLOCK_QUERY } }),
      ),
    );
    socket.on('message', (data: Buffer) => {
      const event = JSON.parse(data.toString('utf8')) as { result?: { data?: NewBlockEventData } };
      const value = event.result?.data?.value;
      if (value?.block !== undefined && value.block_id !== undefined)
        onBlock({ block: value.block, block_id: value.block_id });
    });
    socket.on('error', () => socket.terminate());
    socket.on('close', () => {
      signal.removeEventListener('abort', stop);
      if (!signal.aborted) setTimeout(() => this.watchNewBlocks(onBlock, retryMs, signal), retryMs).unref();
    });
  }

  /** `broadcast_tx_sync`: the producer's admission check of a native transaction. */
  async broadcast(raw: Uint8Array): Promise<NativeCheckResult> {
    const result = await this.#call<BroadcastResult>('broadcast_tx_sync', { tx: Buffer.from(raw).toString('base64') });
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
    const answer = (await response.json()) as { result?: T; error?: { message: string; data?: string } };
    if (answer.error !== undefined)
      throw new Error(`${method} at ${this.url}: ${answer.error.data ?? answer.error.message}`);
    return answer.result as T;
  }
}
