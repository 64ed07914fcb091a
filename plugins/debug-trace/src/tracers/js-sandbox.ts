import { newQuickJSAsyncWASMModule, type QuickJSAsyncContext, type QuickJSAsyncWASMModule } from 'quickjs-emscripten';

/** The heap one JS tracer may use. */
const MEMORY_LIMIT = 64 * 1024 * 1024;
/** The native stack its calls may use: deep recursion fails as a JS error, not a crash. */
const STACK_LIMIT = 1024 * 1024;

let module: Promise<QuickJSAsyncWASMModule> | undefined;
/** Set while a call into the module waits for the host: the module's stack is saved and no other call may enter. */
let suspended: Promise<void> | undefined;

/**
 * The QuickJS WebAssembly module JS tracers run in, loaded once: loading takes tens of ms, a
 * context a few hundred µs. It is the asyncify build, so that `db` reads (async in the node) can
 * wait inside a tracer's synchronous code.
 */
function quickJs(): Promise<QuickJSAsyncWASMModule> {
  module ??= newQuickJSAsyncWASMModule();
  return module;
}

/** A fresh context for one trace, in its own runtime with its own limits, stopped once `shouldStop` says so. */
export async function newSandbox(shouldStop: () => boolean): Promise<QuickJSAsyncContext> {
  const context = (await quickJs()).newContext();
  context.runtime.setMemoryLimit(MEMORY_LIMIT);
  context.runtime.setMaxStackSize(STACK_LIMIT);
  context.runtime.setInterruptHandler(shouldStop);
  return context;
}

/**
 * Runs a call into the module that completes without waiting: at once, unless another trace's
 * call is suspended in the module, in which case after it.
 */
export function inTurn<T>(call: () => T): T | Promise<T> {
  if (suspended === undefined) return call();
  return suspended.then(() => inTurn(call));
}

/** Runs a call into the module that may wait for the host, alone in the module until it ends. */
export async function inTurnAsync<T>(call: () => Promise<T>): Promise<T> {
  while (suspended !== undefined) await suspended;
  let release!: () => void;
  suspended = new Promise((resolve) => (release = resolve));
  try {
    return await call();
  } finally {
    suspended = undefined;
    release();
  }
}
