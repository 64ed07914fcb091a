import {
  HELD_ANSWERS_BUSY,
  InvalidInputError,
  LimitExceededError,
  RawJson,
  type EvmTracer,
  type FrameType,
} from '@evmnode/core';
import { gethStackError, stackInputsOf } from './stack-errors.js';
import { StructLogJson } from './struct-log-json.js';
import type { TracerFactory } from './tracer.js';

type Step = Parameters<NonNullable<EvmTracer['step']>>[0];
type FrameResult = Parameters<NonNullable<EvmTracer['exit']>>[0];

/** One opcode as geth's struct logger writes it; the keys are set in geth's order. */
interface StructLog {
  pc: number;
  op: string;
  gas: number;
  gasCost: number;
  depth: number;
  error?: string;
  stack?: string[];
  returnData?: string;
  /** The memory's bytes, written as geth's 32-byte words only when the step is made JSON. */
  memory?: Uint8Array;
  storage?: Record<string, string>;
  refund?: number;
}

/** A call frame as the logger follows it. */
interface Frame {
  readonly type: FrameType;
  /** The output of its last sub-call (geth's `returnData`). */
  returnData: string;
  /** Its last recorded step's opcode and stack size. */
  lastOpcode: number;
  lastStackLength: number;
  /** The refund counter once its last opcode ran. */
  refund: bigint;
}

const SLOAD = 0x54;
const SSTORE = 0x55;
/** The opcodes whose gas cost, for geth, includes the gas they pass on to the frame they open. */
const CALLS = new Set([0xf1, 0xf2, 0xf4, 0xfa]);
/** The errors geth finds before an opcode runs, and so shows on its step: the frame's last. */
const STEP_ERRORS = new Set(['out of gas', 'stack underflow', 'stack overflow']);

const hexOf = (bytes: Uint8Array): string =>
  `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex')}`;
const wordOf = (value: bigint): string => `0x${value.toString(16).padStart(64, '0')}`;

/**
 * An opcode's cost as geth gives it: for the CALL family, ethereumjs's cost leaves out the gas
 * passed on, which geth counts (what was asked, at most all but 1/64 of what is left; the
 * stipend of a call with value is free).
 */
