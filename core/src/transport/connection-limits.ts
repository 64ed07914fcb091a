import type { Server, Socket } from 'node:net';
import { clientOf } from './peer-address.js';

/**
 * Requests (HTTP) or messages (WebSocket) one connection may have in flight before it stops being
 * read, until one is answered: a client that pipelines slow calls cannot start any number of them.
 */
export const MAX_IN_FLIGHT_PER_CONNECTION = 64;

/** Caps on the connections one port holds open. */
export interface ConnectionLimitOptions {
  /** Most connections open at once, from every client together. */
  readonly maxOpen: number;
  /** Most connections open at once from one client: an IPv4 address, or an IPv6 /64 ({@link clientOf}). */
  readonly maxPerAddress: number;
}

/**
 * Caps the open connections of a server (node:http, ws, or any `net` server), in all and per
 * client (an IPv4 address, or an IPv6 /64): a connection over either cap is destroyed as soon as it is accepted, before a
 * byte of it is read, so that no client can hold every file descriptor of the process.
 *
 * @example
 * const limits = new ConnectionLimits({ maxOpen: 10_000, maxPerAddress: 1_000 });
 * limits.attach(server); // before server.listen()
 */
export class ConnectionLimits {
  readonly #perAddress = new Map<string, number>();
  #open = 0;

  constructor(private readonly options: ConnectionLimitOptions) {}

  /** Counts `server`'s connections from now on and refuses those over a cap. */
  attach(server: Server): this {
    server.on('connection', (socket: Socket) => this.admit(socket));
    return this;
  }

  /** Counts `socket` until it closes, or destroys it when a cap is reached; returns whether it was admitted. */
  admit(socket: Socket): boolean {
    const address = clientOf(socket.remoteAddress);
    const fromAddress = this.#perAddress.get(address) ?? 0;
    if (this.#open >= this.options.maxOpen || fromAddress >= this.options.maxPerAddress) {
      socket.destroy();
      return false;
    }
    this.#open++;
    this.#perAddress.set(address, fromAddress + 1);
    socket.once('close', () => {
      this.#open--;
      const left = this.#perAddress.get(address)! - 1;
      if (left === 0) this.#perAddress.delete(address);
      else this.#perAddress.set(address, left);
    });
    return true;
  }
}
