/**
 * What the node's thread and a JS tracer's sandbox thread tell each other, through shared memory:
 * one side posts a state and the other, waiting on it, answers. A post costs about a microsecond
 * when the other side is spinning, far less than a message through the event loop, so a tracer's
 * hook can be called at every opcode.
 */

/** The states of a conversation. The node posts the first two, the sandbox the rest. */
export const State = {
  /** The node asks for a command: {@link Command}, or a hook's index in {@link HOOKS}. */
  Command: 1,
  /** The node answers a host call: `code` 0 with a JSON value, 1 with a JSON `{ name, message }` to throw. */
  HostReply: 2,
  /** The sandbox asks the node for a host call: `code` is its index in {@link HOST_CALLS}, the payload its JSON arguments. */
  HostCall: 3,
  /** The sandbox has done the command; the payload holds its answer, if any. */
  Done: 4,
  /** The command failed; the payload holds the script's error as text. */
  Failed: 5,
  /** The node found the sandbox thread gone. */
  Gone: 6,
} as const;

/** Commands besides the hooks. */
export const Command = {
  /** Payload: JSON {@link OpenRequest}; answer: JSON list of the optional hooks the tracer has. */
  Open: 100,
  /** Disposes of the tracer's context; answer `code`: 1 when the sandbox's memory grew and it should be dropped. */
  Close: 101,
} as const;

export interface OpenRequest {
  readonly code: string;
  readonly config: string;
  /** `Date.now()` after which the script is interrupted. */
  readonly deadline: number;
}

/** A tracer's hooks, by the index a command names them with. */
export const HOOKS = ['setup', 'step', 'fault', 'enter', 'exit', 'syntheticOp', 'result'] as const;
export type Hook = (typeof HOOKS)[number];

/** The host functions answered by the node, by the index a host call names them with. */
export const HOST_CALLS = [
  'error',
  'stackPeek',
  'memorySlice',
  'memoryWord',
  'contract',
  'frame',
  'frameResult',
  'context',
  'syntheticOp',
  'isPrecompiled',
  'getBalance',
  'getNonce',
  'getCode',
  'getState',
  'exists',
] as const;
export type HostCall = (typeof HOST_CALLS)[number];

/** What a host call answers. */
export type HostValue = string | number | boolean | undefined;

/** The step's fields the node writes before a `step` or `fault` call, read in the sandbox without a host call. */
export const STEP_FIELDS = ['op', 'pc', 'gas', 'cost', 'depth', 'refund', 'stackLength', 'memoryLength'] as const;
export type StepField = (typeof STEP_FIELDS)[number];

// The control memory: Int32 slots, then the step's fields as Float64s, then the opcode's name.
const STATE = 0;
const CODE = 1;
const LENGTH = 2;
const ABORT = 3;
const OP_NAME_LENGTH = 4;
const FIELDS_OFFSET = 32;
const OP_NAME_OFFSET = FIELDS_OFFSET + STEP_FIELDS.length * 8;
const OP_NAME_BYTES = 16;
const CONTROL_BYTES = OP_NAME_OFFSET + OP_NAME_BYTES;

const INITIAL_PAYLOAD_BYTES = 64 * 1024;
/** The largest message: a tracer's result or a memory slice. The sandbox's memory could not hold more. */
const MAXIMUM_PAYLOAD_BYTES = 96 * 1024 * 1024;

/** How long a side spins on the other's answer before it sleeps: past it, the other is busy for long. */
const SPIN_MS = 0.05;

/** The memory a conversation happens in, given to the sandbox thread when it starts. */
export interface SharedChannel {
  readonly control: SharedArrayBuffer;
  readonly payload: SharedArrayBuffer;
}

export function newSharedChannel(): SharedChannel {
  return {
    control: new SharedArrayBuffer(CONTROL_BYTES),
    payload: new SharedArrayBuffer(INITIAL_PAYLOAD_BYTES, { maxByteLength: MAXIMUM_PAYLOAD_BYTES }),
  };
}

/** One side's view of a conversation. */
export class Channel {
  readonly #control: Int32Array;
  readonly #fields: Float64Array;
  readonly #opName: Buffer;
  readonly #payload: SharedArrayBuffer;
  #bytes: Buffer;

