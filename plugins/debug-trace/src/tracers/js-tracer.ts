import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import {
  bytesToHex,
  createAddressFromString,
  hexToBytes,
  setLengthLeft,
  type PrefixedHexString,
} from '@ethereumjs/util';
import {
  gethVmError,
  InvalidInputError,
  LimitExceededError,
  RawJson,
  type EvmTracer,
  type NativeTransfer,
  type TraceOutcome,
  type TraceSubject,
} from '@evmnode/core';
import type { TraceConfig } from '../trace-config.js';
import type { Hook } from './js-sandbox-channel.js';
import { openSandbox, type HostFunctions, type Sandbox } from './js-sandbox.js';
import type { TraceRun, TracerFactory, TransactionTracer } from './tracer.js';

/** The EVM's own precompiles (Prague): 0x01 to 0x11. */
const LAST_EVM_PRECOMPILE = 0x11n;
/** geth's bound on the zeros `memory.slice` adds past memory's end. */
const MEMORY_PAD_LIMIT = 1024 * 1024;
/** What a JS trace fails with when the other JS tracers' sandboxes held the memory it needed. */
export const JS_TRACERS_MEMORY_BUSY = 'server busy: too much memory held by JS tracers';

/** A frame as the tracer's `enter` and `log.contract` see it. */
interface OpenFrame {
  readonly message: Message;
  readonly type: string;
  /** Its last step, for `fault` when it fails. */
  lastStep: InterpreterStep | undefined;
}

/**
 * A JavaScript tracer (geth's `tracer` given as code), run in a QuickJS sandbox thread of its own
 * with the trace's deadline and a memory limit. The EVM waits for each hook; the host functions
 * the script calls are answered here, from the step, frame or result the hook is about.
 */
export const jsTracer =
  (code: string): TracerFactory =>
  (subject, config, run) =>
    new JsTracer(subject, config, run, code);

