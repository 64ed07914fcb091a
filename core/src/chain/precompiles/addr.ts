import type { StateManagerInterface } from '@ethereumjs/common';
import type { CustomPrecompile, ExecResult, PrecompileInput } from '@ethereumjs/evm';
import { Address, bytesToBigInt, bytesToHex, hexToBytes } from '@ethereumjs/util';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak256 } from '../native-crypto.js';
import type { Hex } from 'viem';
import type { PrecompileContext } from './index.js';
import {
  decodeCalldata,
  PrecompileRevert,
  requireNoValue,
  requireNotStatic,
  runPrecompile,
  unknownFunctionReason,
  type Viem,
} from './precompile-call.js';
import { ChainParams } from '../chain-params.js';
import type { Denoms } from '../native/bank.js';
import { decodeNativeAddress, encodeNativeAddress, NativeAddressError } from '../native/addresses.js';
import {
  ADDR_PRECOMPILE_ADDRESS,
  addressPairOf,
  associatedEvmAddress,
  associatedNativeAddress,
  associate as associateAddresses,
  type AddressPair,
} from '../native/association.js';

type AddrFunction = 'getSeiAddr' | 'getEvmAddr' | 'associate' | 'associatePubKey';

/** The `addr` precompile's functions by selector (decisions.md D5). */
const functionBySelector = new Map<string, AddrFunction>([
  ['0x0c3c20ed', 'getSeiAddr'],
  ['0x1778e539', 'getEvmAddr'],
  ['0x8941d0e3', 'associate'],
  ['0x1494082b', 'associatePubKey'],
]);

function parseAddrAbi(viem: Viem) {
  return {
    functions: viem.parseAbi([
      'function getSeiAddr(address addr) view returns (string response)',
      'function getEvmAddr(string addr) view returns (address response)',
      'function associate(string v, string r, string s, string customMessage) returns (string seiAddr, address evmAddr)',
      'function associatePubKey(string pubKeyHex) returns (string seiAddr, address evmAddr)',
    ]),
    /**
     * `associate`'s arguments with the message read as bytes, which are ABI-encoded like a
     * string: the signature is over the message's exact bytes, which need not be UTF-8.
     */
    associateArguments: viem.parseAbiParameters('string v, string r, string s, bytes customMessage'),
  };
}
type AddrAbi = ReturnType<typeof parseAddrAbi>;
let addrAbi: AddrAbi | undefined;

/**
 * Gas, as the reference chain charges it: a lookup costs a store read, 1,000 plus 3 per byte of
 * its arguments; an association a fixed 50,000; a call naming no function 3,000.
 */
const Gas = {
  lookupFlat: 1_000n,
  lookupPerArgumentByte: 3n,
  association: 50_000n,
  unknownFunction: 3_000n,
} as const;

function gasOf(name: AddrFunction | undefined, data: Uint8Array): bigint {
  switch (name) {
    case undefined:
      return Gas.unknownFunction;
    case 'getSeiAddr':
    case 'getEvmAddr':
      return Gas.lookupFlat + Gas.lookupPerArgumentByte * BigInt(data.length - 4);
    case 'associate':
    case 'associatePubKey':
      return Gas.association;
  }
}

/** What a call to the precompile runs with. */
interface AddrCall {
  readonly viem: Viem;
  readonly abi: AddrAbi;
  readonly denoms: Denoms;
  readonly state: StateManagerInterface;
  readonly isStatic: boolean;
  readonly value: bigint;
}

/**
 * The `addr` precompile at 0x…1004: the native address of an EVM address and the reverse, for
 * associated addresses only, and association by a signature or a public key.
 */
export function addrPrecompile(context: PrecompileContext): CustomPrecompile {
  return {
    address: new Address(hexToBytes(ADDR_PRECOMPILE_ADDRESS)),
    function: (input) => runAddr(input, context),
  };
}

function runAddr(input: PrecompileInput, context: PrecompileContext): Promise<ExecResult> {
  const data = bytesToHex(input.data);
  const name = input.data.length < 4 ? undefined : functionBySelector.get(data.slice(0, 10));
  return runPrecompile(input, gasOf(name, input.data), (viem) => {
    const message = context.currentMessage.get();
    const call: AddrCall = {
      viem,
      abi: (addrAbi ??= parseAddrAbi(viem)),
      denoms: context.denoms,
      state: input._EVM.stateManager,
      isStatic: message.isStatic,
      value: message.value,
    };
    return execute(name, data, call);
  });
}

async function execute(name: AddrFunction | undefined, data: Hex, call: AddrCall): Promise<Hex> {
  if (name === undefined) throw new PrecompileRevert(unknownFunctionReason(data));
  const decoded = decodeCalldata('addr', () => call.viem.decodeFunctionData({ abi: call.abi.functions, data }));
  switch (decoded.functionName) {
    case 'getSeiAddr':
      return getSeiAddr(call, decoded.args[0]);
    case 'getEvmAddr':
      return getEvmAddr(call, decoded.args[0]);
    case 'associate':
      return associate(call, data);
    case 'associatePubKey':
      return associatePubKey(call, decoded.args[0]);
  }
}

async function getSeiAddr(call: AddrCall, evmAddress: Hex): Promise<Hex> {
  requireNoValue(call.value);
  const native = await associatedNativeAddress(call.state, hexToBytes(evmAddress));
  if (native === undefined)
    throw new PrecompileRevert(`EVM address ${call.viem.getAddress(evmAddress)} is not associated`);
  return call.viem.encodeFunctionResult({
    abi: call.abi.functions,
    functionName: 'getSeiAddr',
    result: encodeNativeAddress(native),
  });
}

