import { hash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createBlock, type Block, type BlockOptions } from '@ethereumjs/block';
import type { TxOptions } from '@ethereumjs/tx';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import {
  Account,
  Address,
  eoaCode7702AuthorizationListJSONItemToBytes,
  hexToBytes,
  MAX_INTEGER,
  setLengthLeft,
  toChecksumAddress,
  type PrefixedHexString,
} from '@ethereumjs/util';
import { runTx, type RunTxResult } from '@ethereumjs/vm';
import { LRUCache } from 'lru-cache';
import {
  authorizationItemsOf,
  callTransaction,
  checkFeeStyle,
  gasPriceOf,
  paysFees,
  pricesOf,
  senderOf,
} from './call-transaction.js';
import { gethVmError, goDuration, PrecheckError, revertError } from './call-errors.js';
import { SimulationPool } from './simulation-pool.js';
import { SimulationTimeout, type SimulationVm } from './simulation-vm.js';
import type { Chain } from '../chain.js';
import { attachTracer, traceOutcomeOf } from '../evm/evm-tracing.js';
import { transactionResultOf } from '../block-execution.js';
import { fastBlockOptions } from '../evm/evm-common.js';
import { fastTxOptions } from '../pool/raw-transaction.js';
import { ChainParams } from '../chain-params.js';
import type { BlockRecord } from '../records.js';
import type { AccessListEntry, BlockOverrides, CallRequest, StateOverrides } from '../../rpc/call-codecs.js';
import type { BlockRef } from '../../rpc/block-codecs.js';
import { EventLoopTurns } from '../../rpc/event-loop-turns.js';
import type { AccessListResult, SimulationOptions, Simulator } from '../../api/simulator.js';
import type { EvmTracer, TraceOutcome, TraceSubject } from '../../api/replayer.js';
import { CrossVmError, InvalidInputError, type RpcError } from '../../errors/rpc-error.js';

const TX_GAS = 21_000n;
/** Answers of calls without overrides kept, across the last blocks. */
const REMEMBERED_ANSWERS = 4_096;
/** Their bytes at most, keys included: a call may return megabytes. */
const REMEMBERED_ANSWER_BYTES = 32 * 1024 * 1024;

/** VMs simulated calls share: two, so that one call waiting on storage does not hold up the rest. */
const SIMULATION_VMS = 2;
/**
 * VMs traced calls share, apart from the calls': a trace holds its VM while its tracer runs (a JS
 * tracer's `result` for up to the trace's timeout), and two traces held every `eth_call` waiting.
 * As many as `max_concurrent_trace_calls` allows by default, so that traces do not wait for each other either.
 */
const TRACE_VMS = 10;
/**
 * Call data from which a run starts in a turn of the event loop of its own: building the
 * transaction and counting its gas take about 4 ms a megabyte, on top of decoding it from hex.
 */
const LONG_INPUT_BYTES = 256 * 1024;
/** How a run below the intrinsic gas fails (geth's `core.ErrIntrinsicGas`); the estimate retries it with more gas. */
const INTRINSIC_GAS_TOO_LOW = 'intrinsic gas too low';
/** How a run below the EIP-7623 calldata floor fails (geth's `core.ErrFloorDataGas`); retried likewise. */
const FLOOR_DATA_GAS_TOO_LOW = 'insufficient gas for floor data gas cost';
/** Whether a run failed only for want of the gas every transaction pays before it runs. */
const belowUpfrontGas = (error: string): boolean =>
  error.startsWith(INTRINSIC_GAS_TOO_LOW) || error.startsWith(FLOOR_DATA_GAS_TOO_LOW);

/** geth's error for a gas limit below the intrinsic gas, then below the calldata floor; undefined when it covers both. */
function upfrontGasError(gasLimit: bigint, intrinsic: bigint, floor: bigint): string | undefined {
  if (gasLimit < intrinsic) return `${INTRINSIC_GAS_TOO_LOW}: have ${gasLimit}, want ${intrinsic}`;
  if (gasLimit < floor) return `${FLOOR_DATA_GAS_TOO_LOW}: have ${gasLimit}, want ${floor}`;
  return undefined;
}
const CALL_STIPEND = 2_300n;
/** geth stops the estimate's search once the bounds are this close (1.5%). */
const ESTIMATE_ERROR_RATIO = 0.015;

