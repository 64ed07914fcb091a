/**
 * The node's side of JS tracers' sandboxes: threads that run QuickJS (see `js-sandbox-worker.ts`),
 * each serving one trace at a time, kept in a small pool. The node's thread drives a tracer's
 * hooks and answers the host calls its script makes, and never runs the script itself.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  Channel,
  Command,
  HOOKS,
  HOST_CALLS,
  newSharedChannel,
  State,
  type Hook,
  type HostCall,
  type HostValue,
  type OpenRequest,
  type StepField,
} from './js-sandbox-channel.js';
import type { SandboxThreadData } from './js-sandbox-worker.js';
import { SandboxGrowth } from './sandbox-growth.js';

/** Threads kept for the next traces: enough for the usual few JS traces at a time. */
const MAX_IDLE_THREADS = 4;
/** A sandbox thread's own heap: the messages it passes; the tracer's memory is its WebAssembly memory. */
const THREAD_HEAP_MB = 64;
/**
 * How long the node's thread waits for a hook before it lets other work run meanwhile: most hooks
 * take microseconds, and waiting for them in turn is far quicker than through the event loop.
 */
const SYNC_WAIT_MS = 1;
/** How long past its deadline a script may take to stop before its thread is terminated. */
const STOP_GRACE_MS = 1000;
/** How long closing a context may take before the thread is dropped instead. */
const CLOSE_WAIT_MS = 1000;
/** A call's failure when its thread ended first: terminated past its deadline, or out of heap. */
const THREAD_STOPPED = 'Error: the sandbox thread has stopped';

/** The node's side of the host functions, on the current step, frame or result; `db`'s reads are async. */
export type HostFunctions = Readonly<Record<HostCall, (...args: never[]) => HostValue | Promise<HostValue>>>;

export interface SandboxOptions {
  readonly code: string;
  readonly config: string;
  /** `Date.now()` after which the script is interrupted. */
  readonly deadline: number;
  /** Interrupts the script when aborted. */
  readonly signal: AbortSignal;
  readonly host: HostFunctions;
  /**
   * The error a call of `hook` fails with when the script throws (its error as text) or its thread
   * stops; `memoryRefused` when its sandbox could not grow because the others held what was left.
   */
  failure(text: string, hook: Hook, memoryRefused: boolean): Error;
}

/** A JS tracer's context, alone in its sandbox thread until closed. */
export interface Sandbox {
  /** The optional hooks the tracer defines. */
  readonly has: ReadonlySet<Hook>;
  /** Sets the fields of the step the next `step` or `fault` call is about. */
  writeStep(fields: Readonly<Record<StepField, number>>, opName: string): void;
  /**
   * Calls a hook. Synchronous when the hook ended quickly and its host calls were; otherwise the
   * node's thread serves other work meanwhile.
   */
  call(hook: Hook): undefined | Promise<undefined>;
  /** Calls `result`: the tracer's result as JSON, in UTF-8. */
  result(): Promise<Buffer>;
  /**
   * Disposes of the context. A thread between calls then serves a later trace, unless its memory
   * grew; one still in a call is terminated, and with it all the tracer left in it.
   */
  close(): void;
}

/** A sandbox thread and the channel to it. */
class SandboxThread {
  #gone = false;

  private constructor(
    private readonly worker: Worker,
    readonly channel: Channel,
    readonly growth: SandboxGrowth,
  ) {
    // A thread that ends (terminated, out of heap) wakes whoever waits on its answer.
    worker.once('exit', () => {
      this.stop();
      growth.giveBack();
    });
    worker.on('error', () => this.stop());
  }

