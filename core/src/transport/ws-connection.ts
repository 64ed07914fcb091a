import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { Connection, ConnectionStateKey } from '../rpc/request-context.js';
import { wsFragments, type ResponseBody } from '../rpc/response-text.js';
import type { HeldAnswers } from './held-answers.js';

/**
 * Bytes a client may leave unread before it is disconnected: a slow consumer is dropped rather
 * than buffered without bound.
 */
export const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

/** The WebSocket close code for a client that asked more than the node gives one. */
const POLICY_VIOLATION = 1008;

/** A WebSocket client with its connection-scoped state. */
export class WsConnection implements Connection {
  readonly #state = new Map<ConnectionStateKey<unknown>, unknown>();
  readonly #closeListeners: (() => void)[] = [];
  #open = true;
  /** Dropped for not reading: closed, though its close event is still to come. */
  #dropped = false;

  constructor(
    readonly id: string,
    private readonly socket: WebSocket,
    /** The connection `socket` speaks on. */
    private readonly upgraded: Duplex,
    private readonly heldAnswers: HeldAnswers,
  ) {}

  /** False from the moment the socket starts closing (a slow consumer dropped, too), before its close event. */
  get isOpen(): boolean {
    return this.#open && !this.#dropped && this.socket.readyState === this.socket.OPEN;
  }

  /** Sends a response as it is, always as a text frame. */
  send(text: ResponseBody): boolean {
    if (!this.isOpen) return false;
    if (this.socket.bufferedAmount > MAX_BUFFERED_BYTES) {
      this.#drop();
      return false;
    }
    // All fragments go out in this turn: a message sent meanwhile would be taken for their continuation.
    const fragments = wsFragments(text);
    fragments.forEach((fragment, index) =>
      this.heldAnswers.sendWs(this.socket, fragment, index === fragments.length - 1),
    );
    return true;
  }

  notify(method: string, params: unknown): boolean {
    return this.send(`{"jsonrpc":"2.0","method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}`);
  }

  state<T>(key: ConnectionStateKey<T>): T {
    if (!this.#state.has(key)) this.#state.set(key, key.create());
    return this.#state.get(key) as T;
  }

  onClose(listener: () => void): void {
    if (this.#open) this.#closeListeners.push(listener);
    else listener();
  }

  close(reason: string): void {
    if (this.isOpen) this.socket.close(POLICY_VIOLATION, reason);
  }

  /**
   * Drops a client that does not read: its socket is destroyed with one error, which every write
   * still buffered gets (ws's `terminate()` made Node build an error for each: 140 ms for the
   * 40,000 notifications of 16 MiB).
   */
  #drop(): void {
    this.#dropped = true;
    this.upgraded.destroy(new Error('WebSocket client too slow: its unread messages passed the limit'));
  }

  /** Called once by the transport when the socket closes. */
  closed(): void {
    if (!this.#open) return;
    this.#open = false;
    for (const listener of this.#closeListeners.splice(0)) listener();
    this.#state.clear();
  }
}