function costOf(step: Step): bigint {
  const cost = step.opcode.dynamicFee ?? BigInt(step.opcode.fee);
  const { code } = step.opcode;
  // A call that fails before it runs (out of gas, stack underflow) costs what ethereumjs says.
  if (!CALLS.has(code) || cost > step.gasLeft || step.stack.length < stackInputsOf(code)) return cost;
  const available = step.gasLeft - cost;
  const allowed = available - available / 64n;
  const asked = step.stack[step.stack.length - 1]!;
  return cost + (asked < allowed ? asked : allowed);
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const ZERO = 0x30;
const X = 0x78;

/**
 * Memory as geth shows it, 32-byte words (`"0x…","0x…"`), written straight into bytes: as an
 * array of strings, two megabytes of memory took one step 60-130 ms to make and serialise.
 */
function memoryWordsJson(memory: Uint8Array): Buffer {
  const words = memory.length / 32;
  // The digits made at once by the native encoder, then copied word by word.
  const digits = Buffer.from(Buffer.from(memory.buffer, memory.byteOffset, memory.length).toString('hex'), 'latin1');
  const json = Buffer.allocUnsafe(words * MEMORY_WORD_JSON_BYTES - 1);
  let at = 0;
  for (let word = 0; word < words; word++) {
    if (word > 0) json[at++] = COMMA;
    json[at++] = QUOTE;
    json[at++] = ZERO;
    json[at++] = X;
    json.set(digits.subarray(word * 64, word * 64 + 64), at);
    at += 64;
    json[at++] = QUOTE;
  }
  return json;
}

/**
 * A step as the JSON of its chunk takes it: as it is, or, with memory, its own JSON bytes, the
 * memory's words written between the fields before them and those after, in geth's order.
 */
function stepJson(log: StructLog): StructLog | Buffer {
  const { memory, storage, refund, ...before } = log;
  if (memory === undefined) return log;
  const after = JSON.stringify({ storage, refund });
  return Buffer.concat([
    Buffer.from(`${JSON.stringify(before).slice(0, -1)},"memory":[`),
    memoryWordsJson(memory),
    Buffer.from(after === '{}' ? ']}' : `],${after.slice(1)}`),
  ]);
}

/** Slots in ascending order, as geth's JSON writes a map. */
function sortedSlots(storage: Map<string, string>): Record<string, string> {
  const slots: Record<string, string> = {};
  for (const slot of [...storage.keys()].sort()) slots[slot] = storage.get(slot)!;
  return slots;
}

/**
 * The most the struct logs of one trace may weigh as JSON (an estimate): a client asking for the
 * memory at every step of a long loop could otherwise make the node hold gigabytes.
 */
const MAX_STRUCT_LOG_BYTES = 32 * 1024 * 1024;

/** What a memory word weighs in JSON: 64 digits, `0x`, quotes and a comma. */
const MEMORY_WORD_JSON_BYTES = 69;

/** About what one step weighs in JSON: its fixed fields, each stack and memory word, each slot. */
function jsonBytesOf(log: StructLog): number {
  let bytes = 80;
  for (const word of log.stack ?? []) bytes += word.length + 3;
  bytes += ((log.memory?.length ?? 0) / 32) * MEMORY_WORD_JSON_BYTES;
  if (log.storage !== undefined) bytes += Object.keys(log.storage).length * 136;
  return bytes + (log.returnData?.length ?? 0);
}

/**
 * geth's struct logger, the tracer used when none is named: every opcode with its gas, stack and,
 * as the config asks, memory, return data and the storage its account touched so far.
 */
export const structLogger: TracerFactory = (_subject, config, run) => {
  const limit = config.limit ?? 0;
  const withStack = config.disableStack !== true;
  const withStorage = config.disableStorage !== true;
  const withMemory = config.enableMemory === true;
  const withReturnData = config.enableReturnData === true;
  const logs = new StructLogJson<StructLog>(run.room, stepJson);
  let logBytes = 0;
  const frames: Frame[] = [];
  /** The slots each account read or wrote so far (slot -> value), across its frames. */
  const storageOf = new Map<string, Map<string, string>>();
  const storageAt = (step: Step): Map<string, string> => {
    const account = step.address.toString();
    let storage = storageOf.get(account);
    if (storage === undefined) storageOf.set(account, (storage = new Map<string, string>()));
    return storage;
  };

  const record = (step: Step, frame: Frame, loaded?: string): void => {
    const { stack } = step;
    const log: StructLog = {
      pc: step.pc,
      op: step.opcode.name,
      gas: Number(step.gasLeft),
      gasCost: Number(costOf(step)),
      depth: step.depth + 1,
    };
    if (withStack) {
      const words = new Array<string>(stack.length);
      for (let index = 0; index < stack.length; index++) words[index] = `0x${stack[index]!.toString(16)}`;
      log.stack = words;
    }
    if (withReturnData && frame.returnData !== '0x') log.returnData = frame.returnData;
    if (withMemory && step.memoryWordCount > 0n) {
      // Memory past the budget is not copied at all.
      if (logBytes + Number(step.memoryWordCount) * MEMORY_WORD_JSON_BYTES > MAX_STRUCT_LOG_BYTES) {
        logBytes = MAX_STRUCT_LOG_BYTES + 1;
        return;
      }
      // A copy of its own, made for the step when read.
      log.memory = step.memory;
    }
    if (withStorage) {
      const code = step.opcode.code;
      // As geth: the slot from the stack, the value loaded (SLOAD) or about to be stored (SSTORE).
      if (code === SLOAD && stack.length >= 1) {
        const storage = storageAt(step);
        storage.set(wordOf(stack[stack.length - 1]!), loaded!);
        log.storage = sortedSlots(storage);
      } else if (code === SSTORE && stack.length >= 2) {
        const storage = storageAt(step);
        storage.set(wordOf(stack[stack.length - 1]!), wordOf(stack[stack.length - 2]!));
        log.storage = sortedSlots(storage);
      }
    }
    // ethereumjs counts an SSTORE's refund before announcing it; geth shows the counter before it.
    const refund = step.opcode.code === SSTORE ? frame.refund : step.gasRefund;
    frame.refund = step.gasRefund;
    if (refund > 0n) log.refund = Number(refund);
    frame.lastOpcode = step.opcode.code;
    frame.lastStackLength = stack.length;
    const bytes = jsonBytesOf(log);
    logBytes += bytes;
    // Past the budget nothing more is kept; the result then refuses to answer.
    if (logBytes <= MAX_STRUCT_LOG_BYTES) logs.add(log, bytes);
  };

  const hooks: EvmTracer = {
    enter(_message, type) {
      logs.enter();
      frames.push({
        type,
        returnData: '0x',
        lastOpcode: 0,
        lastStackLength: 0,
        refund: frames.at(-1)?.refund ?? 0n,
      });
    },
    exit(result: FrameResult) {
      const frame = frames.pop()!;
      const error = result.execResult.exceptionError?.error;
      if (error !== undefined && STEP_ERRORS.has(error)) {
        const stepError = gethStackError(error, frame.lastOpcode, frame.lastStackLength);
        logs.exit(({ pc, op, gas, gasCost, depth, ...rest }) => ({
          pc,
          op,
          gas,
          gasCost,
          depth,
          error: stepError,
          ...rest,
        }));
      } else {
        logs.exit();
      }
      const parent = frames.at(-1);
      // A frame's refunds count only if it succeeded.
      if (parent !== undefined && error === undefined) parent.refund = result.execResult.gasRefund ?? parent.refund;
      if (parent !== undefined && withReturnData) {
        // geth keeps a sub-call's output, a creation's only when it reverted.
        const kept = error === undefined ? !frame.type.startsWith('CREATE') : error === 'revert';
        parent.returnData = kept ? hexOf(result.execResult.returnValue) : '0x';
      }
    },
    step(step) {
      if ((limit !== 0 && logs.count >= limit) || logs.refused || logBytes > MAX_STRUCT_LOG_BYTES) return;
      const frame = frames.at(-1)!;
      const { stack } = step;
      if (withStorage && step.opcode.code === SLOAD && stack.length >= 1) {
        const slot = new Uint8Array(Buffer.from(wordOf(stack[stack.length - 1]!).slice(2), 'hex'));
        return step.stateManager.getStorage(step.address, slot).then((value) => {
          record(step, frame, wordOf(value.length === 0 ? 0n : BigInt(hexOf(value))));
        });
      }
      record(step, frame);
    },
  };

  return {
    hooks,
    result(outcome) {
      if (logBytes > MAX_STRUCT_LOG_BYTES) {
        throw new InvalidInputError(
          `trace too large: its struct logs pass ${MAX_STRUCT_LOG_BYTES / 1024 / 1024} MiB; ` +
            'narrow them with limit, disableStack, disableStorage, or without enableMemory',
        );
      }
      const failed = outcome.error !== undefined;
      // The output on success, the revert data on a revert, nothing on another failure.
      const returnValue = failed && outcome.error !== 'execution reverted' ? '0x' : hexOf(outcome.returnValue);
      const head = JSON.stringify({ gas: Number(outcome.gasUsed), failed, returnValue }).slice(0, -1);
      const json = logs.json(`${head},"structLogs":`, '}');
      if (json === undefined) throw new LimitExceededError(HELD_ANSWERS_BUSY);
      return new RawJson(json);
    },
  };
};
