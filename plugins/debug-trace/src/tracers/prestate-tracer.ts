import type { StateManagerInterface } from '@ethereumjs/common';
import type { InterpreterStep, Message } from '@ethereumjs/evm';
import {
  Address,
  bigIntToBytes,
  createAddressFromString,
  createContractAddress,
  createContractAddress2,
  eoaCode7702RecoverAuthority,
  equalsBytes,
  setLengthLeft,
} from '@ethereumjs/util';
import { boolean, InvalidInputError, isCodecError, objectOf, type RawJson, type TraceSubject } from '@evmnode/core';
import { jsonInTurns, MAX_TRANSACTION_TRACE_BYTES, type JsonBound } from './json-in-turns.js';
import { isEmptyAccount, readAccount, readSlot, wordOf, type AccountState, type Word } from './prestate-account.js';
import type { TracerFactory } from './tracer.js';

/** geth's `native.prestateTracerConfig`. */
const prestateConfig = objectOf('native.prestateTracerConfig', {
  diffMode: boolean.optional(false),
  disableCode: boolean.optional(false),
  disableStorage: boolean.optional(false),
  includeEmpty: boolean.optional(false),
});

type PrestateOptions = ReturnType<typeof prestateConfig.decode>;

/** What the answer may weigh: a transaction that touches thousands of contracts prints all their code. */
const PRESTATE_BOUND: JsonBound = {
  maxBytes: MAX_TRANSACTION_TRACE_BYTES,
  tooLarge: () =>
    new InvalidInputError(
      `trace too large: the accounts it touched pass ${MAX_TRANSACTION_TRACE_BYTES / 1024 / 1024} MiB as JSON`,
    ),
};

const ZERO_WORD = wordOf(0n);
/** EIP-7702's delegation designator: the code `0xef0100 || target`. */
const DELEGATION_PREFIX = Uint8Array.of(0xef, 0x01, 0x00);
/** geth gives up on a CREATE2 whose init code lies more than this beyond the memory. */
const MEMORY_PAD_LIMIT = 1024 * 1024;

/**
 * The opcodes whose operands name an account or slot the tracer records (see `step`): SLOAD,
 * SSTORE, SELFDESTRUCT, EXTCODECOPY, EXTCODEHASH, EXTCODESIZE, BALANCE, the CALL family, CREATE
 * and CREATE2.
 */
const LOOKUP_OPCODES: ReadonlySet<number> = new Set([
  0x54, 0x55, 0xff, 0x3c, 0x3f, 0x3b, 0x31, 0xf1, 0xf2, 0xf4, 0xfa, 0xf0, 0xf5,
]);

/** What changed in an account, in `post` of a diff: only the changed fields. */
interface AccountChange {
  balance?: bigint;
  nonce?: bigint;
  code?: Uint8Array;
  codeHash?: Word | undefined;
  readonly storage: Map<Word, Word>;
}

/**
 * geth's `prestateTracer`: the accounts and slots a transaction touches as they were before it
 * ran, or with `diffMode` what it changed (`pre` and `post`).
 */
export const prestateTracer: TracerFactory = (subject, config) => {
  const recorder = new PrestateRecorder(subject.state, prestateOptions(config.tracerConfig ?? {}));
  return {
    hooks: {
      start: () => recorder.startTransaction(subject),
      enter: (message) => recorder.enterTransactionFrame(message),
      step: (step) => recorder.step(step),
      stepOpcodes: LOOKUP_OPCODES,
      finish: () => recorder.finish(),
    },
    result: () => recorder.result(),
  };
};

function prestateOptions(raw: unknown): PrestateOptions {
  let options: PrestateOptions;
  try {
    options = prestateConfig.decode(raw);
  } catch (error) {
    if (isCodecError(error)) throw new InvalidInputError(error.message);
    throw error;
  }
  if (options.diffMode && options.includeEmpty) throw new InvalidInputError('cannot use diffMode with includeEmpty');
  return options;
}

