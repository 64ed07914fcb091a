import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import {
  newQuickJSAsyncWASMModule,
  newVariant,
  RELEASE_ASYNC,
  type QuickJSAsyncContext,
  type QuickJSAsyncRuntime,
} from 'quickjs-emscripten';

/** The native stack a tracer's calls may use: deep recursion fails as a JS error, not a crash. */
const STACK_LIMIT = 1024 * 1024;
const WASM_PAGE = 64 * 1024;
/** The memory the WebAssembly build starts with (emscripten's default, which its memory import requires). */
const INITIAL_BYTES = 16 * 1024 * 1024;
/**
 * An instance's whole WebAssembly memory, the bound on all a tracer allocates: objects, typed
 * arrays, the allocator's fragmentation and QuickJS's own structures. An allocation past it fails
 * as QuickJS's out-of-memory error. QuickJS's own memory limit cannot be that bound: in this build
 * it counts a few bytes per allocation, whatever its size.
 */
const MAXIMUM_BYTES = 96 * 1024 * 1024;
/** Instances kept for the next traces: enough for the usual few JS traces at a time. */
const MAX_IDLE_INSTANCES = 4;

/** One instance of QuickJS's WebAssembly build, with its memory and its one runtime; one trace at a time uses it. */
interface QuickJsInstance {
  readonly memory: WebAssembly.Memory;
  readonly runtime: QuickJSAsyncRuntime;
}

/** A JS tracer's context, alone in its instance until closed. */
export interface Sandbox {
  readonly context: QuickJSAsyncContext;
  /**
   * Disposes of the context, once the caller has disposed of its handles. With `reuse`, the
   * instance serves a later trace, unless its memory grew beyond its initial size; otherwise it is
   * dropped, and with it its memory and all the tracer left in it.
   */
  close(reuse: boolean): void;
}

let compiled: Promise<WebAssembly.Module> | undefined;
const idle: QuickJsInstance[] = [];

/** QuickJS's asyncify build, compiled once: compiling takes milliseconds. */
function quickJsCode(): Promise<WebAssembly.Module> {
  compiled ??= readFile(fileURLToPath(import.meta.resolve('@jitl/quickjs-wasmfile-release-asyncify/wasm'))).then(
    (bytes) => WebAssembly.compile(bytes),
  );
  return compiled;
}

/**
 * An instance with a memory of its own, so that a tracer can neither take memory from another
 * trace's tracer nor keep what it took once its instance is dropped. Instantiating takes a few
 * milliseconds and a new memory, which brings the garbage collector forward, so instances are kept
 * and reused. Its runtime lives as long as it does: quickjs-emscripten 0.32 cannot free an async
 * runtime that defined host functions (freeing it throws), so a trace makes and frees a context.
 */
async function newInstance(): Promise<QuickJsInstance> {
  const memory = new WebAssembly.Memory({ initial: INITIAL_BYTES / WASM_PAGE, maximum: MAXIMUM_BYTES / WASM_PAGE });
  const variant = newVariant(RELEASE_ASYNC, { wasmModule: await quickJsCode(), wasmMemory: memory });
  const module = await newQuickJSAsyncWASMModule(variant);
  const runtime = module.newRuntime();
  runtime.setMaxStackSize(STACK_LIMIT);
  return { memory, runtime };
}

/**
 * A fresh context for one trace, stopped once `shouldStop` says so. The asyncify build lets `db`
 * reads (async in the node) wait inside a tracer's synchronous code.
 */
export async function openSandbox(shouldStop: () => boolean): Promise<Sandbox> {
  const instance = idle.pop() ?? (await newInstance());
  instance.runtime.setInterruptHandler(shouldStop);
  const context = instance.runtime.newContext();
  return {
    context,
    close(reuse) {
      context.dispose();
      instance.runtime.removeInterruptHandler();
      const grown = instance.memory.buffer.byteLength > INITIAL_BYTES;
      if (reuse && !grown && idle.length < MAX_IDLE_INSTANCES) idle.push(instance);
    },
  };
}
