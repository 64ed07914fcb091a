import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import {
  bytesToHex,
  createAddressFromString,
  createContractAddress,
  createContractAddress2,
  hexToBytes,
  setLengthLeft,
  type PrefixedHexString,
} from '@ethereumjs/util';
import {
  gethVmError,
  InvalidInputError,
  type EvmTracer,
  type NativeTransfer,
  type TraceOutcome,
  type TraceSubject,
} from '@evmnode/core';
import type { QuickJSAsyncContext, QuickJSHandle } from 'quickjs-emscripten';
import type { TraceConfig } from '../trace-config.js';
import { JS_TRACER_PRELUDE } from './js-prelude.js';
import { openSandbox, type Sandbox } from './js-sandbox.js';
import type { TraceRun, TracerFactory, TransactionTracer } from './tracer.js';

type Hook = 'setup' | 'step' | 'fault' | 'enter' | 'exit' | 'syntheticOp' | 'result';

/** The EVM's own precompiles (Prague): 0x01 to 0x11. */
const LAST_EVM_PRECOMPILE = 0x11n;

/** A frame as the tracer's `enter` and `log.contract` see it. */
interface OpenFrame {
  readonly message: Message;
  readonly type: string;
  /** Its last step, for `fault` when it fails. */
  lastStep: InterpreterStep | undefined;
}

/**
 * A JavaScript tracer (geth's `tracer` given as code), run in a QuickJS sandbox of its own with
 * the trace's deadline and a memory limit. Its `step`, `fault`, `result` and `syntheticOp` get
 * `db`, whose reads are async here: when a hook names `db` as a parameter it runs through
 * asyncify, which lets the script wait for them; otherwise it is called synchronously, which is
 * several times faster (an opcode counter needs no state).
 */
export const jsTracer =
  (code: string): TracerFactory =>
  (subject, config, run) =>
    new JsTracer(subject, config, run, code);

class JsTracer implements TransactionTracer {
  #sandbox: Sandbox | undefined;
  /** Set once `result` has run: a trace that ended before may have left its instance mid-call. */
  #finished = false;
  #hooks: QuickJSHandle | undefined;
  readonly #sync = new Map<Hook, QuickJSHandle>();
  readonly #takesDb = new Set<Hook>();
  readonly #has = new Set<Hook>();
  readonly #frames: OpenFrame[] = [];
  /** What the host functions read: the step, frame, result or transfer the current call is about. */
  #step: InterpreterStep | undefined;
  #stepError: string | undefined;
  #frame: OpenFrame | undefined;
  #frameResult: EVMResult | undefined;
  #transfer: NativeTransfer | undefined;
  /** Transfers `syntheticOp` is yet to hear of. */
  readonly #transfers: NativeTransfer[] = [];
  #outcome: TraceOutcome | undefined;
  #result: unknown;
  readonly #precompiles = new Set<string>();

  constructor(
    private readonly subject: TraceSubject,
    private readonly config: TraceConfig,
    private readonly run: TraceRun,
    private readonly code: string,
  ) {}

