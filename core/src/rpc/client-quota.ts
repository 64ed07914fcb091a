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

  /** Takes `units` for `clientId`; false when they would take the client past its share. */
  tryAcquire(clientId: string, units = 1): boolean {
    const held = this.#held.get(clientId) ?? 0;
    if (held + units > this.perClient) return false;
    this.#held.set(clientId, held + units);
    return true;
  }

  /** Gives back `units` taken by `tryAcquire`. */
  release(clientId: string, units = 1): void {
    const held = this.#held.get(clientId) ?? 0;
    // Clients holding nothing are forgotten, so the map stays as small as the set of active clients.
    if (held <= units) this.#held.delete(clientId);
    else this.#held.set(clientId, held - units);
  }
}
