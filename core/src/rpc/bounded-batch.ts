import { clientShareOf } from './client-quota.js';
import { EventLoopTurns, type Turns } from './event-loop-turns.js';
import { FairSlots } from './fair-slots.js';
import { lengthOf } from './raw-json.js';
import type { HeldAnswers } from '../transport/held-answers.js';

/**
 * Calls of one batch under way at once. Enough to overlap storage reads; few enough that a batch
 * of heavy calls holds little beyond its size cap and leaves the event loop to other clients.
 */
export const BATCH_CONCURRENCY = 4;

/**
 * Batches under way at once, of every port together; the others wait their turn, clients in turn
 * and each client's batches first come first served, and one client runs at most its share of them.
 * Each batch gives the event loop a turn every few milliseconds, but a thousand connections
 * each with a batch under way would each take a turn in every iteration of the loop and together
 * hold the answers of all their running calls. 32 is as many as a busy client pool keeps in flight
 * (bench:methods' batch row loses nothing to it; at 16 its p99 doubled).
 */
export const MAX_BATCHES_UNDER_WAY = 32;
const batchSlots = new FairSlots(MAX_BATCHES_UNDER_WAY);

/** Who sends a batch: batches are shared out by client (a remote address over HTTP, a connection over WebSocket). */
export interface BatchClient {
  readonly id: string;
  /** `[evm] max_client_share`: the share of {@link MAX_BATCHES_UNDER_WAY} the client may run at once. */
  readonly share: number;
  /**
   * The remote address the batch came from, by which the node's thread is shared out (`ClientTurns`):
   * the batch's runs of calls take turns with the other work of other addresses. `id` when absent.
   */
  readonly address?: string;
}

/** The client of batches that name none: all of them together, with no share of their own. */
const UNNAMED_CLIENT: BatchClient = { id: '', share: 1 };

/** An answer with a length in bytes (response text), or in pieces that have one. */
type Sized = { readonly length: number } | readonly Uint8Array[];

const inPieces = (answer: Sized): answer is readonly Uint8Array[] => Array.isArray(answer);

function sizeOf(answer: Sized | undefined): number {
  if (answer === undefined) return 0;
  return inPieces(answer) ? lengthOf(answer) : answer.length;
}

export interface BoundedBatchOptions {
  /** Bytes of answers, counted in order, after which the calls that follow are not run. */
  readonly maxBytes: number;
  /** Time the batch may take, from its first asynchronous call; undefined: no limit. */
  readonly timeoutMs?: number;
  readonly concurrency?: number;
  /**
   * The node's bound on the answers it holds: each answer takes its room as it comes, and the
   * batch gives it all back when it ends. One that finds no room stops the batch ('busy').
   */
  readonly held?: HeldAnswers;
  /** Who sends the batch; batches naming none share slots as one client with no bound of its own. */
  readonly client?: BatchClient;
}

export interface BoundedBatchRun<T> {
  /** Answers by index; undefined where none came (a notification, or a call not run or not finished). */
  readonly answers: (T | undefined)[];
  /** Why the batch stopped before its end, if it did. */
  readonly stop: 'too-large' | 'timed-out' | 'busy' | undefined;
  /** The calls before this index were answered in order within `maxBytes` (the last one may pass it). */
  readonly counted: number;
  /** The calls from this index on were never started. */
  readonly next: number;
  /** Calls started and not finished when the batch stopped; their answers are no longer taken. */
  readonly running: readonly number[];
}

/**
 * Runs the `count` calls of a batch in order, at most `concurrency` at once, as geth runs a batch:
 * once the answers so far pass `maxBytes`, the calls that follow are not run, so that a batch
 * holds about that much whatever it asks for. Synchronous answers are taken at once, without a
 * promise turn each. A call starts only while fewer than `concurrency` started ones are not yet
 * counted, finished or not: behind one that is still running, answers given at once would
 * otherwise pile up uncounted, every call of the batch run (a batch of 1000 copies of a cached
 * full block, behind the first copy being built, held 1000 answers). `call` answers with
 * something that has a length in bytes (response text) or pieces that do, or undefined (a notification); its
 * promises must not reject. The batch first waits for one of {@link MAX_BATCHES_UNDER_WAY} slots
 * (of its client's share of them); the wait counts against `timeoutMs`, and a batch whose time
 * passes in it runs no call ('timed-out').
 */
