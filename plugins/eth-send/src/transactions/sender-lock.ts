/**
 * Runs one sender's tasks one at a time, as geth's nonce lock does: two `eth_sendTransaction`
 * calls without a nonce must not both take the same pending nonce.
 */
export class SenderLock {
  readonly #tails = new Map<string, Promise<unknown>>();

  async run<T>(sender: string, task: () => Promise<T>): Promise<T> {
    const result = (this.#tails.get(sender) ?? Promise.resolve()).then(task);
    const tail = result.catch(() => undefined);
    this.#tails.set(sender, tail);
    try {
      return await result;
    } finally {
      if (this.#tails.get(sender) === tail) this.#tails.delete(sender);
    }
  }
}
