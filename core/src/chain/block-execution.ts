import { createBlock, type Block, type BlockOptions } from '@ethereumjs/block';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Account, Address, hexToBytes } from '@ethereumjs/util';
import type { Log } from '@ethereumjs/evm';
import { runTx, type Bloom, type RunTxResult, type VM } from '@ethereumjs/vm';
import type { Chain } from './chain.js';
import { ChainParams } from './chain-params.js';
import { createChainVM } from './evm/chain-vm.js';
import { precompileThreads, type ComputeDeadline } from './evm/precompile-threads.js';
import type { TracedOpcodes } from './evm/traced-opcodes.js';
import { associateSendersBeforeExecution } from './native/association.js';
import { runPlainTransfer } from './plain-transfer.js';
import { EventLoopTurns } from '../rpc/event-loop-turns.js';
import type { NativeEffects } from './native/native-effects.js';

/**
 * How the block producer runs a block's transactions, shared with the replayer so that a replay
 * runs every transaction exactly as its block did.
 */

/** The header fields of a block that its transactions see. */
export interface ExecutionHeader {
  readonly number: bigint;
  /** Seconds. */
  readonly timestamp: bigint;
  readonly gasLimit: bigint;
  readonly baseFee: bigint;
  /** PREVRANDAO (mixHash). */
  readonly prevRandao: Uint8Array;
}

/** The ethereumjs block a block's transactions run in; COINBASE is the fee collector (decisions.md D4). */
export function executionBlock(header: ExecutionHeader, options: BlockOptions): Block {
  return createBlock(
    {
      header: {
        number: header.number,
        timestamp: header.timestamp,
        gasLimit: header.gasLimit,
        baseFeePerGas: header.baseFee,
        coinbase: ChainParams.feeCollector,
        mixHash: header.prevRandao,
      },
    },
    options,
  );
}

/** What a VM that replays blocks for clients has beyond the producer's. */
export interface ReplayVmOptions {
  readonly tracedOpcodes: TracedOpcodes;
  /** When a replay's precompile computation is abandoned: its client left. */
  readonly deadline: ComputeDeadline;
}

/**
 * A VM that runs blocks on `state`: the chain's rules, and senders associated as they first sign.
 * A replay's expensive precompiles compute on the clients' threads, the node's own blocks' on the chain's.
 */
export async function createBlockVM(
  chain: Pick<Chain, 'common' | 'store' | 'denoms'>,
  state: MerkleStateManager,
  nativeEffects: NativeEffects,
  replay?: ReplayVmOptions,
): Promise<VM> {
  const vm = await createChainVM({
    common: chain.common,
    store: chain.store,
    stateManager: state,
    denoms: chain.denoms,
    nativeEffects,
    precompileThreads: replay === undefined ? precompileThreads.chain : precompileThreads.requests,
    ...(replay === undefined ? {} : { tracedOpcodes: replay.tracedOpcodes, deadline: replay.deadline }),
  });
  associateSendersBeforeExecution(vm, chain.denoms);
  // A transaction may compute for as long as a block's gas allows (a 12M-gas loop: over 100 ms):
  // its long call frames give other work turns.
  vm.evm.turns = new EventLoopTurns();
  return vm;
}

/** What one of a block's transactions did, for its receipt and its trace. */
export interface TransactionResult {
  /** Gas charged, refund deducted: the receipt's `gasUsed`. */
  readonly gasUsed: bigint;
  readonly logs: readonly Log[];
  readonly bloom: Bloom;
  readonly returnValue: Uint8Array;
  /** ethereumjs' error text when the execution failed (the receipt's status 0). */
  readonly error: string | undefined;
  readonly createdAddress: Address | undefined;
}

/**
 * Runs one of a block's EVM transactions and pays its base fee to the fee collector. Throws when
 * the transaction fails its checks (the producer then drops it). A plain transfer skips the EVM
 * unless `traced`: a tracer sees the transaction's message and frames.
 */
export async function runBlockTransaction(
  vm: VM,
  tx: TypedTransaction,
  block: Block,
  blockGasUsed: bigint,
  traced: boolean,
): Promise<TransactionResult> {
  const result =
    (traced ? undefined : await runPlainTransfer(vm, tx, block)) ??
    (await runEvmTransaction(vm, tx, block, blockGasUsed));
  await payBaseFee(vm.stateManager, result.gasUsed * (block.header.baseFeePerGas ?? 0n));
  return result;
}

async function runEvmTransaction(
  vm: VM,
  tx: TypedTransaction,
  block: Block,
  blockGasUsed: bigint,
): Promise<TransactionResult> {
  return transactionResultOf(await runTx(vm, { tx, block, blockGasUsed, skipHardForkValidation: true }));
}

/** What ethereumjs' `runTx` reports, as a {@link TransactionResult}. */
export function transactionResultOf(result: RunTxResult): TransactionResult {
  return {
    gasUsed: result.totalGasSpent,
    logs: result.receipt.logs,
    bloom: result.bloom,
    returnValue: result.execResult.returnValue,
    error: result.execResult.exceptionError?.error,
    createdAddress: result.createdAddress,
  };
}

/** The EVM burns the base fee; here it goes to the fee collector with the tips (decisions.md D4). */
async function payBaseFee(state: VM['stateManager'], amount: bigint): Promise<void> {
  if (amount === 0n) return;
  const collector = new Address(hexToBytes(ChainParams.feeCollector));
  // Without tips it may not exist yet: empty accounts are removed after each transaction.
  const account = (await state.getAccount(collector)) ?? new Account();
  account.balance += amount;
  await state.putAccount(collector, account);
}
