import { readFileSync } from 'node:fs';
import type { Server, Socket } from 'node:net';
import { clientOf } from './peer-address.js';
import { destroyWithOneError } from './socket-errors.js';

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
 * The connections of every server of the process together (HTTP, WebSocket, the native gateway):
 * what the open-files limit leaves past the descriptors the node needs itself (RocksDB keeps up to
 * 1,000 files open). A port's own cap does not see the others: two ports of 10,000 each took all
 * 20,000 descriptors of a process, RocksDB could then not open its next log file, and block
 * production stopped for good.
 */
export const PROCESS_CONNECTION_LIMIT = connectionBudget(openFilesLimit());

/** Descriptors kept for the node's own files, threads and outgoing connections. */
const RESERVED_DESCRIPTORS = 1200;

function connectionBudget(openFiles: number): number {
  return openFiles >= 2 * RESERVED_DESCRIPTORS ? openFiles - RESERVED_DESCRIPTORS : Math.floor(openFiles / 2);
}

/** The process's soft limit on open files (Linux's `/proc/self/limits`); infinite when unknown or unlimited. */
function openFilesLimit(): number {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((row) => row.startsWith('Max open files'));
    const soft = Number(line?.split(/\s{2,}/)[1]);
    return Number.isFinite(soft) && soft > 0 ? soft : Number.POSITIVE_INFINITY;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

let processOpen = 0;

/**
 * Caps the open connections of a server (node:http, ws, or any `net` server), in all and per
 * client (an IPv4 address, or an IPv6 /64): a connection over either cap is destroyed as soon as it is accepted, before a
 * byte of it is read, so that no client can hold every file descriptor of the process.
 * An admitted connection is destroyed with an error, whoever destroys it ({@link destroyWithOneError}).
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
    if (
      this.#open >= this.options.maxOpen ||
      fromAddress >= this.options.maxPerAddress ||
      processOpen >= PROCESS_CONNECTION_LIMIT
    ) {
      socket.destroy();
      return false;
    }
    destroyWithOneError(socket);
    this.#open++;
    processOpen++;
    this.#perAddress.set(address, fromAddress + 1);
    socket.once('close', () => {
      this.#open--;
      processOpen--;
      const left = this.#perAddress.get(address)! - 1;
      if (left === 0) this.#perAddress.delete(address);
      else this.#perAddress.set(address, left);
    });
    return true;
  }
}