export interface SimulatorSettings {
  /** `[evm] simulation_gas_limit`: the most gas a simulated call may use. */
  readonly gasCap: bigint;
  /** `[evm] simulation_evm_timeout`, in ms. */
  readonly evmTimeoutMs: number;
}

/** What one simulated transaction did. */
interface RunOutcome {
  readonly result: RunTxResult;
  /** The VM error, '' on success. */
  readonly error: string;
}

/** What one run of a call did, however it was run. */
interface Attempt {
  readonly returnValue: Uint8Array;
  /** The VM error, '' on success. */
  readonly error: string;
  /** Gas the transaction would use, refund deducted. */
  readonly gasUsed: bigint;
  readonly gasRefund: bigint;
  /** What the run read and wrote, when asked for. */
  readonly accessList?: readonly AccessListEntry[];
}

/** Call data longer than this is keyed by its digest: a remembered answer's key stays small. */
const INPUT_KEYED_BY_DIGEST_BYTES = 256;

/** A call object as a cache key: bigints as hex, the call data as hex or, when long, its SHA-256. */
function callKey({ input, ...fields }: CallRequest): string {
  const bytes = input ?? new Uint8Array(0);
  const inputKey =
    bytes.length > INPUT_KEYED_BY_DIGEST_BYTES ? hash('sha256', bytes, 'hex') : Buffer.from(bytes).toString('hex');
  return `${inputKey}|${JSON.stringify(fields, (_key, value: unknown) =>
    typeof value === 'bigint' ? `0x${value.toString(16)}` : value,
  )}`;
}

const bigMin = (a: bigint, b: bigint): bigint => (a < b ? a : b);
const bigMax = (a: bigint, b: bigint): bigint => (a > b ? a : b);

/** A run of simulated transactions on one block's state, with overrides applied. */
interface Session {
  readonly simulation: SimulationVm;
  readonly block: Block;
  run(request: CallRequest, gasLimit: bigint, keepState?: boolean, accessList?: boolean): Promise<RunOutcome>;
}

function vmErrorOf(result: RunTxResult): string {
  return result.execResult.exceptionError?.error ?? '';
}

/**
 * Simulates calls on the state after any block, as geth's `eth_call`, `eth_estimateGas` and
 * `eth_createAccessList` do: no signature or nonce checks, a gas cap, a time limit, and nothing
 * kept. Each call runs on a VM of its own from a small pool; traced calls, from a pool of their own.
 */
