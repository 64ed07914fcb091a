/**
 * The code a JS tracer's context runs first: a function of the host functions (which read the
 * current step, frame or result lazily) that defines geth's helper objects and globals, evaluates
 * the tracer and returns its hooks, the calls the host makes into it. The host functions, the
 * hooks and the `JSON` functions taken before the tracer's code runs stay in this closure, out of
 * the script's reach: a script that replaces `JSON.stringify` or defines `globalThis` properties
 * changes only what it sees, never the bytes the node answers with or what it asks the node.
 * Bytes are Uint8Arrays, words BigInts (hex from the host).
 */
export const JS_TRACER_PRELUDE = String.raw`
(function (host) {
'use strict';
const { stringify, parse } = JSON;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
// geth's helpers take byte arrays (Uint8Array or Array) and refuse anything else; hex strings and
// BigInts are taken too, where geth would refuse them.
const isBuffer = (value) => value instanceof Uint8Array || Array.isArray(value);
function invalidBuffer() {
  throw new TypeError('invalid buffer type');
}
function toHex(bytes) {
  if (typeof bytes === 'string') return bytes.startsWith('0x') ? bytes : '0x' + bytes;
  if (!isBuffer(bytes)) invalidBuffer();
  let hex = '0x';
  for (let i = 0; i < bytes.length; i++) hex += HEX[bytes[i] & 0xff];
  return hex;
}
function fromHex(hex) {
  const digits = hex.startsWith('0x') ? hex.slice(2) : hex;
  const even = digits.length % 2 === 0 ? digits : '0' + digits;
  const bytes = new Uint8Array(even.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(even.substr(i * 2, 2), 16);
  return bytes;
}
function bytesOf(value) {
  if (typeof value === 'string') return fromHex(value);
  if (typeof value === 'bigint') return fromHex(value.toString(16));
  if (!isBuffer(value)) invalidBuffer();
  return Uint8Array.from(value);
}
// Offsets cross to the node as JSON, where a non-finite number would arrive as 0: geth reads them
// as integers, and one that is none is out of bounds.
function integer(value, outOfBounds) {
  const number = Math.trunc(Number(value));
  if (!Number.isFinite(number)) throw new RangeError(outOfBounds());
  return number;
}
function padded(value, size) {
  const bytes = bytesOf(value);
  if (bytes.length >= size) return bytes.slice(bytes.length - size);
  const out = new Uint8Array(size);
  out.set(bytes, size - bytes.length);
  return out;
}
const toWord = (value) => padded(value, 32);
const toAddress = (value) => padded(value, 20);
const addressArg = (value) => toHex(toAddress(value));
const toContract = (from, nonce) => fromHex(host.toContract(addressArg(from), Number(nonce)));
const toContract2 = (from, salt, initcode) => fromHex(host.toContract2(addressArg(from), toHex(toWord(salt)), toHex(bytesOf(initcode))));
const isPrecompiled = (address) => host.isPrecompiled(addressArg(address));
function slice(bytes, start, end) {
  if (!isBuffer(bytes)) invalidBuffer();
  const outOfBounds = () =>
    'Tracer accessed out of bound memory: available ' + bytes.length + ', offset ' + start + ', size ' + (end - start);
  const from = integer(start, outOfBounds);
  const to = integer(end, outOfBounds);
  if (from < 0 || from > to || to > bytes.length) throw new RangeError(outOfBounds());
  return Uint8Array.from(bytes.slice(from, to));
}
const bigInt = (value, base) => (base === undefined || base === 10 ? BigInt(value) : BigInt(base === 16 ? '0x' + value : value));
Object.assign(globalThis, { toHex, toWord, toAddress, toContract, toContract2, isPrecompiled, slice, bigInt });

const op = {
  toNumber: () => host.op(),
  toString: () => host.opName(),
  isPush: () => { const code = host.op(); return code >= 0x5f && code <= 0x7f; },
};
const log = {
  op,
  stack: {
    peek: (i) => {
      const outOfBounds = () => 'tracer accessed out of bound stack: size ' + host.stackLength() + ', index ' + i;
      return BigInt(host.stackPeek(integer(i, outOfBounds)));
    },
    length: () => host.stackLength(),
  },
  memory: {
    slice: (start, end) => {
      const outOfBounds = () => 'tracer accessed out of bound memory: offset ' + start + ', end ' + end;
      return fromHex(host.memorySlice(integer(start, outOfBounds), integer(end, outOfBounds)));
    },
    getUint: (offset) => {
      const outOfBounds = () =>
        'tracer accessed out of bound memory: available ' + host.memoryLength() + ', offset ' + offset + ', size 32';
      return BigInt(host.memoryWord(integer(offset, outOfBounds)));
    },
    length: () => host.memoryLength(),
  },
  contract: {
    getCaller: () => fromHex(host.contract(0)),
    getAddress: () => fromHex(host.contract(1)),
    getValue: () => BigInt(host.contract(2)),
    getInput: () => fromHex(host.contract(3)),
  },
  getPC: () => host.pc(),
  getGas: () => host.gas(),
  getCost: () => host.cost(),
  getDepth: () => host.depth(),
  getRefund: () => host.refund(),
  getError: () => host.error(),
};
const db = {
  getBalance: (address) => BigInt(host.getBalance(addressArg(address))),
  getNonce: (address) => host.getNonce(addressArg(address)),
  getCode: (address) => fromHex(host.getCode(addressArg(address))),
  getState: (address, slot) => fromHex(host.getState(addressArg(address), toHex(toWord(slot)))),
  exists: (address) => host.exists(addressArg(address)),
};
const frame = {
  getType: () => host.frame(0),
  getFrom: () => fromHex(host.frame(1)),
  getTo: () => fromHex(host.frame(2)),
  getInput: () => fromHex(host.frame(3)),
  getGas: () => Number(host.frame(4)),
  getValue: () => { const value = host.frame(5); return value === undefined ? undefined : BigInt(value); },
};
const frameResult = {
  getGasUsed: () => Number(host.frameResult(0)),
  getOutput: () => fromHex(host.frameResult(1)),
  getError: () => host.frameResult(2),
};
const BYTE_FIELDS = ['from', 'to', 'input', 'output', 'coinbase', 'blockHash', 'txHash'];
function context() {
  const ctx = parse(host.context());
  for (const field of BYTE_FIELDS) if (ctx[field] !== undefined) ctx[field] = fromHex(ctx[field]);
  ctx.value = BigInt(ctx.value);
  return ctx;
}
function synthetic() {
  const transfer = parse(host.syntheticOp());
  return { type: 'transfer', from: fromHex(transfer.from), to: fromHex(transfer.to), amount: BigInt(transfer.amount), denom: transfer.denom };
}
const printable = (_key, value) => (typeof value === 'bigint' ? Number(value) : value);

const tracer = (0, eval)('(' + host.code() + '\n)');
if (tracer === null || typeof tracer !== 'object') throw new TypeError('the tracer is not an object');
for (const name of ['step', 'fault', 'result']) {
  if (typeof tracer[name] !== 'function') throw new TypeError('trace object must expose a function ' + name + '()');
}
const optional = (name) => typeof tracer[name] === 'function';
return {
  has: (name) => optional(name),
  setup: () => { if (optional('setup')) tracer.setup(parse(host.config())); },
  step: () => { tracer.step(log, db); },
  fault: () => { tracer.fault(log, db); },
  enter: () => { tracer.enter(frame); },
  exit: () => { tracer.exit(frameResult); },
  syntheticOp: () => { tracer.syntheticOp(synthetic(), db); },
  result: () => stringify(tracer.result(context(), db), printable) ?? 'null',
};
})
`;
