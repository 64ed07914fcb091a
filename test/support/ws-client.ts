import WebSocket from 'ws';

/** A WebSocket client that reads answers by id and keeps notifications and the close code. */
export class WsClient {
  readonly notifications: any[] = [];
  readonly #waiting = new Map<unknown, (message: any) => void>();
  readonly #unmatched: any[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly socket: WebSocket) {
    this.closed = new Promise((resolve) =>
      socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    socket.on('message', (data) => {
      const text = Array.isArray(data) ? Buffer.concat(data).toString() : Buffer.from(data as ArrayBuffer).toString();
      const message = JSON.parse(text);
      if (!Array.isArray(message) && message.method !== undefined && message.id === undefined) {
        this.notifications.push(message);
        return;
      }
      const id = Array.isArray(message) ? 'batch' : message.id;
      const resolve = this.#waiting.get(id);
      if (resolve === undefined) this.#unmatched.push(message);
      else {
        this.#waiting.delete(id);
        resolve(message);
      }
    });
  }

  /** Connects to `url`, from `localAddress` when given (another loopback address is another client). */
  static async connect(url: string, headers: Record<string, string> = {}, localAddress?: string): Promise<WsClient> {
    const socket = new WebSocket(url, { headers, ...(localAddress && { localAddress }) });
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    return new WsClient(socket);
  }

  /** Sends raw text and waits for the answer with `id` ('batch' for a batch answer, null for an id-less error). */
  request(text: string, id: unknown): Promise<any> {
    const answer = new Promise<any>((resolve) => this.#waiting.set(id, resolve));
    this.socket.send(text);
    return answer;
  }

  call(method: string, params: unknown[] = [], id: unknown = 1): Promise<any> {
    return this.request(JSON.stringify({ jsonrpc: '2.0', id, method, params }), id);
  }

  /** Waits until `count` notifications have arrived. */
  async notificationsAtLeast(count: number): Promise<any[]> {
    while (this.notifications.length < count) await new Promise((resolve) => setTimeout(resolve, 5));
    return this.notifications;
  }

  close(): void {
    this.socket.close();
  }
}
