import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import type { VM } from '@ethereumjs/vm';
import type { TracedOpcodes } from './traced-opcodes.js';
import type { TransactionResult } from '../block-execution.js';
import type { EvmTracer, TraceOutcome } from '../../api/replayer.js';
import type { NativeEffects } from '../native/native-effects.js';
import { gethVmError } from '../simulation/call-errors.js';
import { WorldState } from '../state/world-state.js';

/** A VM that can be traced, with what reports beyond its own events. */
export interface TraceableVm {
  readonly vm: VM;
  readonly nativeEffects: NativeEffects;
  readonly tracedOpcodes: TracedOpcodes;
}

/**
 * Attaches `tracer`'s hooks to `target` until the returned function is called; with `signal`,
 * an abort stops the run at the next call frame (or opcode, when the tracer has `step`) with
 * the signal's reason. The EVM awaits a hook's promise: resolving its listener with the promise
 * makes a rejection fail the run.
 */
export function attachTracer(target: TraceableVm, tracer: EvmTracer, signal?: AbortSignal): () => void {
  const events = target.vm.evm.events!;
  const detach: (() => void)[] = [];
  if (tracer.start !== undefined) {
    const start = tracer.start.bind(tracer);
    const onTransaction = (_tx: unknown, resolve?: (result?: unknown) => void): void => resolve?.(start());
    target.vm.events.on('beforeTx', onTransaction);
    detach.push(() => target.vm.events.off('beforeTx', onTransaction));
  }
  // Only the hooks the tracer has: without a `step` listener the interpreter skips the hook altogether.
  if (tracer.step !== undefined) {
    const step = tracer.step.bind(tracer);
    const onStep = (data: InterpreterStep, resolve?: (result?: unknown) => void): void => {
      signal?.throwIfAborted();
      resolve?.(step(data));
    };
    events.on('step', onStep);
    target.vm.evm.stepOpcodes = tracer.stepOpcodes;
    detach.push(() => {
      events.off('step', onStep);
      target.vm.evm.stepOpcodes = undefined;
    });
  }
  if (tracer.enter !== undefined || signal !== undefined) {
    const enter = tracer.enter?.bind(tracer);
    const onMessage = (message: Message, resolve?: (result?: unknown) => void): void => {
      signal?.throwIfAborted();
      resolve?.(enter?.(message, target.tracedOpcodes.frameType(message.depth, message.to === undefined)));
    };
    events.on('beforeMessage', onMessage);
    detach.push(() => events.off('beforeMessage', onMessage));
  }
  if (tracer.exit !== undefined) {
    const exit = tracer.exit.bind(tracer);
    const onResult = (result: EVMResult, resolve?: (result?: unknown) => void): void => resolve?.(exit(result));
    events.on('afterMessage', onResult);
    detach.push(() => events.off('afterMessage', onResult));
  }
  if (tracer.nativeTransfer !== undefined)
    detach.push(target.nativeEffects.onTransfer(tracer.nativeTransfer.bind(tracer)));
  if (tracer.log !== undefined) {
    target.tracedOpcodes.onLog = tracer.log.bind(tracer);
    detach.push(() => (target.tracedOpcodes.onLog = undefined));
  }
  if (tracer.stateAccess !== undefined) {
    const state = target.vm.stateManager;
    if (!(state instanceof WorldState)) throw new Error("state accesses are traced on the node's own state only");
    state.accessObserver = tracer.stateAccess.bind(tracer);
    detach.push(() => (state.accessObserver = undefined));
  }
  if (tracer.selfDestruct !== undefined) {
    target.tracedOpcodes.onSelfDestruct = tracer.selfDestruct.bind(tracer);
    detach.push(() => (target.tracedOpcodes.onSelfDestruct = undefined));
  }
  return () => {
    for (const undo of detach) undo();
  };
}

/** What a transaction (run in a block or simulated) did, as tracers are told. */
export function traceOutcomeOf(result: TransactionResult): TraceOutcome {
  const { error } = result;
  return {
    gasUsed: result.gasUsed,
    returnValue: result.returnValue,
    error: error === undefined ? undefined : gethVmError(error),
    createdAddress: result.createdAddress?.toString(),
  };
}
