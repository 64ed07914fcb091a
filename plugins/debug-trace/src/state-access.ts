import type { BlockRecord, EvmTracer, ReceiptFields, StateAccess } from '@evmnode/core';
import { bytesToHex, intToHex, type PrefixedHexString } from '@ethereumjs/util';

/** One module's records a transaction touched: the value each had before it, and the value it left. */
interface ModuleAccesses {
  /** Records read before the transaction wrote them: the value it found. */
  readonly reads: Record<PrefixedHexString, PrefixedHexString>;
  /** Records written: the last value written, reverted writes included. */
  readonly writes: Record<PrefixedHexString, PrefixedHexString>;
}

/** A consensus-side record the trace rests on, as the consensus RPC would answer for it. */
interface ConsensusTrace {
  readonly endpoint: 'block';
  readonly arguments: readonly string[];
  readonly response: unknown;
}

/** `debug_traceStateAccess`'s answer (decisions.md D7). */
export interface StateAccessReport {
  readonly app: { readonly modules: Record<string, ModuleAccesses> };
  readonly consensus: { readonly traces: readonly ConsensusTrace[] };
  readonly receipt: { readonly traces: readonly unknown[] };
}

/** Collects a transaction's state accesses by module, in the order it made them. */
export class StateAccessTracer implements EvmTracer {
  readonly modules: Record<string, ModuleAccesses> = {};

  stateAccess({ module, op, key, value }: StateAccess): void {
    const accesses = (this.modules[module] ??= { reads: {}, writes: {} });
    const record = bytesToHex(key);
    if (op === 'write') accesses.writes[record] = bytesToHex(value);
    else if (!(record in accesses.reads) && !(record in accesses.writes)) accesses.reads[record] = bytesToHex(value);
  }
}

/** The consensus record of `block`: its header, hash, state root and native transactions. */
export function consensusTraceOf(block: BlockRecord): ConsensusTrace {
  return {
    endpoint: 'block',
    arguments: [String(block.height)],
    response: {
      hash: block.hash,
      height: block.height,
      header: block.header,
      stateRoot: block.stateRoot,
      nativeTransactions: block.nativeTransactions,
    },
  };
}

/** A stored receipt in the short form the receipt traces list. */
export function receiptTraceOf(height: number, receipt: ReceiptFields) {
  return {
    blockNumber: intToHex(height),
    contractAddress: receipt.contractAddress,
    cumulativeGasUsed: receipt.cumulativeGasUsed,
    effectiveGasPrice: receipt.effectiveGasPrice,
    from: receipt.from,
    to: receipt.to,
    gasUsed: receipt.gasUsed,
    status: intToHex(receipt.status),
    type: receipt.type,
    transactionHash: receipt.transactionHash,
    transactionIndex: intToHex(receipt.transactionIndex),
  };
}