  constructor(shared: SharedChannel) {
    this.#control = new Int32Array(shared.control, 0, FIELDS_OFFSET / 4);
    this.#fields = new Float64Array(shared.control, FIELDS_OFFSET, STEP_FIELDS.length);
    this.#opName = Buffer.from(shared.control, OP_NAME_OFFSET, OP_NAME_BYTES);
    this.#payload = shared.payload;
    this.#bytes = Buffer.from(shared.payload);
  }

  get state(): number {
    return Atomics.load(this.#control, STATE);
  }

  get code(): number {
    return Atomics.load(this.#control, CODE);
  }

  /** Posts `state` with `code` and, when given, `payload` as the message, and wakes the other side. */
  post(state: number, code = 0, payload?: string): void {
    if (payload !== undefined) this.#write(payload);
    Atomics.store(this.#control, CODE, code);
    Atomics.store(this.#control, STATE, state);
    Atomics.notify(this.#control, STATE);
  }

  /** The message posted with the current state. */
  read(): string {
    return this.#view().toString('utf8', 0, Atomics.load(this.#control, LENGTH));
  }

  /** A copy of the message posted with the current state, as UTF-8 bytes. */
  readBytes(): Buffer {
    return Buffer.from(this.#view().subarray(0, Atomics.load(this.#control, LENGTH)));
  }

  /** Whether a large message grew the payload memory, which stays grown. */
  get grown(): boolean {
    return this.#payload.byteLength > INITIAL_PAYLOAD_BYTES;
  }

  /**
   * Waits for the other side to answer `posted`, until `until` (`performance.now()`), spinning at
   * first: the new state, or undefined when the time ran out.
   */
  waitWhile(posted: number, until = Infinity): number | undefined {
    const spinUntil = Math.min(performance.now() + SPIN_MS, until);
    let state: number;
    while ((state = this.state) === posted) {
      const now = performance.now();
      if (now >= until) return undefined;
      if (now >= spinUntil) Atomics.wait(this.#control, STATE, posted, until === Infinity ? undefined : until - now);
    }
    return state;
  }

  /**
   * Waits for the other side to answer `posted` without holding the thread, for `timeoutMs` at
   * most: the new state, or `posted` when the time ran out. A wake-up is only a cue to look again:
   * the other side notifies after it posts, and a notify it was slow to make (its thread preempted
   * between the two) wakes a later wait, once this side has already answered that post.
   */
  async waitWhileAsync(posted: number, timeoutMs = Infinity): Promise<number> {
    const until = performance.now() + timeoutMs;
    let state: number;
    while ((state = this.state) === posted) {
      const left = until - performance.now();
      if (left <= 0) break;
      const waiting = Atomics.waitAsync(this.#control, STATE, posted, left);
      if (waiting.async) await waiting.value;
    }
    return state;
  }

  /** Asks the sandbox's script to stop at its next interrupt check. */
  abort(): void {
    Atomics.store(this.#control, ABORT, 1);
  }

  get aborted(): boolean {
    return Atomics.load(this.#control, ABORT) === 1;
  }

  /** Clears what a previous trace left: the abort flag. */
  reset(): void {
    Atomics.store(this.#control, ABORT, 0);
  }

  writeStep(fields: Readonly<Record<StepField, number>>, opName: string): void {
    for (let i = 0; i < STEP_FIELDS.length; i++) this.#fields[i] = fields[STEP_FIELDS[i]!];
    Atomics.store(this.#control, OP_NAME_LENGTH, this.#opName.write(opName, 'latin1'));
  }

  /** The step field at `index` in {@link STEP_FIELDS}. */
  stepField(index: number): number {
    return this.#fields[index]!;
  }

  get opName(): string {
    return this.#opName.toString('latin1', 0, Atomics.load(this.#control, OP_NAME_LENGTH));
  }

  #write(text: string): void {
    const length = Buffer.byteLength(text);
    if (length > this.#bytes.length) {
      if (length > MAXIMUM_PAYLOAD_BYTES) throw new RangeError(`tracer message of ${length} bytes is too large`);
      this.#payload.grow(Math.min(Math.max(length, this.#payload.byteLength * 2), MAXIMUM_PAYLOAD_BYTES));
    }
    this.#view().write(text, 0, 'utf8');
    Atomics.store(this.#control, LENGTH, length);
  }

  /** The payload's bytes, after either side grew it. */
  #view(): Buffer {
    if (this.#bytes.length !== this.#payload.byteLength) this.#bytes = Buffer.from(this.#payload);
    return this.#bytes;
  }
}