  readonly hooks: EvmTracer = {
    start: () => this.#open(),
    step: (step) =>
      then(this.#syntheticOps(), () => {
        this.#step = step;
        this.#frames.at(-1)!.lastStep = step;
        return this.#call('step') as void | Promise<void>;
      }),
    enter: (message, type) => {
      const frame: OpenFrame = { message, type, lastStep: undefined };
      this.#frames.push(frame);
      if (message.isCompiled) this.#precompiles.add(message.to!.toString());
      if (message.depth === 0 || !this.#has.has('enter')) return;
      this.#frame = frame;
      return this.#call('enter') as void | Promise<void>;
    },
    exit: (result) => then(this.#syntheticOps(), () => this.#exit(result)),
    // Told synchronously from inside the precompile: the tracer hears of it at the next hook, which the EVM awaits.
    nativeTransfer: (transfer) => {
      if (this.#has.has('syntheticOp')) this.#transfers.push(transfer);
    },
    finish: async (outcome) => {
      await this.#syntheticOps();
      this.#outcome = outcome;
      this.#result = JSON.parse((await this.#call('result')) as string);
      this.#finished = true;
    },
  };

  result(): unknown {
    return this.#result;
  }

  dispose(): void {
    for (const handle of this.#sync.values()) handle.dispose();
    this.#sync.clear();
    this.#hooks?.dispose();
    this.#hooks = undefined;
    this.#sandbox?.close(this.#finished);
    this.#sandbox = undefined;
  }

  async #open(): Promise<void> {
    this.#sandbox = await openSandbox(() => this.run.signal.aborted || Date.now() >= this.run.deadline);
    const { context } = this.#sandbox;
    const host = context.newObject();
    for (const [name, fn] of Object.entries(this.#hostFunctions(context))) {
      context.newFunction(name, fn).consume((handle) => context.setProp(host, name, handle));
    }
    for (const [name, fn] of Object.entries(this.#stateReads(context))) {
      context.newAsyncifiedFunction(name, fn).consume((handle) => context.setProp(host, name, handle));
    }
    context.setProp(context.global, '__host', host);
    host.dispose();
    this.#unwrap('setup', context.evalCode(JS_TRACER_PRELUDE, 'tracer.js')).dispose();
    this.#hooks = context.getProp(context.global, '__hooks');
    for (const hook of ['setup', 'step', 'fault', 'enter', 'exit', 'syntheticOp', 'result'] as const) {
      this.#sync.set(hook, context.getProp(this.#hooks, hook));
      if (this.#ask('has', hook)) this.#has.add(hook);
      if (this.#ask('takesDb', hook)) this.#takesDb.add(hook);
    }
    await this.#call('setup');
  }

  /** Calls `syntheticOp` for each pending transfer, in order. */
  #syntheticOps(): void | Promise<void> {
    const transfer = this.#transfers.shift();
    if (transfer === undefined) return;
    this.#transfer = transfer;
    return then(this.#call('syntheticOp') as void | Promise<void>, () => this.#syntheticOps());
  }

  #exit(result: EVMResult): void | Promise<void> {
    const frame = this.#frames.pop()!;
    const error = result.execResult.exceptionError?.error;
    const fault =
      error !== undefined && frame.lastStep !== undefined ? this.#fault(frame.lastStep, gethVmError(error)) : undefined;
    if (frame.message.depth === 0 || !this.#has.has('exit')) return fault;
    const exit = (): void | Promise<void> => {
      this.#frameResult = result;
      return this.#call('exit') as void | Promise<void>;
    };
    return then(fault, exit);
  }

  #fault(step: InterpreterStep, error: string): Promise<void> {
    this.#step = step;
    this.#stepError = error;
    return Promise.resolve(this.#call('fault')).then(() => {
      this.#stepError = undefined;
    });
  }

  /** Calls one of the tracer's hooks, if it has it, with the host state already set. */
  #call(hook: Hook): unknown {
    const context = this.#sandbox!.context;
    if (hook !== 'setup' && !this.#has.has(hook)) return;
    if (this.#takesDb.has(hook)) {
      return context.evalCodeAsync(`__hooks.${hook}()`, 'tracer-call.js').then((result) => this.#value(hook, result));
    }
    return this.#value(hook, context.callFunction(this.#sync.get(hook)!, context.undefined));
  }

  /** A call's value: read only for `result`, as reading it costs a call into the module at each step. */
  #value(hook: Hook, result: ReturnType<QuickJSAsyncContext['callFunction']>): unknown {
    const handle = this.#unwrap(hook, result);
    const value: unknown = hook === 'result' ? this.#sandbox!.context.dump(handle) : undefined;
    handle.dispose();
    return value;
  }

  #ask(question: 'has' | 'takesDb', hook: Hook): boolean {
    const context = this.#sandbox!.context;
    const fn = context.getProp(this.#hooks!, question);
    const result = context.newString(hook).consume((name) => context.callFunction(fn, context.undefined, name));
    fn.dispose();
    const answer = this.#unwrap('setup', result);
    const yes = context.dump(answer) === true;
    answer.dispose();
    return yes;
  }

  /** The call's value, or the error geth gives for a failing tracer (the time limit's own error when it ran out). */
  #unwrap(hook: Hook, result: ReturnType<QuickJSAsyncContext['callFunction']>): QuickJSHandle {
    if (result.error === undefined) return result.value;
    const error = this.#sandbox!.context.dump(result.error) as { name?: string; message?: string } | string;
    result.error.dispose();
    if (this.run.signal.aborted || Date.now() >= this.run.deadline) throw this.run.timeoutError();
    const text = typeof error === 'object' && error !== null ? `${error.name}: ${error.message}` : String(error);
    throw new InvalidInputError(`${text}    in server-side tracer function '${hook}'`);
  }

  /** The synchronous host functions the prelude's helpers call. */
  #hostFunctions(
    context: QuickJSAsyncContext,
  ): Record<string, (...args: QuickJSHandle[]) => QuickJSHandle | undefined> {
    const step = (): InterpreterStep => this.#step!;
    const number = (value: number | bigint): QuickJSHandle => context.newNumber(Number(value));
    const string = (value: string | undefined): QuickJSHandle =>
      value === undefined ? context.undefined : context.newString(value);
    const arg = (handle: QuickJSHandle | undefined): string => context.getString(handle!);
    const argNumber = (handle: QuickJSHandle | undefined): number => context.getNumber(handle!);
    const memory = (): Uint8Array => step().memory.subarray(0, Number(step().memoryWordCount) * 32);
    return {
      code: () => string(this.code),
      config: () => string(JSON.stringify(this.config.tracerConfig ?? {})),
      op: () => number(step().opcode.code),
      opName: () => string(step().opcode.name),
      pc: () => number(step().pc),
      gas: () => number(step().gasLeft),
      cost: () => number(step().opcode.dynamicFee ?? BigInt(step().opcode.fee)),
      depth: () => number(step().depth + 1),
      refund: () => number(step().gasRefund),
      error: () => string(this.#stepError),
      stackLength: () => number(step().stack.length),
      stackPeek: (index) => {
        const { stack } = step();
        const value = stack[stack.length - 1 - argNumber(index)];
        if (value === undefined) throw new RangeError(`tracer accessed out of bound stack: size ${stack.length}`);
        return context.newBigInt(value);
      },
      memoryLength: () => number(memory().length),
      memorySlice: (start, end) => string(bytesToHex(memorySlice(memory(), argNumber(start), argNumber(end)))),
      memoryWord: (offset) => {
        const at = argNumber(offset);
        return context.newBigInt(BigInt(bytesToHex(memorySlice(memory(), at, at + 32))));
      },
      contract: (field) => {
        const { message } = this.#frames.at(-1)!;
        return string(
          [
            () => message.caller.toString(),
            () => step().address.toString(),
            () => message.value.toString(),
            () => bytesToHex(message.data),
          ][argNumber(field)]!(),
        );
      },
      frame: (field) => {
        const { message, type } = this.#frame!;
        const inCallerContext = type === 'DELEGATECALL' || type === 'CALLCODE';
        return string(
          [
            () => type,
            () => (inCallerContext ? message.to! : message.caller).toString(),
            () => (message.to === undefined ? '0x' : message.codeAddress.toString()),
            () => bytesToHex(message.data),
            () => message.gasLimit.toString(),
            () => (type === 'STATICCALL' ? undefined : message.value.toString()),
          ][argNumber(field)]!(),
        );
      },
      frameResult: (field) => {
        const { execResult } = this.#frameResult!;
        const error = execResult.exceptionError?.error;
        return string(
          [
            () => execResult.executionGasUsed.toString(),
            () => bytesToHex(execResult.returnValue),
            () => (error === undefined ? undefined : gethVmError(error)),
          ][argNumber(field)]!(),
        );
      },
      context: () => string(JSON.stringify(this.#ctx())),
      syntheticOp: () => {
        const { from, to, amount, denom } = this.#transfer!;
        return string(JSON.stringify({ from, to, amount: amount.toString(), denom }));
      },
      toContract: (from, nonce) =>
        string(createContractAddress(createAddressFromString(arg(from)), BigInt(argNumber(nonce))).toString()),
      toContract2: (from, salt, initCode) =>
        string(
          createContractAddress2(
            createAddressFromString(arg(from)),
            hexToBytes(arg(salt) as PrefixedHexString),
            hexToBytes(arg(initCode) as PrefixedHexString),
          ).toString(),
        ),
      isPrecompiled: (address) => {
        const hex = arg(address);
        const value = BigInt(hex);
        return (value >= 1n && value <= LAST_EVM_PRECOMPILE) || this.#precompiles.has(hex)
          ? context.true
          : context.false;
      },
    };
  }

  /** `db`'s reads, on the state as the transaction runs. */
  #stateReads(context: QuickJSAsyncContext): Record<string, (...args: QuickJSHandle[]) => Promise<QuickJSHandle>> {
    const { state } = this.subject;
    const address = (handle: QuickJSHandle | undefined) => createAddressFromString(context.getString(handle!));
    return {
      getBalance: async (of) => context.newString(((await state.getAccount(address(of)))?.balance ?? 0n).toString()),
      getNonce: async (of) => context.newNumber(Number((await state.getAccount(address(of)))?.nonce ?? 0n)),
      getCode: async (of) => context.newString(bytesToHex(await state.getCode(address(of)))),
      getState: async (of, slot) => {
        const value = await state.getStorage(address(of), hexToBytes(context.getString(slot) as PrefixedHexString));
        return context.newString(bytesToHex(setLengthLeft(value, 32)));
      },
      exists: async (of) => ((await state.getAccount(address(of))) === undefined ? context.false : context.true),
    };
  }

  /** geth's `ctx`: the transaction and its outcome. */
  #ctx(): Record<string, unknown> {
    const subject = this.subject;
    const outcome = this.#outcome!;
    return {
      type: subject.to === undefined ? 'CREATE' : 'CALL',
      from: subject.from,
      to: subject.to ?? outcome.createdAddress,
      input: bytesToHex(subject.input),
      gas: Number(subject.gasLimit),
      gasPrice: Number(subject.gasPrice),
      value: subject.value.toString(),
      block: subject.block.height,
      coinbase: subject.coinbase,
      output: bytesToHex(outcome.returnValue),
      gasUsed: Number(outcome.gasUsed),
      ...(outcome.error === undefined ? {} : { error: outcome.error }),
      blockHash: subject.block.hash,
      ...(subject.index === undefined ? {} : { txIndex: subject.index }),
      ...(subject.hash === undefined ? {} : { txHash: subject.hash }),
    };
  }
}

/** Runs `next` after `first`, without a promise when `first` is not one: the step path stays synchronous. */
function then(first: void | Promise<void>, next: () => void | Promise<void>): void | Promise<void> {
  return first instanceof Promise ? first.then(next) : next();
}

/** Memory bytes `start` to `end`, zeros past its end, as geth's `memory.slice`. */
function memorySlice(memory: Uint8Array, start: number, end: number): Uint8Array {
  if (start < 0 || end < start)
    throw new RangeError(`tracer accessed out of bound memory: offset ${start}, end ${end}`);
  const out = new Uint8Array(end - start);
  out.set(memory.subarray(start, Math.min(end, memory.length)));
  return out;
}