  static async start(): Promise<SandboxThread> {
    const shared = newSharedChannel();
    const growth = new SandboxGrowth();
    const data: SandboxThreadData = { channel: shared, wasmModule: await quickJsCode(), growth: growth.cells };
    const worker = new Worker(new URL('./js-sandbox-worker.js', import.meta.url), {
      workerData: data,
      resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
    });
    // Idle threads must not keep the process alive.
    worker.unref();
    await new Promise<void>((resolve, reject) => {
      worker.once('message', () => resolve());
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the JS tracer sandbox thread exited with code ${code}`)));
    });
    worker.removeAllListeners();
    return new SandboxThread(worker, new Channel(shared), growth);
  }

  get gone(): boolean {
    return this.#gone;
  }

  /** Terminates the thread; a wait on its answer ends with {@link State.Gone}. */
  stop(): void {
    if (this.#gone) return;
    this.#gone = true;
    void this.worker.terminate();
    this.channel.post(State.Gone);
  }
}

let compiled: Promise<WebAssembly.Module> | undefined;
const idle: SandboxThread[] = [];

/** QuickJS's build, compiled once: compiling takes milliseconds. */
function quickJsCode(): Promise<WebAssembly.Module> {
  compiled ??= readFile(fileURLToPath(import.meta.resolve('@jitl/quickjs-wasmfile-release-sync/wasm'))).then((bytes) =>
    WebAssembly.compile(bytes),
  );
  return compiled;
}

/** Opens a tracer's context in a sandbox thread of its own. */
export async function openSandbox(options: SandboxOptions): Promise<Sandbox> {
  let thread = idle.pop();
  while (thread?.gone === true) thread = idle.pop();
  thread ??= await SandboxThread.start();
  const sandbox = new ThreadSandbox(thread, options);
  try {
    await sandbox.open();
  } catch (error) {
    sandbox.close();
    throw error;
  }
  return sandbox;
}

class ThreadSandbox implements Sandbox {
  readonly has = new Set<Hook>();
  readonly #channel: Channel;
  readonly #abort = (): void => this.#channel.abort();
  /** The hook being called, which a failure names. */
  #hook: Hook = 'setup';

  constructor(
    private readonly thread: SandboxThread,
    private readonly options: SandboxOptions,
  ) {
    this.#channel = thread.channel;
    this.#channel.reset();
    thread.growth.startTrace();
    options.signal.addEventListener('abort', this.#abort, { once: true });
  }

  async open(): Promise<void> {
    const { code, config, deadline } = this.options;
    const request: OpenRequest = { code, config, deadline };
    if (this.options.signal.aborted) this.#channel.abort();
    this.#channel.post(State.Command, Command.Open, JSON.stringify(request));
    await this.#serve(State.Command);
    for (const hook of JSON.parse(this.#channel.read()) as Hook[]) this.has.add(hook);
  }

  writeStep(fields: Readonly<Record<StepField, number>>, opName: string): void {
    this.#channel.writeStep(fields, opName);
  }

  call(hook: Hook): undefined | Promise<undefined> {
    this.#hook = hook;
    if (this.thread.gone) throw this.#failure(THREAD_STOPPED, hook);
    this.#channel.post(State.Command, HOOKS.indexOf(hook));
    return this.#serve(State.Command);
  }

  async result(): Promise<Buffer> {
    await this.call('result');
    return this.#channel.readBytes();
  }

  close(): void {
    this.options.signal.removeEventListener('abort', this.#abort);
    if (this.thread.gone) return;
    // A script's error or interrupt leaves its thread between calls too, ready for another trace.
    const state = this.#channel.state;
    if ((state !== State.Done && state !== State.Failed) || idle.length >= MAX_IDLE_THREADS) {
      this.thread.stop();
      return;
    }
    this.#channel.post(State.Command, Command.Close);
    // Disposing of a context of many objects takes a while: the node's thread does not wait for it.
    void this.#channel.waitWhileAsync(State.Command, CLOSE_WAIT_MS).then((answer) => {
      if (answer === State.Done && this.#channel.code === 0 && idle.length < MAX_IDLE_THREADS) idle.push(this.thread);
      else this.thread.stop();
    });
  }

  /**
   * Answers the thread's host calls until it has done the command: in turn while it answers within
   * {@link SYNC_WAIT_MS}, then through the event loop.
   */
  #serve(posted: number): undefined | Promise<undefined> {
    const until = performance.now() + SYNC_WAIT_MS;
    for (;;) {
      const state = this.#channel.waitWhile(posted, until);
      if (state === undefined) return this.#serveLater(posted);
      if (state !== State.HostCall) return this.#end(state);
      const replying = this.#reply();
      if (replying !== undefined) return replying.then(() => this.#serveLater(State.HostReply));
      posted = State.HostReply;
    }
  }

  async #serveLater(posted: number): Promise<undefined> {
    // A script past its deadline stops at its next interrupt check; one that does not is terminated.
    const watchdog = setTimeout(
      () => this.thread.stop(),
      Math.max(this.options.deadline - Date.now(), 0) + STOP_GRACE_MS,
    );
    try {
      for (;;) {
        const state = await this.#channel.waitWhileAsync(posted);
        if (state !== State.HostCall) return this.#end(state);
        await this.#reply();
        posted = State.HostReply;
      }
    } finally {
      clearTimeout(watchdog);
    }
  }

  #end(state: number): undefined {
    if (state === State.Done) return undefined;
    throw this.#failure(state === State.Failed ? this.#channel.read() : THREAD_STOPPED, this.#hook);
  }

  #failure(text: string, hook: Hook): Error {
    return this.options.failure(text, hook, this.thread.growth.refused);
  }

  /** Answers the host call posted; a promise when the host function is async. */
  #reply(): Promise<void> | undefined {
    let value: HostValue | Promise<HostValue>;
    try {
      const fn = this.options.host[HOST_CALLS[this.#channel.code]!] as (...args: unknown[]) => typeof value;
      value = fn(...(JSON.parse(this.#channel.read()) as unknown[]));
    } catch (error) {
      return this.#replyError(error);
    }
    if (value instanceof Promise) {
      return value.then(
        (answer) => this.#replyValue(answer),
        (error: unknown) => this.#replyError(error),
      );
    }
    return this.#replyValue(value);
  }

  #replyValue(value: HostValue): undefined {
    try {
      this.#channel.post(State.HostReply, 0, value === undefined ? '' : JSON.stringify(value));
    } catch (error) {
      this.#replyError(error);
    }
    return undefined;
  }

  /** Has the host function's error thrown in the script, as a JS error of the same name. */
  #replyError(error: unknown): undefined {
    const { name, message } = error instanceof Error ? error : { name: 'Error', message: String(error) };
    this.#channel.post(State.HostReply, 1, JSON.stringify({ name, message }));
    return undefined;
  }
}