async function getEvmAddr(call: AddrCall, nativeAddress: string): Promise<Hex> {
  requireNoValue(call.value);
  let native: Uint8Array;
  try {
    native = decodeNativeAddress(nativeAddress);
  } catch (error) {
    if (error instanceof NativeAddressError) throw new PrecompileRevert(error.message);
    throw error;
  }
  const evm = await associatedEvmAddress(call.state, native);
  if (evm === undefined) {
    throw new PrecompileRevert(`${ChainParams.bech32Prefix} address ${nativeAddress} is not associated`);
  }
  return call.viem.encodeFunctionResult({
    abi: call.abi.functions,
    functionName: 'getEvmAddr',
    result: bytesToHex(evm),
  });
}

/** Associates the key that signed keccak256(customMessage); v is the recovery id (0 or 1). */
async function associate(call: AddrCall, data: Hex): Promise<Hex> {
  requireNotStatic(call.isStatic, 'cannot call associate precompile from staticcall');
  requireNoValue(call.value);
  const [v, r, s, customMessage] = call.viem.decodeAbiParameters(call.abi.associateArguments, `0x${data.slice(10)}`);
  const signature = { r: signatureNumber(r), s: signatureNumber(s), v: signatureNumber(v) };
  const signer = recoverSigner(signature, keccak256(hexToBytes(customMessage)));
  return associatePair(call, 'associate', addressPairOf(signer));
}

/** Associates a public key given as hex without 0x (compressed, or uncompressed). */
async function associatePubKey(call: AddrCall, pubKeyHex: string): Promise<Hex> {
  requireNotStatic(call.isStatic, 'cannot call associate pub key precompile from staticcall');
  requireNoValue(call.value);
  const publicKey = decodeGoHex(pubKeyHex);
  if (publicKey.length !== 33 && publicKey.length !== 65) {
    throw new PrecompileRevert(`malformed public key: invalid length: ${publicKey.length}`);
  }
  let pair: AddressPair;
  try {
    pair = addressPairOf(publicKey);
  } catch {
    throw new PrecompileRevert('invalid public key: not a point on the secp256k1 curve');
  }
  return associatePair(call, 'associatePubKey', pair);
}

async function associatePair(
  call: AddrCall,
  functionName: 'associate' | 'associatePubKey',
  pair: AddressPair,
): Promise<Hex> {
  const seiAddr = encodeNativeAddress(pair.native);
  const evmAddr = call.viem.getAddress(bytesToHex(pair.evm));
  if ((await associatedEvmAddress(call.state, pair.native)) !== undefined) {
    throw new PrecompileRevert(`address ${seiAddr} is already associated with evm address ${evmAddr}`);
  }
  await associateAddresses(call.state, pair, call.denoms);
  return call.viem.encodeFunctionResult({ abi: call.abi.functions, functionName, result: [seiAddr, evmAddr] });
}

const SECP256K1_ORDER = secp256k1.Point.Fn.ORDER;

/**
 * The uncompressed public key that signed `messageHash`. As for transactions since Homestead, s
 * must be in the lower half of the curve order.
 */
function recoverSigner(signature: { r: bigint; s: bigint; v: bigint }, messageHash: Uint8Array): Uint8Array {
  const { r, s, v } = signature;
  if ((v !== 0n && v !== 1n) || r < 1n || r >= SECP256K1_ORDER || s < 1n || s > SECP256K1_ORDER / 2n) {
    throw new PrecompileRevert('invalid transaction v, r, s values');
  }
  try {
    return new secp256k1.Signature(r, s, Number(v)).recoverPublicKey(messageHash).toBytes(false);
  } catch {
    throw new PrecompileRevert('recovery failed');
  }
}

/** A signature number given as hex: an optional 0x prefix; an odd number of digits reads as with a leading 0. */
function signatureNumber(text: string): bigint {
  const digits = text.startsWith('0x') ? text.slice(2) : text;
  return bytesToBigInt(decodeGoHex(digits.length % 2 === 1 ? `0${digits}` : digits));
}

/**
 * Hex digits to bytes with the rules and messages of Go's `encoding/hex`, which the reference
 * chain uses for these arguments: no prefix, an even number of digits, and the first byte that is
 * not a digit named in the revert reason.
 */
function decodeGoHex(text: string): Uint8Array {
  const bytes = new TextEncoder().encode(text);
  const invalid = bytes.find((byte) => !isHexDigit(byte));
  if (invalid !== undefined) throw new PrecompileRevert(`encoding/hex: invalid byte: ${goRuneName(invalid)}`);
  if (bytes.length % 2 === 1) throw new PrecompileRevert('encoding/hex: odd length hex string');
  return hexToBytes(`0x${text}`);
}

function isHexDigit(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);
}

/** Go's `%#U` of a byte: `U+0078 'x'`, the quoted character only when it is printable. */
function goRuneName(byte: number): string {
  const code = `U+${byte.toString(16).toUpperCase().padStart(4, '0')}`;
  const printable = (byte >= 0x20 && byte <= 0x7e) || (byte >= 0xa1 && byte !== 0xad);
  return printable ? `${code} '${String.fromCharCode(byte)}'` : code;
}
