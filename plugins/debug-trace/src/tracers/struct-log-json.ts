import { JsonChunks } from './json-chunks.js';
import { RoomShare } from './room-share.js';
import type { ResultRoom } from './tracer.js';

/** A step, with about what it weighs as JSON. */
interface Weighed<Log> {
  readonly log: Log;
  readonly bytes: number;
}

/** A call frame still open: its last step, and what its sub-calls logged after that step. */
interface OpenFrame<Log> {
  last: Weighed<Log> | undefined;
  after: JsonChunks;
}

/**
 * A trace's struct logs made JSON while they are recorded, a chunk of steps at a time, so that a
 * trace holds bytes off the JS heap rather than an object per step. A step is not written while it
 * is the last of its call frame: geth shows a failure found before an opcode ran (out of gas, a
 * stack error) on that step, and it is known only when the frame exits. Frames nest, so what a
 * sub-call logs is kept apart until the step before it (the CALL) is written.
 */
export class StructLogJson<Log> {
  readonly #frames: OpenFrame<Log>[] = [];
  /** The room the logs' bytes took. */
  readonly #room: RoomShare;
  #written: JsonChunks;
  #count = 0;
  #refused = false;

  /**
   * `written` gives a step, once final, as it is to be made JSON: itself, or its JSON bytes
   * ({@link JsonChunks.append}).
   */
  constructor(
    room: ResultRoom,
    private readonly written: (log: Log) => unknown = (log) => log,
  ) {
    this.#room = new RoomShare(room);
    this.#written = new JsonChunks(this.#room);
  }

  /** Steps recorded so far. */
  get count(): number {
    return this.#count;
  }

  /** Whether the room refused bytes: the logs are then incomplete, and nothing more is kept. */
  get refused(): boolean {
    return this.#refused;
  }

  /** A call frame opens; its steps come after the last step of the frame that opened it. */
  enter(): void {
    // The frame paused here writes nothing until the sub-call returns: the steps it holds become bytes now.
    const paused = this.#frames.length - 1;
    if (paused >= 0) this.#check(this.#segmentOf(paused).seal());
    this.#frames.push({ last: undefined, after: new JsonChunks(this.#room) });
  }

  /** A step of the innermost frame, of about `bytes` as JSON. */
  add(log: Log, bytes: number): void {
    this.#count++;
    if (this.#refused) return;
    const depth = this.#frames.length - 1;
    const frame = this.#frames[depth]!;
    if (frame.last !== undefined) this.#write(depth, frame.last);
    frame.last = { log, bytes };
  }

  /** The innermost frame exits; `complete` gives its last step as it is to be written. */
  exit(complete: (last: Log) => Log = (last) => last): void {
    const depth = this.#frames.length - 1;
    const frame = this.#frames[depth]!;
    if (!this.#refused && frame.last !== undefined) {
      this.#write(depth, { log: complete(frame.last.log), bytes: frame.last.bytes });
    }
    this.#frames.pop();
  }

  /**
   * `prefix`, the JSON array of all the steps and `suffix`, once every frame has exited, in pieces
   * whose bytes are then the caller's to count: the room they took is given back. Undefined when
   * the room refused the logs.
   */
  json(prefix: string, suffix: string): Buffer[] | undefined {
    if (this.#refused || !this.#written.seal()) return undefined;
    this.#room.release();
    return [Buffer.from(prefix), ...this.#written.array(), Buffer.from(suffix)];
  }

  /** Writes `step`, the last of frame `depth`, then what its sub-calls logged after it. */
  #write(depth: number, step: Weighed<Log>): void {
    const frame = this.#frames[depth]!;
    const segment = this.#segmentOf(depth);
    this.#check(segment.append(this.written(step.log), step.bytes) && segment.appendAll(frame.after));
  }

  /** Where the steps of frame `depth` are written: after the last step of the frame that opened it. */
  #segmentOf(depth: number): JsonChunks {
    return depth === 0 ? this.#written : this.#frames[depth - 1]!.after;
  }

  /** On a refusal, drops all the logs and gives back their room at once, for other traces to go on. */
  #check(found: boolean): void {
    if (found || this.#refused) return;
    this.#refused = true;
    this.#written = new JsonChunks(this.#room);
    for (const frame of this.#frames) {
      frame.last = undefined;
      frame.after = new JsonChunks(this.#room);
    }
    this.#room.release();
  }
}