export async function runBoundedBatch<T extends Sized>(
  count: number,
  call: (index: number) => T | undefined | Promise<T | undefined>,
  options: BoundedBatchOptions,
): Promise<BoundedBatchRun<T>> {
  const waitStart = performance.now();
  const client = options.client ?? UNNAMED_CLIENT;
  const slot = batchSlots.acquire(client.id, clientShareOf(MAX_BATCHES_UNDER_WAY, client.share), options.timeoutMs);
  if (slot !== true && !(await slot)) {
    // Its time passed while it waited: none of its calls ran.
    return { answers: new Array<T | undefined>(count), stop: 'timed-out', counted: 0, next: 0, running: [] };
  }
  const waited = performance.now() - waitStart;
  const left =
    options.timeoutMs === undefined ? options : { ...options, timeoutMs: Math.max(options.timeoutMs - waited, 1) };
  try {
    const threadClient = options.client === undefined ? undefined : (client.address ?? client.id);
    return await runInSlot(count, call, left, new EventLoopTurns(undefined, threadClient));
  } finally {
    batchSlots.release(client.id);
  }
}

/** {@link runBoundedBatch} once the batch has its slot. */
async function runInSlot<T extends Sized>(
  count: number,
  call: (index: number) => T | undefined | Promise<T | undefined>,
  { maxBytes, timeoutMs, concurrency = BATCH_CONCURRENCY, held }: BoundedBatchOptions,
  turns: Turns,
): Promise<BoundedBatchRun<T>> {
  const answers = new Array<T | undefined>(count);
  const running = new Set<number>();
  let size = 0;
  let counted = 0;
  let next = 0;
  let stop: BoundedBatchRun<T>['stop'];
  let done = false;
  let wake: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  let taken = 0;

  /** Keeps an answer, once the node has room for it. */
  const keep = (index: number, answer: T | undefined): void => {
    const bytes = sizeOf(answer);
    if (held !== undefined && bytes > 0) {
      if (!held.take(bytes)) {
        stop ??= 'busy';
        return;
      }
      taken += bytes;
    }
    answers[index] = answer;
  };

  const countAnswered = (): void => {
    while (counted < next && !running.has(counted) && stop === undefined) {
      size += sizeOf(answers[counted]);
      counted++;
      if (size > maxBytes) stop = 'too-large';
    }
  };
  // Calls answered at once, or through promises that settle without I/O, would otherwise run the
  // whole batch in one turn of the event loop: a thousand estimates held it for 175 ms.
  for (;;) {
    while (next < count && next - counted < concurrency && stop === undefined) {
      const index = next++;
      const answer = call(index);
      if (answer instanceof Promise) {
        running.add(index);
        void answer.then((value) => {
          if (done) return;
          keep(index, value);
          running.delete(index);
          wake?.();
        });
        if (timeoutMs !== undefined) {
          timer ??= setTimeout(() => {
            stop ??= 'timed-out';
            wake?.();
          }, timeoutMs);
        }
      } else {
        keep(index, answer);
      }
      countAnswered();
      const turn = turns.pause();
      if (turn !== undefined) {
        await turn;
        countAnswered();
      }
    }
    if (stop !== undefined || (running.size === 0 && next === count)) break;
    await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
    // Calls that finish while the batch waits for its turn are counted after it.
    await turns.pause();
    countAnswered();
  }
  done = true;
  clearTimeout(timer);
  held?.give(taken);
  return { answers, stop, counted, next, running: [...running] };
}