export class ChainSimulator implements Simulator {
  readonly #callVms: SimulationPool;
  readonly #traceVms: SimulationPool;
  readonly #answers = new LRUCache<string, Uint8Array | bigint>({
    max: REMEMBERED_ANSWERS,
    maxSize: REMEMBERED_ANSWER_BYTES,
    sizeCalculation: (answer, key) => key.length + (typeof answer === 'bigint' ? 8 : answer.length),
  });
  readonly #txOptions: TxOptions;
  readonly #blockOptions: BlockOptions;

  constructor(
    private readonly chain: Chain,
    private readonly settings: SimulatorSettings,
  ) {
    this.#callVms = new SimulationPool(chain, SIMULATION_VMS);
    this.#traceVms = new SimulationPool(chain, TRACE_VMS);
    // A call's init code may be of any size: `#run` refuses one past the limit in geth's order and words.
    this.#txOptions = { ...fastTxOptions(chain.common), allowUnlimitedInitCodeSize: true };
    this.#blockOptions = fastBlockOptions(chain.common);
  }

  /** `eth_call`: the return data; a revert or VM error is thrown as geth reports it. */
  async call(
    request: CallRequest,
    ref: BlockRef,
    overrides?: StateOverrides,
    blockOverrides?: BlockOverrides,
    { signal }: SimulationOptions = {},
  ): Promise<Uint8Array> {
    const parent = await this.#blockOf(ref, request);
    const cacheable = overrides === undefined && blockOverrides === undefined;
    return this.#remembered('call', parent, request, cacheable, () =>
      this.#session(this.#callVms, parent, overrides, blockOverrides, request, signal, async (session) => {
        const gas = this.#callGas(request);
        const { returnValue, error } = await this.#attempt(session, request, gas).catch((failure: unknown) => {
          throw failure instanceof PrecheckError ? callPrecheckError(failure.message, gas) : failure;
        });
        if (error === 'revert') throw revertOrNativeFailure(session, returnValue);
        if (belowUpfrontGas(error)) throw callPrecheckError(error, gas);
        if (error !== '') throw new InvalidInputError(gethVmError(error));
        return returnValue;
      }),
    );
  }

  /**
   * `eth_estimateGas` (and, with `precedingCalls`, `eth_estimateGasAfterCalls`): the least gas,
   * within geth's 1.5%, with which the call succeeds, found by binary search below the cap.
   */
  async estimateGas(
    request: CallRequest,
    ref: BlockRef,
    overrides?: StateOverrides,
    precedingCalls: readonly CallRequest[] = [],
    { signal }: SimulationOptions = {},
  ): Promise<bigint> {
    const parent = await this.#blockOf(ref, request);
    const cacheable = overrides === undefined && precedingCalls.length === 0;
    return this.#remembered('estimate', parent, request, cacheable, () =>
      this.#session(this.#callVms, parent, overrides, undefined, request, signal, async (session) => {
        // The calls before share one cap, as one call would have it: thirty calls of the whole
        // cap each computed for ten seconds.
        let left = this.settings.gasCap;
        for (const preceding of precedingCalls) {
          const gas = this.#callGas(preceding);
          const { result } = await session.run(preceding, gas < left ? gas : left, true);
          left -= result.totalGasSpent;
        }
        return this.#estimate(session, request).catch((failure: unknown) => {
          if (!(failure instanceof PrecheckError)) throw failure;
          throw new InvalidInputError(`failed with ${failure.gasLimit} gas: ${failure.message}`);
        });
      }),
    );
  }

  /**
   * `eth_createAccessList`: runs the call with the list it produced until the list stops
   * changing, as geth does. A VM error is part of the result, not an error. Addresses come in the
   * order first touched and slots sorted, as reth and anvil write them (geth's order is its maps').
   */
  async createAccessList(
    request: CallRequest,
    ref: BlockRef,
    { signal }: SimulationOptions = {},
  ): Promise<AccessListResult> {
    const parent = await this.#blockOf(ref, request);
    return this.#session(this.#callVms, parent, undefined, undefined, request, signal, async (session) => {
      const excluded = this.#accessListExclusions(session, request);
      let list: AccessListEntry[] = [...(request.accessList ?? [])];
      for (;;) {
        const {
          accessList = [],
          gasUsed,
          error,
        } = await this.#attempt(session, { ...request, accessList: list }, this.#callGas(request), true);
        const next = accessList
          .filter((entry) => entry.storageKeys.length > 0 || !excluded.has(entry.address))
          .map((entry) => ({ address: entry.address, storageKeys: entry.storageKeys.toSorted() }));
        if (JSON.stringify(next) === JSON.stringify(list)) {
          return { accessList: next, gasUsed, ...(error === '' ? {} : { error: gethVmError(error) }) };
        }
        list = next;
      }
    });
  }

  /**
   * `debug_traceCall`: runs the call as `eth_call` does, with the tracer `tracerFor` gives
   * attached, always as a whole transaction (so that the tracer sees the sender charged and its
   * nonce counted, as geth's does). A VM error is part of the outcome; nothing is remembered.
   */
  async trace(
    request: CallRequest,
    ref: BlockRef,
    tracerFor: (subject: TraceSubject) => EvmTracer | undefined,
    overrides: { readonly state?: StateOverrides; readonly block?: BlockOverrides } = {},
    signal?: AbortSignal,
  ): Promise<TraceOutcome> {
    signal?.throwIfAborted();
    const parent = await this.#blockOf(ref, request);
    const traced = this.#session(
      this.#traceVms,
      parent,
      overrides.state,
      overrides.block,
      request,
      signal,
      async (session) => {
        const { simulation, block } = session;
        const gasLimit = this.#callGas(request);
        simulation.nativeEffects.reset();
        const tracer = tracerFor({
          block: parent,
          hash: undefined,
          index: undefined,
          firstLogIndex: 0,
          coinbase: block.header.coinbase.toString(),
          from: senderOf(request),
          to: request.to,
          value: request.value ?? 0n,
          gasLimit,
          gasPrice: gasPriceOf(request, block.header.baseFeePerGas ?? 0n),
          input: request.input ?? new Uint8Array(0),
          ...(request.authorizationList === undefined
            ? {}
            : { authorizationList: authorizationItemsOf(request).map(eoaCode7702AuthorizationListJSONItemToBytes) }),
          state: simulation.state,
        });
        const detach = tracer === undefined ? undefined : attachTracer(simulation, tracer, signal);
        let run: RunOutcome;
        try {
          // The state it leaves stays until the session ends, for the tracer's `finish`.
          run = await session.run(request, gasLimit, true).catch((failure: unknown) => {
            throw failure instanceof PrecheckError
              ? new InvalidInputError(`tracing failed: ${failure.message}`)
              : failure;
          });
        } finally {
          detach?.();
        }
        if (belowUpfrontGas(run.error)) throw new InvalidInputError(`tracing failed: ${run.error}`);
        const outcome = traceOutcomeOf(transactionResultOf(run.result));
        await tracer?.finish?.(outcome);
        return outcome;
      },
    );
    // An abort inside the EVM comes out as the VM's failure: the signal's reason is the error.
    return traced.catch((error: unknown) => {
      signal?.throwIfAborted();
      throw error;
    });
  }

  /**
   * One run of `request` with `gasLimit` gas, as a bare message when it calls an existing address
   * without authorizations (five times cheaper), else as a whole transaction.
   */
  async #attempt(session: Session, request: CallRequest, gasLimit: bigint, reportAccessList = false): Promise<Attempt> {
    session.simulation.nativeEffects.reset();
    if (request.to !== undefined && request.authorizationList === undefined) {
      return this.#message(session, request, gasLimit, reportAccessList);
    }
    const { result, error } = await session.run(request, gasLimit, false, reportAccessList);
    return {
      returnValue: result.execResult.returnValue,
      error,
      gasUsed: result.totalGasSpent,
      gasRefund: result.gasRefund,
      ...(result.accessList === undefined
        ? {}
        : {
            accessList: result.accessList.map((entry) => ({
              address: entry.address.toLowerCase() as PrefixedHexString,
              storageKeys: entry.storageKeys,
            })),
          }),
    };
  }

  /**
   * A call to an existing address run as a bare EVM message, with what a transaction adds that
   * can change its outcome: intrinsic gas taken from the limit, and the EIP-2929/2930/3651 warm
   * set. Nothing is charged or counted (nonce, fees), which eth_call never shows, and the run
   * costs a fifth of a whole transaction's.
   */
  async #message(
    session: Session,
    request: CallRequest,
    gasLimit: bigint,
    reportAccessList: boolean,
  ): Promise<Attempt> {
    const { vm, state } = session.simulation;
    const { intrinsic, floor } = this.#intrinsicGas(request);
    const error = upfrontGasError(gasLimit, intrinsic, floor);
    if (error !== undefined) return { returnValue: new Uint8Array(0), error, gasUsed: gasLimit, gasRefund: 0n };
    await this.#checkFunds(state, request, gasLimit, session.block);
    const journal = vm.evm.journal;
    await journal.cleanup();
    if (reportAccessList) journal.startReportingAccessList();
    for (const precompile of vm.evm.precompiles.keys()) journal.addAlwaysWarmAddress(precompile);
    const caller = new Address(hexToBytes(senderOf(request)));
    const to = new Address(hexToBytes(request.to!));
    journal.addAlwaysWarmAddress(caller.toString().slice(2));
    journal.addAlwaysWarmAddress(to.toString().slice(2));
    journal.addAlwaysWarmAddress(session.block.header.coinbase.toString().slice(2));
    for (const entry of request.accessList ?? []) {
      journal.addAlwaysWarmAddress(entry.address.slice(2), true);
      for (const key of entry.storageKeys) journal.addAlwaysWarmSlot(entry.address.slice(2), key.slice(2), true);
    }
    const gasPrice = gasPriceOf(request, session.block.header.baseFeePerGas ?? 0n);
    await state.checkpoint();
    try {
      const { execResult } = await vm.evm.runCall({
        block: session.block,
        caller,
        origin: caller,
        to,
        gasPrice,
        gasLimit: gasLimit - intrinsic,
        value: request.value ?? 0n,
        data: request.input ?? new Uint8Array(0),
        skipNonceIncrement: true,
      });
      const error = execResult.exceptionError?.error ?? '';
      const spent = intrinsic + execResult.executionGasUsed;
      // EIP-3529: refunds are capped at a fifth of the gas spent; EIP-7623: calldata has a floor.
      const refund = error === '' ? bigMin(execResult.gasRefund ?? 0n, spent / 5n) : 0n;
      const gasUsed = bigMax(spent - refund, floor);
      return {
        returnValue: execResult.returnValue,
        error,
        gasUsed,
        gasRefund: refund,
        ...(journal.accessList === undefined
          ? {}
          : {
              accessList: [...journal.accessList].map(([address, slots]) => ({
                address: `0x${address}`,
                storageKeys: [...slots].map((slot): PrefixedHexString => `0x${slot}`),
              })),
            }),
      };
    } catch (error) {
      if (error instanceof SimulationTimeout) throw error;
      throw new VmFault(error);
    } finally {
      await state.revert();
    }
  }

  /** A transaction's intrinsic gas (base cost, calldata, access list) and its EIP-7623 calldata floor. */
  #intrinsicGas(request: CallRequest): { intrinsic: bigint; floor: bigint } {
    // The transaction parameters are merged into the transactions' Common, not the chain's.
    const common = this.#txOptions.common!;
    const input = request.input ?? new Uint8Array(0);
    let zeroCount = 0;
    for (let i = 0; i < input.length; i++) if (input[i] === 0) zeroCount++;
    const zeroBytes = BigInt(zeroCount);
    const otherBytes = BigInt(input.length - zeroCount);
    let intrinsic =
      common.param('txGas') + zeroBytes * common.param('txDataZeroGas') + otherBytes * common.param('txDataNonZeroGas');
    for (const entry of request.accessList ?? []) {
      intrinsic +=
        common.param('accessListAddressGas') +
        common.param('accessListStorageKeyGas') * BigInt(entry.storageKeys.length);
    }
    const tokens = zeroBytes + otherBytes * 4n;
    return { intrinsic, floor: common.param('txGas') + tokens * common.param('totalCostFloorPerToken') };
  }

  #callGas(request: CallRequest): bigint {
    const gas = request.gas ?? this.settings.gasCap;
    return gas < this.settings.gasCap ? gas : this.settings.gasCap;
  }

  async #estimate(session: Session, request: CallRequest): Promise<bigint> {
    let hi = request.gas !== undefined && request.gas >= TX_GAS ? request.gas : BigInt(session.block.header.gasLimit);
    const { feeCap } = pricesOf(request);
    if (feeCap !== 0n) {
      const account = await session.simulation.state.getAccount(new Address(hexToBytes(senderOf(request))));
      const balance = account?.balance ?? 0n;
      const value = request.value ?? 0n;
      if (value >= balance) throw new InvalidInputError('insufficient funds for transfer');
      const allowance = (balance - value) / feeCap;
      if (hi > allowance) hi = allowance;
    }
    if (hi > this.settings.gasCap) hi = this.settings.gasCap;
    const cap = hi;

    // A plain transfer costs exactly the base transaction gas: tried first, as geth does.
    if ((request.input === undefined || request.input.length === 0) && request.to !== undefined) {
      const code = await session.simulation.state.getCode(new Address(hexToBytes(request.to)));
      if (code.length === 0 && hi >= TX_GAS && (await this.#attempt(session, request, TX_GAS)).error === '')
        return TX_GAS;
    }
    const first = await this.#attempt(session, request, hi);
    if (first.error !== '') {
      if (first.error === 'revert') throw revertOrNativeFailure(session, first.returnValue);
      if (first.error === 'out of gas' || belowUpfrontGas(first.error)) {
        throw new InvalidInputError(`gas required exceeds allowance (${cap})`);
      }
      throw new InvalidInputError(gethVmError(first.error));
    }
    const used = first.gasUsed;
    let lo = used - 1n;
    const optimistic = ((used + first.gasRefund + CALL_STIPEND) * 64n) / 63n;
    if (optimistic < hi) {
      if ((await this.#attempt(session, request, optimistic)).error === '') hi = optimistic;
      else lo = optimistic;
    }
    while (lo + 1n < hi) {
      if (Number(hi - lo) / Number(hi) < ESTIMATE_ERROR_RATIO) break;
      let mid = (hi + lo) / 2n;
      if (mid > lo * 2n) mid = lo * 2n;
      if ((await this.#attempt(session, request, mid)).error === '') hi = mid;
      else lo = mid;
    }
    return hi;
  }

  /**
   * The addresses geth's access-list tracer lists only with storage slots: the sender, the
   * recipient (or created contract) and precompiles.
   */
  #accessListExclusions(session: Session, request: CallRequest): Set<string> {
    const excluded = new Set<string>([senderOf(request)]);
    if (request.to !== undefined) excluded.add(request.to);
    for (const precompile of session.simulation.vm.evm.precompiles.keys()) excluded.add(`0x${precompile}`);
    return excluded;
  }

  /** The block whose state a call reads (the state after it), once the call's fee fields are checked. */
  async #blockOf(ref: BlockRef, request: CallRequest): Promise<BlockRecord> {
    checkFeeStyle(request);
    return this.chain.stateBlockAt(await this.chain.resolveHeight(ref));
  }

  /**
   * The answer of a call without overrides, remembered per block: a block's state never changes,
   * so the same call on it always answers the same (dapps ask for the same balances and
   * allowances again and again within a block). Only successful answers are kept.
   */
  async #remembered<T extends Uint8Array | bigint>(
    kind: string,
    parent: BlockRecord,
    request: CallRequest,
    cacheable: boolean,
    compute: () => Promise<T>,
  ): Promise<T> {
    if (!cacheable) return compute();
    const key = `${kind}|${parent.hash}|${callKey(request)}`;
    const known = this.#answers.get(key);
    if (known !== undefined) return known as T;
    const answer = await compute();
    this.#answers.set(key, answer);
    return answer;
  }

  /**
   * Runs `work` on a VM at the state after `ref`'s block, with `overrides` applied, until `signal` fires, and reverts
   * everything afterwards. A VM whose run threw is not reused: its state may be mid-checkpoint.
   */
  async #session<T>(
    pool: SimulationPool,
    parent: BlockRecord,
    overrides: StateOverrides | undefined,
    blockOverrides: BlockOverrides | undefined,
    request: CallRequest,
    signal: AbortSignal | undefined,
    work: (session: Session) => Promise<T>,
  ): Promise<T> {
    const simulation = await pool.acquire();
    let reusable = true;
    simulation.startClock(this.settings.evmTimeoutMs, signal);
    try {
      await simulation.moveTo(parent.stateRoot);
      await simulation.state.checkpoint();
      try {
        if (overrides !== undefined) await applyStateOverrides(simulation.state, overrides);
        const block = this.#simulationBlock(parent, blockOverrides, paysFees(request));
        const session: Session = {
          simulation,
          block,
          run: (call, gasLimit, keepState, accessList) =>
            this.#run(simulation, block, call, gasLimit, keepState === true, accessList === true),
        };
        return await work(session);
      } finally {
        await simulation.state.revert();
      }
    } catch (error) {
      // A call stopped inside the EVM (its time up, or its caller gone) may leave it mid-checkpoint.
      reusable = !(error instanceof SimulationTimeout) && !isVmFault(error) && signal?.aborted !== true;
      if (error instanceof PrecheckError) throw new InvalidInputError(error.message);
      if (error instanceof SimulationTimeout) {
        throw new InvalidInputError(`execution aborted (timeout = ${goDuration(this.settings.evmTimeoutMs)})`);
      }
      throw error;
    } finally {
      pool.release(simulation, reusable);
    }
  }

  async #run(
    simulation: SimulationVm,
    block: Block,
    request: CallRequest,
    gasLimit: bigint,
    keepState: boolean,
    reportAccessList: boolean,
  ): Promise<RunOutcome> {
    if ((request.input?.length ?? 0) > LONG_INPUT_BYTES) await nextTurn();
    // A cost past 2^256-1 has no transaction the library builds, and no balance pays it: geth's words say so.
    if (gasLimit * pricesOf(request).feeCap > MAX_INTEGER)
      await this.#checkFunds(simulation.state, request, gasLimit, block);
    const tx = callTransaction(request, gasLimit, this.#txOptions);
    // The transaction's own intrinsic gas counts its authorizations too; ethereumjs words the floor's failure its own way.
    const error = upfrontGasError(gasLimit, tx.getIntrinsicGas(), this.#intrinsicGas(request).floor);
    if (error !== undefined) return { result: failedRun(gasLimit), error };
    await this.#checkFunds(simulation.state, request, gasLimit, block);
    this.#checkInitCodeSize(request, gasLimit);
    if (!keepState) await simulation.state.checkpoint();
    try {
      const result = await runTx(simulation.vm, {
        tx,
        block,
        skipNonce: true,
        skipBlockGasLimitValidation: true,
        skipHardForkValidation: true,
        reportAccessList,
      });
      return { result, error: vmErrorOf(result) };
    } catch (error) {
      if (error instanceof SimulationTimeout) throw error;
      throw new VmFault(error);
    } finally {
      if (!keepState) await simulation.state.revert();
    }
  }

  /** geth's pre-execution checks, with geth's words: the fee cap against the base fee, then the funds. */
  async #checkFunds(state: MerkleStateManager, request: CallRequest, gasLimit: bigint, block: Block): Promise<void> {
    const { feeCap, tip } = pricesOf(request);
    const sender = toChecksumAddress(senderOf(request));
    if (tip > feeCap && request.gasPrice === undefined) {
      throw new PrecheckError(
        `max priority fee per gas higher than max fee per gas: address ${sender}, maxPriorityFeePerGas: ${tip}, maxFeePerGas: ${feeCap}`,
        gasLimit,
      );
    }
    const baseFee = block.header.baseFeePerGas ?? 0n;
    if (feeCap < baseFee) {
      throw new PrecheckError(
        `max fee per gas less than block base fee: address ${sender}, maxFeePerGas: ${feeCap}, baseFee: ${baseFee}`,
        gasLimit,
      );
    }
    const balance = (await state.getAccount(new Address(hexToBytes(sender))))?.balance ?? 0n;
    const cost = gasLimit * feeCap + (request.value ?? 0n);
    if (balance < cost) {
      throw new PrecheckError(
        `insufficient funds for gas * price + value: address ${sender} have ${balance} want ${cost}`,
        gasLimit,
      );
    }
  }

  /** EIP-3860's limit on a creation's init code, checked after the funds as geth's state transition does. */
  #checkInitCodeSize(request: CallRequest, gasLimit: bigint): void {
    const size = request.to === undefined ? (request.input?.length ?? 0) : 0;
    const limit = this.#txOptions.common!.param('maxInitCodeSize');
    if (BigInt(size) > limit) {
      throw new PrecheckError(`max initcode size exceeded: code size ${size} limit ${limit}`, gasLimit);
    }
  }

  /** The block a call runs in: the state's own block (geth), with the overrides; a free call sees base fee 0. */
  #simulationBlock(parent: BlockRecord, overrides: BlockOverrides | undefined, withFees: boolean): Block {
    return createBlock(
      {
        header: {
          number: overrides?.number ?? BigInt(parent.height),
          timestamp: overrides?.time ?? BigInt(parent.timestamp),
          gasLimit: overrides?.gasLimit ?? BigInt(parent.gasLimit),
          baseFeePerGas: withFees ? (overrides?.baseFee ?? BigInt(parent.baseFeePerGas)) : 0n,
          coinbase: overrides?.coinbase ?? ChainParams.feeCollector,
          mixHash: overrides?.prevRandao ?? parent.prevRandao,
        },
      },
      this.#blockOptions,
    );
  }
}

