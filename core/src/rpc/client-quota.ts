/** Most units of `total` one client may hold with `share` of them: rounded up, so at least one. */
export function clientShareOf(total: number, share: number): number {
  return Math.max(1, Math.ceil(total * share));
}

/**
 * Counts what each client holds of a shared resource (filters, simulation or trace slots), so that
 * one client may hold at most `max_client_share` of it and cannot lock the others out.
 */
export class ClientQuota {
  readonly #held = new Map<string, number>();
  /** Most units one client may hold. */
  readonly perClient: number;

  constructor(total: number, share: number) {
    this.perClient = clientShareOf(total, share);
  }

  /** Takes one unit for `clientId`; false when the client already holds its share. */
  tryAcquire(clientId: string): boolean {
    const held = this.#held.get(clientId) ?? 0;
    if (held >= this.perClient) return false;
    this.#held.set(clientId, held + 1);
    return true;
  }

  /** Gives back a unit taken by `tryAcquire`. */
  release(clientId: string): void {
    const held = this.#held.get(clientId) ?? 0;
    // Clients holding nothing are forgotten, so the map stays as small as the set of active clients.
    if (held <= 1) this.#held.delete(clientId);
    else this.#held.set(clientId, held - 1);
  }
}