/** Records accounts and slots the first time the transaction touches them, reading them from the live state. */
class PrestateRecorder {
  readonly #pre = new Map<string, AccountState>();
  readonly #post = new Map<string, AccountChange>();
  /** Accounts empty when first touched: dropped from `pre` unless `includeEmpty`. */
  readonly #empty = new Set<string>();
  /** Accounts that ran SELFDESTRUCT: kept in `pre`, never in `post`. */
  readonly #destructed = new Set<string>();

  constructor(
    private readonly state: StateManagerInterface,
    private readonly options: PrestateOptions,
  ) {}

  /**
   * geth's `OnTxStart`: sender, recipient (or created address) and coinbase, then the EIP-7702
   * authorities, all before the gas purchase and before the authorizations apply.
   */
  async startTransaction(subject: TraceSubject): Promise<void> {
    const from = createAddressFromString(subject.from);
    await this.#lookupAccount(from);
    const to =
      subject.to === undefined
        ? createContractAddress(from, this.#pre.get(from.toString())!.nonce)
        : createAddressFromString(subject.to);
    await this.#lookupAccount(to);
    await this.#lookupAccount(createAddressFromString(subject.coinbase));
    for (const authorization of subject.authorizationList ?? []) {
      try {
        await this.#lookupAccount(eoaCode7702RecoverAuthority(authorization));
      } catch {
        // An authorization whose signature recovers no address authorizes nothing: geth skips it.
      }
    }
  }

  /**
   * The transaction's own frame, once the authorizations applied: when its recipient delegates
   * (EIP-7702), the account whose code it runs. Only the sender and the authorities changed since
   * the start, and they are recorded already, so the state read now is the one before the transaction.
   */
  async enterTransactionFrame(message: Message): Promise<void> {
    if (message.depth === 0 && message.to !== undefined) await this.#lookupCallTarget(message.to);
  }

  /** geth's `OnOpcode`: the accounts and slots an opcode is about to touch, from its stack operands. */
  async step(step: InterpreterStep): Promise<void> {
    const { stack } = step;
    const operand = (index: number): bigint => stack[stack.length - 1 - index]!;
    switch (step.opcode.name) {
      case 'SLOAD':
      case 'SSTORE':
        if (stack.length >= 1) await this.#lookupSlot(step.address, wordOf(operand(0)));
        return;
      case 'SELFDESTRUCT':
        if (stack.length >= 1) this.#destructed.add(step.address.toString());
        return this.#lookupOperandAccount(stack, operand(0));
      case 'EXTCODECOPY':
      case 'EXTCODEHASH':
      case 'EXTCODESIZE':
      case 'BALANCE':
        return this.#lookupOperandAccount(stack, operand(0));
      case 'CALL':
      case 'CALLCODE':
      case 'DELEGATECALL':
      case 'STATICCALL':
        if (stack.length >= 5) await this.#lookupCallTarget(addressOf(operand(1)));
        return;
      case 'CREATE': {
        const nonce = (await this.state.getAccount(step.address))?.nonce ?? 0n;
        return this.#lookupAccount(createContractAddress(step.address, nonce));
      }
      case 'CREATE2':
        if (stack.length < 4) return;
        return this.#lookupCreate2(step, operand(1), operand(2), operand(3));
    }
  }

  /** geth's `OnTxEnd`: with `diffMode` the state now is the `post` side; then the empty accounts go. */
  async finish(): Promise<void> {
    if (this.options.diffMode) await this.#diffWithPostState();
    if (this.options.includeEmpty) return;
    for (const address of this.#empty) this.#pre.delete(address);
  }

  result(): Promise<RawJson> {
    const printed = this.options.diffMode
      ? { post: this.#printed(this.#post), pre: this.#printed(this.#pre) }
      : this.#printed(this.#pre);
    return jsonInTurns(printed, PRESTATE_BOUND);
  }

  async #lookupAccount(address: Address): Promise<void> {
    const key = address.toString();
    if (this.#pre.has(key)) return;
    const account = await readAccount(this.state, address);
    this.#pre.set(key, account);
    if (isEmptyAccount(account)) this.#empty.add(key);
  }

  async #lookupOperandAccount(stack: readonly bigint[], operand: bigint): Promise<void> {
    if (stack.length >= 1) await this.#lookupAccount(addressOf(operand));
  }

  async #lookupSlot(address: Address, slot: Word): Promise<void> {
    if (this.options.disableStorage) return;
    await this.#lookupAccount(address);
    const storage = this.#pre.get(address.toString())!.storage;
    if (!storage.has(slot)) storage.set(slot, await readSlot(this.state, address, slot));
  }

  /** A call's target and, when it delegates (EIP-7702), the account it delegates to. */
  async #lookupCallTarget(target: Address): Promise<void> {
    await this.#lookupAccount(target);
    const code = await this.state.getCode(target);
    if (code.length === 23 && equalsBytes(code.subarray(0, 3), DELEGATION_PREFIX)) {
      await this.#lookupAccount(new Address(code.subarray(3)));
    }
  }

