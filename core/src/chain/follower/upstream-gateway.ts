/** What the follower reads of a CometBFT 0.38 `block` answer. */
export interface CometBlock {
  readonly block_id: { readonly hash: string };
  readonly block: {
    readonly header: { readonly height: string; readonly time: string; readonly proposer_address: string };
    readonly data: { readonly txs: readonly string[] | null };
  };
}

/** No call to the producer may hang the follower. */
const REQUEST_TIMEOUT_MS = 10_000;

/** The producer's native gateway, as a follower reads it: its head, and its blocks one by one. */
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
