/**
 * A JS tracer's sandbox thread: QuickJS's WebAssembly build, one tracer's context at a time,
 * driven by the node's thread through a {@link Channel}. A script that computes for long holds
 * this thread, not the node's; the host functions it calls block here while the node answers.
 */
import { readlinkSync } from 'node:fs';
import { constants, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import {
  createAddressFromString,
  createContractAddress,
  createContractAddress2,
  hexToBytes,
  type PrefixedHexString,
} from '@ethereumjs/util';
import {
  newQuickJSWASMModule,
  newVariant,
  RELEASE_SYNC,
  type QuickJSContext,
  type QuickJSHandle,
} from 'quickjs-emscripten';
import { JS_TRACER_PRELUDE } from './js-prelude.js';
import { boundGrowth, type GrowthCells } from './sandbox-growth.js';
import {
  Channel,
  Command,
  HOOKS,
  HOST_CALLS,
  State,
  STEP_FIELDS,
  type HostValue,
  type OpenRequest,
  type SharedChannel,
} from './js-sandbox-channel.js';

export interface SandboxThreadData {
  readonly channel: SharedChannel;
  /** QuickJS's build, compiled once by the node's thread. */
  readonly wasmModule: WebAssembly.Module;
  readonly growth: GrowthCells;
}

/** The native stack a tracer's calls may use: deep recursion fails as a JS error, not a crash. */
const STACK_LIMIT = 1024 * 1024;
const WASM_PAGE = 64 * 1024;
/** The memory the WebAssembly build starts with (emscripten's default, which its memory import requires). */
const INITIAL_BYTES = 16 * 1024 * 1024;
/**
 * The thread's whole WebAssembly memory, the bound on all a tracer allocates: objects, typed
 * arrays, the allocator's fragmentation and QuickJS's own structures. An allocation past it fails
 * as QuickJS's out-of-memory error. QuickJS's own memory limit cannot be that bound: in this build
 * it counts a few bytes per allocation, whatever its size.
 */
const MAXIMUM_BYTES = 96 * 1024 * 1024;

/** The context of the tracer being run, with its hooks. */
interface OpenTracer {
  readonly context: QuickJSContext;
  readonly hooks: QuickJSHandle[];
}

/**
 * Scripts compete with each other for the cores, not with the node's thread: ten of them looping
 * at once held it for 84 ms at a time on two cores. Linux sets a thread's priority by its own id
 * (`/proc/thread-self` names it); elsewhere the thread keeps the process's.
 */
function yieldTheCores(): void {
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
    setPriority(threadId, constants.priority.PRIORITY_LOW);
  } catch {
    // Not Linux, or not allowed: the thread keeps the process's priority.
  }
}

yieldTheCores();
const { channel: shared, wasmModule, growth } = workerData as SandboxThreadData;
const channel = new Channel(shared);
const memory = new WebAssembly.Memory({ initial: INITIAL_BYTES / WASM_PAGE, maximum: MAXIMUM_BYTES / WASM_PAGE });
boundGrowth(memory, MAXIMUM_BYTES, growth);
const quickJs = await newQuickJSWASMModule(newVariant(RELEASE_SYNC, { wasmModule, wasmMemory: memory }));
const runtime = quickJs.newRuntime();
runtime.setMaxStackSize(STACK_LIMIT);
let deadline = 0;
runtime.setInterruptHandler(() => channel.aborted || Date.now() >= deadline);
let tracer: OpenTracer | undefined;

/**
 * The most characters a host call's arguments take as JSON. The prelude passes addresses, words and
 * numbers (under 200); a script that tampers with the prototypes the prelude's helpers use could
 * pass megabytes, which the node's thread would parse and quote in its error.
 */
const MAX_HOST_CALL_ARGS = 1024;
/** QuickJS's error for an allocation past the memory's end. */
const OUT_OF_MEMORY = 'InternalError: out of memory';
/** The most characters of a script's error passed to the node: an error of megabytes is the script's to keep. */
const MAX_ERROR_TEXT = 4096;

/** Calls the node's host function `index` with `args` and waits for its answer. */
function hostCall(context: QuickJSContext, index: number, args: QuickJSHandle[]): QuickJSHandle | undefined {
  const argsJson = JSON.stringify(args.map((arg) => context.dump(arg) as unknown));
  if (argsJson.length > MAX_HOST_CALL_ARGS) throw new RangeError(`${HOST_CALLS[index]}: arguments too long`);
  channel.post(State.HostCall, index, argsJson);
  channel.waitWhile(State.HostCall);
  const text = channel.read();
  if (channel.code === 1) {
    const { name, message } = JSON.parse(text) as { name: string; message: string };
    throw Object.assign(new Error(message), { name });
  }
  return handleOf(context, text === '' ? undefined : (JSON.parse(text) as HostValue));
}

function handleOf(context: QuickJSContext, value: HostValue): QuickJSHandle | undefined {
  switch (typeof value) {
    case 'string':
      return context.newString(value);
    case 'number':
      return context.newNumber(value);
    case 'boolean':
      return value ? context.true : context.false;
    default:
      return undefined;
  }
}