  async #lookupCreate2(step: InterpreterStep, offset: bigint, size: bigint, salt: bigint): Promise<void> {
    const memory = step.memory.subarray(0, Number(step.memoryWordCount) * 32);
    if (offset + size - BigInt(memory.length) > MEMORY_PAD_LIMIT) return;
    const initCode = new Uint8Array(Number(size));
    if (offset < BigInt(memory.length)) initCode.set(memory.subarray(Number(offset), Number(offset + size)));
    await this.#lookupAccount(createContractAddress2(step.address, setLengthLeft(bigIntToBytes(salt), 32), initCode));
  }

  /** geth's `processDiffState`: `post` gets the changed fields; `pre` keeps changed accounts and changed non-zero slots. */
  async #diffWithPostState(): Promise<void> {
    for (const [key, pre] of this.#pre) {
      if (this.#destructed.has(key)) continue;
      const now = await readAccount(this.state, createAddressFromString(key));
      const change: AccountChange = { storage: new Map() };
      if (now.balance !== pre.balance) change.balance = now.balance;
      if (now.nonce !== pre.nonce) change.nonce = now.nonce;
      if (now.codeHash !== undefined && now.codeHash !== pre.codeHash) change.codeHash = now.codeHash;
      if (!this.options.disableCode && !equalsBytes(now.code, pre.code)) change.code = now.code;
      let storageChanged = false;
      for (const [slot, value] of pre.storage) {
        const newValue = await readSlot(this.state, createAddressFromString(key), slot);
        if (value === ZERO_WORD || value === newValue) pre.storage.delete(slot);
        if (value === newValue) continue;
        storageChanged = true;
        if (newValue !== ZERO_WORD) change.storage.set(slot, newValue);
      }
      const modified =
        storageChanged ||
        change.balance !== undefined ||
        change.nonce !== undefined ||
        change.codeHash !== undefined ||
        change.code !== undefined;
      if (modified) this.#post.set(key, change);
      else this.#pre.delete(key);
    }
  }

  /** Accounts as geth prints its `stateMap`: addresses and slots in order, empty fields left out; code is written as hex by {@link jsonInTurns}. */
  #printed(accounts: ReadonlyMap<string, AccountChange>): Record<string, unknown> {
    const printed: Record<string, unknown> = {};
    for (const address of [...accounts.keys()].sort()) {
      const account = accounts.get(address)!;
      const storage = [...account.storage.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
      printed[address] = {
        ...(account.balance === undefined ? {} : { balance: `0x${account.balance.toString(16)}` }),
        ...(account.code === undefined || account.code.length === 0 || this.options.disableCode
          ? {}
          : { code: account.code }),
        ...(account.codeHash === undefined ? {} : { codeHash: account.codeHash }),
        ...(account.nonce === undefined || account.nonce === 0n ? {} : { nonce: Number(account.nonce) }),
        ...(storage.length === 0 ? {} : { storage: Object.fromEntries(storage) }),
      };
    }
    return printed;
  }
}

/** The address in the low 20 bytes of a stack word. */
function addressOf(word: bigint): Address {
  return new Address(setLengthLeft(bigIntToBytes(word & ((1n << 160n) - 1n)), 20));
}