/** A failure inside the VM's own checks: reported with its message, and the VM is not reused. */
class VmFault extends InvalidInputError {
  constructor(cause: unknown) {
    // ethereumjs appends VM, block and transaction details in parentheses; the reason comes first.
    super(
      String(cause instanceof Error ? cause.message : cause)
        .split(' (vm hf=')[0]!
        .split(' (block')[0]!
        .split(' (tx')[0]!,
    );
  }
}

function isVmFault(error: unknown): boolean {
  return error instanceof VmFault;
}

/** A run that did not start: what the estimate's search counts as a failure at too little gas. */
function failedRun(gasLimit: bigint): RunTxResult {
  return { totalGasSpent: gasLimit, gasRefund: 0n, execResult: { returnValue: new Uint8Array(0) } } as RunTxResult;
}

/** Applies geth's state overrides: balance, nonce and code replaced; `state` replaces storage, `stateDiff` patches it. */
async function applyStateOverrides(state: MerkleStateManager, overrides: StateOverrides): Promise<void> {
  // Each account or slot takes about 10 µs: thousands of them get turns of the event loop.
  const turns = new EventLoopTurns();
  for (const [address, override] of overrides) {
    await turns.pause();
    if (override.state !== undefined && override.stateDiff !== undefined) {
      throw new InvalidInputError(`account ${toChecksumAddress(address)} has both 'state' and 'stateDiff'`);
    }
    const at = new Address(hexToBytes(address));
    const account = (await state.getAccount(at)) ?? new Account();
    if (override.nonce !== undefined) account.nonce = override.nonce;
    if (override.balance !== undefined) account.balance = override.balance;
    await state.putAccount(at, account);
    if (override.code !== undefined) await state.putCode(at, override.code);
    if (override.state !== undefined) await state.clearStorage(at);
    for (const [slot, value] of override.state ?? override.stateDiff ?? []) {
      await turns.pause();
      await state.putStorage(at, hexToBytes(slot), setLengthLeft(hexToBytes(value), 32));
    }
  }
}

/**
 * A reverted call's error: -32500 with the native side's words when a native operation refused
 * inside it (a pointer transfer the bank refused), else geth's revert error.
 */
function revertOrNativeFailure(session: Session, returnValue: Uint8Array): RpcError {
  const details = session.simulation.nativeEffects.failureBehind(returnValue);
  return details === undefined ? revertError(returnValue) : new CrossVmError(`cross-VM error: ${details}`, details);
}

/** geth's eth_call wording of a check that failed before execution. */
function callPrecheckError(message: string, gasLimit: bigint): InvalidInputError {
  return new InvalidInputError(`err: ${message} (supplied gas ${gasLimit})`);
}
