import type { Common } from '@ethereumjs/common';
import { getOpcodesForHF, paramsEVM } from '@ethereumjs/evm';
import { Address, bigIntToBytes, bytesToHex, setLengthLeft } from '@ethereumjs/util';
import type { FrameType, TracedLog, TracedSelfDestruct } from '../../api/replayer.js';
import type { CustomOpcodes } from './chain-vm.js';

/** An added opcode of `customOpcodes` (the package does not export its name). */
type AddedOpcode = Extract<CustomOpcodes[number], { logicFunction: unknown }>;
type OpHandler = AddedOpcode['logicFunction'];
type RunState = Parameters<OpHandler>[0];

/** The opcodes that open a call frame, by code. */
const FRAME_OPCODES: ReadonlyMap<number, FrameType> = new Map([
  [0xf0, 'CREATE'],
  [0xf1, 'CALL'],
  [0xf2, 'CALLCODE'],
  [0xf4, 'DELEGATECALL'],
  [0xf5, 'CREATE2'],
  [0xfa, 'STATICCALL'],
]);
const LOG_OPCODES = [0xa0, 0xa1, 0xa2, 0xa3, 0xa4];
const SELFDESTRUCT = 0xff;

/**
 * What tracers need that ethereumjs does not announce: which opcode opened a frame (its messages
 * look alike: a CALL in a static frame is as static as a STATICCALL), each log as it is emitted,
 * and self-destructs. The VM's own handlers of those opcodes are wrapped, so that nothing runs
 * per opcode for the others and no `step` hook is needed.
 */
export class TracedOpcodes {
  #lastFrameOpcode: FrameType = 'CALL';
  /** Told of each log while set. */
  onLog: ((log: TracedLog) => void) | undefined;
  /** Told of each self-destruct while set. */
  onSelfDestruct: ((selfDestruct: TracedSelfDestruct) => void) | undefined;

  /**
   * The type of a frame starting now at `depth`: nothing runs between the opcode that opens a
   * nested frame and that frame's start, so it is the last such opcode.
   */
  frameType(depth: number, isCreation: boolean): FrameType {
    if (depth === 0) return isCreation ? 'CREATE' : 'CALL';
    return this.#lastFrameOpcode;
  }

  /** The wrapped opcodes, for `createChainVM`'s `customOpcodes`, with the rules of `chainCommon`. */
  customOpcodes(chainCommon: Common): CustomOpcodes {
    // The opcode table needs the EVM's parameters, which the chain's Common leaves to the EVM.
    const common = chainCommon.copy();
    common.updateParams(paramsEVM);
    const { opcodeMap, handlers, dynamicGasHandlers } = getOpcodesForHF(common);
    const wrap = (code: number, logic: (original: OpHandler) => OpHandler): AddedOpcode => {
      const info = opcodeMap[code]!.opcodeInfo;
      const gasFunction = dynamicGasHandlers.get(code);
      return {
        opcode: code,
        opcodeName: info.name,
        baseFee: info.fee,
        ...(gasFunction === undefined ? {} : { gasFunction }),
        logicFunction: logic(handlers.get(code)!),
      };
    };
    return [
      ...[...FRAME_OPCODES].map(([code, type]) =>
        wrap(code, (original) => (runState, opCommon) => {
          this.#lastFrameOpcode = type;
          return original(runState, opCommon);
        }),
      ),
      ...LOG_OPCODES.map((code) =>
        wrap(code, (original) => async (runState, opCommon) => {
          await original(runState, opCommon);
          if (this.onLog !== undefined) this.onLog(lastLogOf(runState));
        }),
      ),
      wrap(SELFDESTRUCT, (original) => async (runState, opCommon) => {
        if (this.onSelfDestruct !== undefined) {
          const address = runState.interpreter.getAddress();
          const [beneficiary] = runState.stack.peek(1);
          const account = await runState.stateManager.getAccount(address);
          this.onSelfDestruct({
            address: address.toString(),
            beneficiary: new Address(setLengthLeft(bigIntToBytes(beneficiary!), 20)).toString(),
            value: account?.balance ?? 0n,
          });
        }
        return original(runState, opCommon);
      }),
    ];
  }
}

function lastLogOf(runState: RunState): TracedLog {
  const [address, topics, data] = runState.interpreter._result.logs.at(-1)!;
  return { address: bytesToHex(address), topics: topics.map((topic) => bytesToHex(topic)), data };
}
