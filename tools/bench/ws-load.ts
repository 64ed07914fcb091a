import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { chainIdRequest, readAnswer } from './chain-id-call.js';
import { toLoadResult, type LoadResult } from './load-result.js';

/** How long answers still in flight at the end may take before they count as lost. */
const DRAIN_MS = 5_000;

/**
 * Drives `eth_chainId` over `connections` WebSockets, keeping `inFlight` requests outstanding in total
 * (spread evenly): each answer immediately frees its slot for a new request on the same socket.
 */
export async function runWsLoad(
  url: string,
  chainId: string,
  connections: number,
  inFlight: number,
  seconds: number,
): Promise<LoadResult> {
  const sockets = await Promise.all(Array.from({ length: connections }, () => openSocket(url)));
  const sentAt = new Map<number, bigint>(); // unique id -> send time
  const latenciesMs: number[] = [];
  let nextId = 1;
  let errors = 0;
  let running = true;
  let markDrained = (): void => {};
  const drained = new Promise<void>((resolve) => (markDrained = resolve));

  const send = (socket: WebSocket): void => {
    const id = nextId++;
    sentAt.set(id, process.hrtime.bigint());
    socket.send(chainIdRequest(id));
  };
  for (const socket of sockets) {
    socket.on('message', (data) => {
      const now = process.hrtime.bigint();
      const answer = readAnswer(messageText(data));
      const id = typeof answer?.id === 'number' ? answer.id : undefined;
      const start = id === undefined ? undefined : sentAt.get(id);
      if (id === undefined || start === undefined) {
        errors++; // an answer to no pending request; that request, if any, counts as lost at the end
        return;
      }
      sentAt.delete(id);
      if (answer?.result === chainId) latenciesMs.push(Number(now - start) / 1e6);
      else errors++;
      if (running) send(socket);
      else if (sentAt.size === 0) markDrained();
    });
    socket.on('error', () => errors++);
  }

  const started = process.hrtime.bigint();
  for (let slot = 0; slot < inFlight; slot++) send(sockets[slot % sockets.length] as WebSocket);
  await sleep(seconds * 1000);
  running = false;
  await Promise.race([drained, sleep(DRAIN_MS, undefined, { ref: false })]);
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  for (const socket of sockets) socket.terminate();
  return toLoadResult(latenciesMs, elapsed, errors + sentAt.size);
}

function openSocket(url: string): Promise<WebSocket> {
  // No compression: the bench measures request handling, not deflate.
  const socket = new WebSocket(url, { perMessageDeflate: false });
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

function messageText(data: WebSocket.RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString();
  return Buffer.isBuffer(data) ? data.toString() : Buffer.from(data).toString();
}
