import type { Transport } from './define-method.js';

/** A typed key for state a plugin keeps on a WebSocket connection. */
export interface ConnectionStateKey<T> {
  readonly description: string;
  /** Creates the state the first time a connection needs it. */
  readonly create: () => T;
}

/** A persistent client connection (WebSocket), for methods that push notifications later. */
export interface Connection {
  readonly id: string;
  /** Whether the connection is still open. */
  readonly isOpen: boolean;
  /**
   * Sends `{"jsonrpc":"2.0","method":method,"params":params}`. Returns false when the connection is
   * closed or the client is too slow and has been disconnected.
   */
  notify(method: string, params: unknown): boolean;
  /** The connection's state for `key`, created on first use and dropped with the connection. */
  state<T>(key: ConnectionStateKey<T>): T;
  /** Runs `listener` once when the connection closes. */
  onClose(listener: () => void): void;
  /**
   * Closes the connection for asking more than the node gives one client (WebSocket close code
   * 1008, `reason` at most 123 bytes); `isOpen` is false at once, `onClose` listeners run once it
   * has closed.
   */
  close(reason: string): void;
}

/** What a handler and the request hooks know about the request a call belongs to. */
export interface RequestContext {
  readonly transport: Transport;
  /** Correlates log lines of one HTTP request or WebSocket message. */
  readonly requestId: string;
  /**
   * Who is asking, for per-client shares of the node's resources: the peer's address, an IPv6
   * one by its /64 (`clientOf`), over HTTP and WebSocket alike, so that a client's connections
   * share one share.
   */
  readonly clientId: string;
  /** The WebSocket connection, or undefined over HTTP. */
  readonly connection: Connection | undefined;
  /**
   * The `Origin` header of the HTTP request, or of the WebSocket connection's upgrade request:
   * the web page a browser sent it for; undefined when the client is no browser (curl, scripts).
   */
  readonly origin: string | undefined;
  /**
   * Aborted when the request's deadline (`write_timeout` - 100 ms) passes, or when its client
   * closes the connection (HTTP or WebSocket) before the answer.
   */
  readonly signal: AbortSignal;
  /**
   * Sets a header of the HTTP response (once per name, however many calls of a batch set it);
   * ignored over WebSocket.
   */
  setResponseHeader(name: string, value: string, options?: ResponseHeaderOptions): void;
}

export interface ResponseHeaderOptions {
  /** The response carrying this header is sent uncompressed, whatever the client accepts. */
  readonly uncompressed?: boolean;
}

export function defineConnectionState<T>(description: string, create: () => T): ConnectionStateKey<T> {
  return { description, create };
}