/** The prelude's host functions: the step's fields and the tracer's code and config from here, the rest from the node. */
function hostObject(context: QuickJSContext, request: OpenRequest): QuickJSHandle {
  const host = context.newObject();
  const define = (name: string, fn: (...args: QuickJSHandle[]) => QuickJSHandle | undefined): void =>
    context.newFunction(name, fn).consume((handle) => context.setProp(host, name, handle));
  define('code', () => context.newString(request.code));
  define('config', () => context.newString(request.config));
  define('opName', () => context.newString(channel.opName));
  STEP_FIELDS.forEach((field, index) => define(field, () => context.newNumber(channel.stepField(index))));
  HOST_CALLS.forEach((name, index) => define(name, (...args) => hostCall(context, index, args)));
  // Pure, and their input the script's own (an initcode of megabytes): computed here, off the node's thread.
  define('toContract', (from, nonce) =>
    context.newString(
      createContractAddress(
        createAddressFromString(context.getString(from)),
        BigInt(context.getNumber(nonce)),
      ).toString(),
    ),
  );
  define('toContract2', (from, salt, initCode) =>
    context.newString(
      createContractAddress2(
        createAddressFromString(context.getString(from)),
        hexToBytes(context.getString(salt) as PrefixedHexString),
        hexToBytes(context.getString(initCode) as PrefixedHexString),
      ).toString(),
    ),
  );
  return host;
}

/** A script's own error, as its text; any other failure is the thread's. */
class ScriptError extends Error {}

/** A script's error as geth words it: `name: message`, its first {@link MAX_ERROR_TEXT} characters. */
function errorText(context: QuickJSContext, error: QuickJSHandle): string {
  const value = context.dump(error) as { name?: string; message?: string } | string | null;
  error.dispose();
  // With its memory at its end, QuickJS may fail to describe even its own out-of-memory error.
  if ((value === '' || value === null) && memory.buffer.byteLength >= MAXIMUM_BYTES) return OUT_OF_MEMORY;
  const text = typeof value === 'object' && value !== null ? `${value.name}: ${value.message}` : String(value);
  return text.length > MAX_ERROR_TEXT ? `${text.slice(0, MAX_ERROR_TEXT)}...` : text;
}

function unwrap(context: QuickJSContext, result: ReturnType<QuickJSContext['evalCode']>): QuickJSHandle {
  if (result.error !== undefined) throw new ScriptError(errorText(context, result.error));
  return result.value;
}

/** Opens the tracer's context: the answer lists the optional hooks the tracer has. */
function open(request: OpenRequest): string {
  deadline = request.deadline;
  const context = runtime.newContext();
  tracer = { context, hooks: [] };
  const prelude = unwrap(context, context.evalCode(JS_TRACER_PRELUDE, 'tracer.js'));
  const host = hostObject(context, request);
  const hooks = unwrap(context, context.callFunction(prelude, context.undefined, host));
  prelude.dispose();
  host.dispose();
  tracer.hooks.push(...HOOKS.map((hook) => context.getProp(hooks, hook)));
  const has = context.getProp(hooks, 'has');
  hooks.dispose();
  const present = HOOKS.filter((hook) => {
    const answer = unwrap(
      context,
      context.newString(hook).consume((name) => context.callFunction(has, context.undefined, name)),
    );
    const yes = context.dump(answer) === true;
    answer.dispose();
    return yes;
  });
  has.dispose();
  return JSON.stringify(present);
}

/** Calls hook `index`: `result`'s answer is the tracer's result as JSON. */
function call(index: number): string | undefined {
  const { context, hooks } = tracer!;
  const value = unwrap(context, context.callFunction(hooks[index]!, context.undefined));
  const answer = HOOKS[index] === 'result' ? (context.dump(value) as string) : undefined;
  value.dispose();
  return answer;
}

/**
 * Disposes of the tracer's context: the answer's code is 1 when the thread should be dropped
 * instead, because its memory grew; its context then goes with it.
 */
function close(): number {
  if (memory.buffer.byteLength > INITIAL_BYTES || channel.grown) return 1;
  if (tracer !== undefined) {
    for (const hook of tracer.hooks) hook.dispose();
    tracer.context.dispose();
    tracer = undefined;
  }
  return 0;
}

/** Does `command` and posts its outcome: the state posted. */
function serve(command: number): number {
  try {
    if (command === Command.Open) channel.post(State.Done, 0, open(JSON.parse(channel.read()) as OpenRequest));
    else if (command === Command.Close) channel.post(State.Done, close());
    else channel.post(State.Done, 0, call(command));
    return State.Done;
  } catch (error) {
    const text = error instanceof ScriptError ? error.message : String(error);
    channel.post(State.Failed, 0, text);
    return State.Failed;
  }
}

// Read before the node hears that the thread is ready: its first command may follow at once.
let posted = channel.state;
parentPort!.postMessage('ready');
for (;;) {
  channel.waitWhile(posted);
  posted = serve(channel.code);
}