class JsTracer implements TransactionTracer {
  #sandbox: Sandbox | undefined;
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
  #result: RawJson | undefined;
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
        this.#setStep(step);
        this.#frames.at(-1)!.lastStep = step;
        return this.#call('step');
      }),
    enter: (message, type) => {
      const frame: OpenFrame = { message, type, lastStep: undefined };
      this.#frames.push(frame);
      if (message.isCompiled) this.#precompiles.add(message.to!.toString());
      if (message.depth === 0 || !this.#sandbox!.has.has('enter')) return;
      this.#frame = frame;
      return this.#call('enter');
    },
    exit: (result) => then(this.#syntheticOps(), () => this.#exit(result)),
    // Told synchronously from inside the precompile: the tracer hears of it at the next hook, which the EVM awaits.
    nativeTransfer: (transfer) => {
      if (this.#sandbox!.has.has('syntheticOp')) this.#transfers.push(transfer);
    },
    finish: async (outcome) => {
      await this.#syntheticOps();
      this.#outcome = outcome;
      // Served as the script wrote it: a result of megabytes is neither parsed nor serialised again here.
      this.#result = new RawJson(await this.#sandbox!.result());
    },
  };

  result(): unknown {
    return this.#result;
  }

  dispose(): void {
    this.#sandbox?.close();
    this.#sandbox = undefined;
  }

  async #open(): Promise<void> {
    this.#sandbox = await openSandbox({
      code: this.code,
      config: JSON.stringify(this.config.tracerConfig ?? {}),
      deadline: this.run.deadline,
      signal: this.run.signal,
      host: this.#hostFunctions(),
      failure: (text, hook, memoryRefused) => this.#failure(text, hook, memoryRefused),
    });
    await this.#call('setup');
  }

  /** Calls `syntheticOp` for each pending transfer, in order. */
  #syntheticOps(): void | Promise<void> {
    const transfer = this.#transfers.shift();
    if (transfer === undefined) return;
    this.#transfer = transfer;
    return then(this.#call('syntheticOp'), () => this.#syntheticOps());
  }

  #exit(result: EVMResult): void | Promise<void> {
    const frame = this.#frames.pop()!;
    const error = result.execResult.exceptionError?.error;
    const fault =
      error !== undefined && frame.lastStep !== undefined ? this.#fault(frame.lastStep, gethVmError(error)) : undefined;
    if (frame.message.depth === 0 || !this.#sandbox!.has.has('exit')) return fault;
    const exit = (): void | Promise<void> => {
      this.#frameResult = result;
      return this.#call('exit');
    };
    return then(fault, exit);
  }

  #fault(step: InterpreterStep, error: string): Promise<void> {
    this.#setStep(step);
    this.#stepError = error;
    return Promise.resolve(this.#call('fault')).then(() => {
      this.#stepError = undefined;
    });
  }

  /** The step the next `step` or `fault` call is about, with the fields the sandbox reads at once. */
  #setStep(step: InterpreterStep): void {
    this.#step = step;
    this.#sandbox!.writeStep(
      {
        op: step.opcode.code,
        pc: step.pc,
        gas: Number(step.gasLeft),
        cost: Number(step.opcode.dynamicFee ?? BigInt(step.opcode.fee)),
        depth: step.depth + 1,
        refund: Number(step.gasRefund),
        stackLength: step.stack.length,
        memoryLength: Number(step.memoryWordCount) * 32,
      },
      step.opcode.name,
    );
  }

  /** Calls one of the tracer's hooks, if it has it, with the host state already set. */
  #call(hook: Hook): void | Promise<void> {
    if (hook !== 'setup' && !this.#sandbox!.has.has(hook)) return;
    return this.#sandbox!.call(hook);
  }

  /**
   * The error geth gives for a failing tracer, the time limit's own error when it ran out, or
   * -32005 when the other tracers held the memory this one needed (a retry may find it).
   */
  #failure(text: string, hook: Hook, memoryRefused: boolean): Error {
    if (this.run.signal.aborted || Date.now() >= this.run.deadline) return this.run.timeoutError();
    if (memoryRefused) return new LimitExceededError(JS_TRACERS_MEMORY_BUSY);
    return new InvalidInputError(`${text}    in server-side tracer function '${hook}'`);
  }

  /** The host functions the prelude's helpers call beyond the step's fields; words are hex. */
  #hostFunctions(): HostFunctions {
    const step = (): InterpreterStep => this.#step!;
    const memory = (): Uint8Array => step().memory.subarray(0, Number(step().memoryWordCount) * 32);
    const { state } = this.subject;
    const account = (address: string) => state.getAccount(createAddressFromString(address));
    return {
      error: () => this.#stepError,
      stackPeek: (index: number) => {
        const { stack } = step();
        const value = stack[stack.length - 1 - index];
        if (value === undefined)
          throw new RangeError(`tracer accessed out of bound stack: size ${stack.length}, index ${index}`);
        return `0x${value.toString(16)}`;
      },
      memorySlice: (start: number, end: number) => bytesToHex(memorySlice(memory(), start, end)),
      memoryWord: (offset: number) => {
        const bytes = memory();
        if (!(offset >= 0 && offset + 32 <= bytes.length))
          throw new RangeError(
            `tracer accessed out of bound memory: available ${bytes.length}, offset ${offset}, size 32`,
          );
        return bytesToHex(bytes.subarray(offset, offset + 32));
      },
      contract: (field: number) => {
        const { message } = this.#frames.at(-1)!;
        return [
          () => message.caller.toString(),
          () => step().address.toString(),
          () => message.value.toString(),
          () => bytesToHex(message.data),
        ][field]!();
      },
      frame: (field: number) => {
        const { message, type } = this.#frame!;
        const inCallerContext = type === 'DELEGATECALL' || type === 'CALLCODE';
        return [
          () => type,
          () => (inCallerContext ? message.to! : message.caller).toString(),
          () => (message.to === undefined ? '0x' : message.codeAddress.toString()),
          () => bytesToHex(message.data),
          () => message.gasLimit.toString(),
          () => (type === 'STATICCALL' ? undefined : message.value.toString()),
        ][field]!();
      },
      frameResult: (field: number) => {
        const { execResult } = this.#frameResult!;
        const error = execResult.exceptionError?.error;
        return [
          () => execResult.executionGasUsed.toString(),
          () => bytesToHex(execResult.returnValue),
          () => (error === undefined ? undefined : gethVmError(error)),
        ][field]!();
      },
      context: () => JSON.stringify(this.#ctx()),
      syntheticOp: () => {
        const { from, to, amount, denom } = this.#transfer!;
        return JSON.stringify({ from, to, amount: amount.toString(), denom });
      },
      isPrecompiled: (address: string) => {
        const value = BigInt(address);
        return (value >= 1n && value <= LAST_EVM_PRECOMPILE) || this.#precompiles.has(address);
      },
      // `db`'s reads, on the state as the transaction runs.
      getBalance: async (of: string) => ((await account(of))?.balance ?? 0n).toString(),
      getNonce: async (of: string) => Number((await account(of))?.nonce ?? 0n),
      getCode: async (of: string) => bytesToHex(await state.getCode(createAddressFromString(of))),
      getState: async (of: string, slot: string) => {
        const value = await state.getStorage(createAddressFromString(of), hexToBytes(slot as PrefixedHexString));
        return bytesToHex(setLengthLeft(value, 32));
      },
      exists: async (of: string) => (await account(of)) !== undefined,
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

/**
 * Memory bytes `start` to `end`, zeros past its end, as geth's `memory.slice`, with geth's bound on
 * those zeros: a script must not make the node's thread build a slice of gigabytes.
 */
function memorySlice(memory: Uint8Array, start: number, end: number): Uint8Array {
  if (!(start >= 0 && end >= start))
    throw new RangeError(`tracer accessed out of bound memory: offset ${start}, end ${end}`);
  const padding = end - memory.length;
  if (padding > MEMORY_PAD_LIMIT) throw new RangeError(`reached limit for padding memory slice: ${padding}`);
  const out = new Uint8Array(end - start);
  out.set(memory.subarray(start, Math.min(end, memory.length)));
  return out;
}
