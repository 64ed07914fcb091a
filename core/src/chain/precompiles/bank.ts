import type { CustomPrecompile, Message, PrecompileInput } from '@ethereumjs/evm';
import { Address, bytesToHex, equalsBytes, hexToBytes } from '@ethereumjs/util';
import type { Hex } from 'viem';
import type { PrecompileContext } from './index.js';
import {
  decodeCalldata,
  PrecompileRevert,
  requireNoValue,
  requireNotStatic,
  revertData,
  runPrecompile,
  unknownFunctionReason,
  type Viem,
} from './precompile-call.js';
import { Bank, BANK_ADDRESS } from '../native/bank.js';
import { NativeError } from '../native/native-error.js';
import type { NativeEffects } from '../native/native-effects.js';
import type { DenomMetadata } from '../native/native-types.js';

type BankFunction = 'send' | 'balance' | 'supply' | 'name' | 'symbol' | 'decimals';

/** The bank precompile's functions by selector (the reference chain's IBank). */
const functionBySelector = new Map<string, BankFunction>([
  ['0x5c05961b', 'send'],
  ['0x16cadeab', 'balance'],
  ['0x6923a1fd', 'supply'],
  ['0x5b43bc99', 'name'],
  ['0x41bb0559', 'symbol'],
  ['0x3b2b3204', 'decimals'],
]);

function parseBankAbi(viem: Viem) {
  return viem.parseAbi([
    'function send(address fromAddress, address toAddress, string denom, uint256 amount) returns (bool success)',
    'function balance(address acc, string denom) view returns (uint256 amount)',
    'function supply(string denom) view returns (uint256 response)',
    'function name(string denom) view returns (string response)',
    'function symbol(string denom) view returns (string response)',
    'function decimals(string denom) view returns (uint8 response)',
  ]);
}
type BankAbi = ReturnType<typeof parseBankAbi>;
let bankAbi: BankAbi | undefined;

/** Gas, as the reference chain charges it: a read costs 1,000 plus 3 per byte of its arguments. */
const Gas = {
  readFlat: 1_000n,
  readPerArgumentByte: 3n,
  send: 30_000n,
  unknownFunction: 3_000n,
} as const;

function gasOf(name: BankFunction | undefined, data: Uint8Array): bigint {
  switch (name) {
    case undefined:
      return Gas.unknownFunction;
    case 'send':
      return Gas.send;
    case 'balance':
    case 'supply':
    case 'name':
    case 'symbol':
    case 'decimals':
      return Gas.readFlat + Gas.readPerArgumentByte * BigInt(data.length - 4);
  }
}

/** What a call to the precompile runs with. */
interface BankCall {
  readonly viem: Viem;
  readonly abi: BankAbi;
  readonly bank: Bank;
  readonly message: Message;
  readonly effects: NativeEffects;
}

/**
 * The bank precompile at 0x…1001: balances, supply and metadata of the native denominations, and
 * `send`, which only a denomination's ERC20 pointer may call: it is how the pointer moves the
 * native balances its holders see.
 */
export function bankPrecompile(context: PrecompileContext): CustomPrecompile {
  return {
    address: new Address(BANK_ADDRESS),
    function: (input) => runBank(input, context),
  };
}

function runBank(input: PrecompileInput, context: PrecompileContext) {
  const data = bytesToHex(input.data);
  const name = input.data.length < 4 ? undefined : functionBySelector.get(data.slice(0, 10));
  return runPrecompile(input, gasOf(name, input.data), (viem) => {
    const call: BankCall = {
      viem,
      abi: (bankAbi ??= parseBankAbi(viem)),
      bank: new Bank(input._EVM.stateManager, context.denoms),
      message: context.currentMessage.get(),
      effects: context.nativeEffects,
    };
    return execute(name, data, call);
  });
}

async function execute(name: BankFunction | undefined, data: Hex, call: BankCall): Promise<Hex> {
  if (name === undefined) throw new PrecompileRevert(unknownFunctionReason(data));
  const decoded = decodeCalldata('bank', () => call.viem.decodeFunctionData({ abi: call.abi, data }));
  requireNoValue(call.message.value);
  const { abi, bank } = call;
  switch (decoded.functionName) {
    case 'send':
      return send(call, ...decoded.args);
    case 'balance': {
      const [account, denom] = decoded.args;
      requireKnown(call, denom);
      const result = await bank.balance(hexToBytes(account), denom);
      return call.viem.encodeFunctionResult({ abi, functionName: 'balance', result });
    }
    case 'supply': {
      const [denom] = decoded.args;
      requireKnown(call, denom);
      return call.viem.encodeFunctionResult({ abi, functionName: 'supply', result: await bank.supply(denom) });
    }
    case 'name':
      return call.viem.encodeFunctionResult({
        abi,
        functionName: 'name',
        result: metadataOf(call, decoded.args[0]).name,
      });
    case 'symbol': {
      const result = metadataOf(call, decoded.args[0]).symbol;
      return call.viem.encodeFunctionResult({ abi, functionName: 'symbol', result });
    }
    case 'decimals': {
      const result = metadataOf(call, decoded.args[0]).decimals;
      return call.viem.encodeFunctionResult({ abi, functionName: 'decimals', result });
    }
  }
}

/**
 * Moves `amount` of `denom` for its pointer contract, the only caller allowed. A refusal of the
 * bank (insufficient funds) reverts with the bank's message and is reported as a native failure,
 * which a failed call shows as a cross-VM error.
 */
async function send(call: BankCall, from: Hex, to: Hex, denom: string, amount: bigint): Promise<Hex> {
  requireNotStatic(call.message.isStatic, 'cannot call send from staticcall');
  const pointer = await call.bank.pointerOf(denom);
  if (pointer === undefined || !equalsBytes(pointer, call.message.caller.bytes)) {
    throw new PrecompileRevert(`only the pointer contract of ${denom} can send it`);
  }
  // A transfer of nothing succeeds without touching the bank, as ERC20 transfers of 0 must.
  if (amount > 0n) {
    const [source, target] = [hexToBytes(from), hexToBytes(to)];
    try {
      await call.bank.send(source, target, [{ denom, amount }]);
    } catch (error) {
      if (!(error instanceof NativeError)) throw error;
      call.effects.failed(error.message, revertData(call.viem, error.message));
      throw new PrecompileRevert(error.message);
    }
    call.effects.transferred({ from: bytesToHex(source), to: bytesToHex(target), denom, amount });
  }
  return call.viem.encodeFunctionResult({ abi: call.abi, functionName: 'send', result: true });
}

function requireKnown(call: BankCall, denom: string): void {
  if (!call.bank.knows(denom)) throw new PrecompileRevert(`denom ${denom} not found`);
}

function metadataOf(call: BankCall, denom: string): DenomMetadata {
  const metadata = call.bank.metadata(denom);
  if (metadata === undefined) throw new PrecompileRevert(`denom ${denom} not found`);
  return metadata;
}
