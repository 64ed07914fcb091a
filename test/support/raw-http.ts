import { connect, type Socket } from 'node:net';

/** A JSON-RPC call as a request body. */
export function call(method: string, params: unknown[] = [], id = 1): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

/** A JSON-RPC POST written by hand, with its Content-Length. */
export function post(body: string, extraHeaders = ''): string {
  return (
    `POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n${extraHeaders}\r\n${body}`
  );
}

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** A raw TCP client: HTTP/1.1 written by hand, everything read kept as text. */
export class RawClient {
  readonly #socket: Socket;
  #received = '';
  #closed = false;
  readonly ended: Promise<void>;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.setEncoding('latin1');
    socket.on('data', (text: string) => (this.#received += text));
    // A reset by the server (a refused or aborted connection) is a close like any other here.
    socket.on('error', () => undefined);
    this.ended = new Promise((resolve) =>
      socket.once('close', () => {
        this.#closed = true;
        resolve();
      }),
    );
  }

  /** Connects to the host and port of `url`, from `localAddress` when given (any of 127.0.0.0/8). */
  static open(url: string, localAddress?: string): Promise<RawClient> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      // An IPv6 URL's hostname keeps its brackets.
      const host = hostname.replace(/^\[(.*)\]$/, '$1');
      const socket = connect({ port: Number(port), host, ...(localAddress && { localAddress }) }, () =>
        resolve(new RawClient(socket)),
      );
      socket.once('error', reject);
    });
  }

  /** Everything read so far. */
  get received(): string {
    return this.#received;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Writes; false once the socket's buffer is full (see {@link RawClient.writeUntilStalled}). */
  write(text: string | Buffer): boolean {
    return this.#socket.write(text);
  }

  /**
   * Writes `next()` again and again, as fast as the server reads, until it returns undefined, the
   * socket closes, or nothing was taken for `stallMs`; resolves to the bytes written.
   */
  async writeUntilStalled(next: () => string | undefined, stallMs = 1000): Promise<number> {
    let written = 0;
    for (;;) {
      const block = next();
      if (block === undefined || this.#closed) return written;
      written += Buffer.byteLength(block);
      if (this.#socket.write(block)) continue;
      const drained = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), stallMs);
        const done = (): void => {
          clearTimeout(timer);
          resolve(!this.#closed);
        };
        this.#socket.once('drain', done);
        void this.ended.then(done);
      });
      if (!drained) return written;
    }
  }

  /** Waits until `count` complete responses have arrived and returns them, with bodies. */
  async responses(count: number, timeoutMs = 5000): Promise<RawResponse[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = parseResponses(this.#received);
      if (parsed.length >= count) return parsed;
      if (Date.now() > deadline) throw new Error(`got ${parsed.length} of ${count} responses: ${this.#received}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Stops reading what the server sends: it stays in the server's buffers and the kernel's. */
  stopReading(): void {
    this.#socket.pause();
  }

  /** Half-closes: no more bytes will be sent. */
  end(): void {
    this.#socket.end();
  }

  destroy(): void {
    this.#socket.destroy();
  }
}

/** Responses with a Content-Length (the node always sends one), in order. */
export function parseResponses(text: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = text;
  for (;;) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd === -1) return responses;
    const [statusLine, ...lines] = rest.slice(0, headEnd).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const status = Number(statusLine!.split(' ')[1]);
    const length = Number(headers['content-length'] ?? 0);
    if (rest.length < headEnd + 4 + length) return responses;
    responses.push({ status, headers, body: rest.slice(headEnd + 4, headEnd + 4 + length) });
    rest = rest.slice(headEnd + 4 + length);
  }
}
