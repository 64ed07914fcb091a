import { expect } from 'chai';
import {
  address,
  arrayOf,
  blockNumberOrTag,
  blockRef,
  boolean,
  CodecError,
  data,
  defineMethod,
  hash,
  isCodecError,
  isRpcError,
  objectOf,
  quantity,
  type RpcError,
  stateOverrides,
  string,
  uint64,
  type ParamCodec,
  type Turns,
} from '@evmnode/core';
// After '@evmnode/core', which loads the reflect-metadata polyfill the internal entry needs.
import { decodeParams } from '@evmnode/core/internal';

/** Runs `run` and returns the CodecError it throws; fails when it throws nothing or something else. */
function codecErrorOf(run: () => unknown): CodecError {
  let result: unknown;
  try {
    result = run();
  } catch (error) {
    if (isCodecError(error)) return error;
    throw error;
  }
  return expect.fail(`expected a CodecError, got the value ${String(result)}`);
}

/** Runs `run` and returns the RpcError it throws; fails when it throws nothing or something else. */
function rpcErrorOf(run: () => unknown): RpcError {
  let result: unknown;
  try {
    result = run();
  } catch (error) {
    if (isRpcError(error)) return error;
    throw error;
  }
  return expect.fail(`expected an RpcError, got the value ${String(result)}`);
}

/** Runs `run` and returns the TypeError it throws. */
function typeErrorOf(run: () => unknown): TypeError {
  try {
    run();
  } catch (error) {
    if (error instanceof TypeError) return error;
    throw error;
  }
  return expect.fail('expected a TypeError');
}

const ADDRESS_MIXED = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const ADDRESS = '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed';
const OTHER_ADDRESS = '0x' + '11'.repeat(20);
const HASH_MIXED = '0x' + 'aB'.repeat(32);
const HASH = '0x' + 'ab'.repeat(32);
const OTHER_HASH = '0x' + 'cd'.repeat(32);

describe('CodecError', () => {
  it("renders a Go type as Go's json wording and keeps the reason", () => {
    const error = new CodecError('non-string', '*hexutil.Big');
    expect(error.message).to.equal('json: cannot unmarshal non-string into Go value of type *hexutil.Big');
    expect(error.reason).to.equal('non-string');
    expect(error.goType).to.equal('*hexutil.Big');
  });

  it('renders a bare reason when there is no Go type', () => {
    expect(new CodecError('block number larger than int64').message).to.equal('block number larger than int64');
  });

  it("renders Go's struct-field wording with inField, and the bare reason without a Go type", () => {
    expect(new CodecError('non-string', 'common.Address').inField('TransactionArgs', 'to')).to.equal(
      'json: cannot unmarshal non-string into Go struct field TransactionArgs.to of type common.Address',
    );
    expect(new CodecError('oops').inField('TransactionArgs', 'to')).to.equal('oops');
  });

  it('is recognised by isCodecError by brand, and nothing else is', () => {
    expect(isCodecError(new CodecError('x'))).to.equal(true);
    expect(isCodecError({ [Symbol.for('evmnode.codec-error')]: true, message: 'x' })).to.equal(true);
    expect(isCodecError(new Error('x'))).to.equal(false);
    expect(isCodecError(null)).to.equal(false);
    expect(isCodecError('x')).to.equal(false);
  });
});

describe('quantity codec', () => {
  it('names the Go type *hexutil.Big and is required', () => {
    expect(quantity.goType).to.equal('*hexutil.Big');
    expect(quantity.isOptional).to.equal(false);
  });

  it('decodes hex quantities to bigints', () => {
    expect(quantity.decode('0x0')).to.equal(0n);
    expect(quantity.decode('0x1f')).to.equal(31n);
    expect(quantity.decode('0X2F2')).to.equal(0x2f2n);
  });

  it('accepts the largest 256-bit value', () => {
    expect(quantity.decode('0x' + 'f'.repeat(64))).to.equal(2n ** 256n - 1n);
  });

  it('rejects 65 significant hex digits as more than 256 bits', () => {
    expect(codecErrorOf(() => quantity.decode('0x1' + '0'.repeat(64))).message).to.equal(
      'json: cannot unmarshal hex number > 256 bits into Go value of type *hexutil.Big',
    );
  });

  for (const [label, value] of [
    ['a number', 5],
    ['a boolean', true],
    ['an object', {}],
    ['an array', []],
  ] as const) {
    it(`rejects ${label} as a non-string`, () => {
      expect(codecErrorOf(() => quantity.decode(value)).message).to.equal(
        'json: cannot unmarshal non-string into Go value of type *hexutil.Big',
      );
    });
  }

  it('reads an empty string as zero, as hexutil.Big does', () => {
    expect(quantity.decode('')).to.equal(0n);
  });

  it('rejects digits without the 0x prefix', () => {
    expect(codecErrorOf(() => quantity.decode('12')).message).to.equal(
      'json: cannot unmarshal hex string without 0x prefix into Go value of type *hexutil.Big',
    );
  });

  it('rejects a bare 0x', () => {
    expect(codecErrorOf(() => quantity.decode('0x')).message).to.equal(
      'json: cannot unmarshal hex string "0x" into Go value of type *hexutil.Big',
    );
  });

  it("rejects a leading zero digit with geth's message", () => {
    expect(codecErrorOf(() => quantity.decode('0x01')).message).to.equal(
      'json: cannot unmarshal hex number with leading zero digits into Go value of type *hexutil.Big',
    );
  });

  it('rejects non-hex digits', () => {
    expect(codecErrorOf(() => quantity.decode('0xzz')).message).to.equal(
      'json: cannot unmarshal invalid hex string into Go value of type *hexutil.Big',
    );
  });

  it('reports more than 64 digits as > 256 bits before looking at the digits, as geth does', () => {
    // hexutil.Big.UnmarshalText checks len(raw) > 64 before decoding any nibble.
    expect(codecErrorOf(() => quantity.decode('0x' + 'z'.repeat(65))).message).to.equal(
      'json: cannot unmarshal hex number > 256 bits into Go value of type *hexutil.Big',
    );
  });
});

describe('uint64 codec', () => {
  it('names the Go type hexutil.Uint64', () => {
    expect(uint64.goType).to.equal('hexutil.Uint64');
  });

  it('decodes up to 2^64 - 1', () => {
    expect(uint64.decode('0x0')).to.equal(0n);
    expect(uint64.decode('0xffffffffffffffff')).to.equal(2n ** 64n - 1n);
  });

  it('rejects 2^64 as more than 64 bits', () => {
    expect(codecErrorOf(() => uint64.decode('0x10000000000000000')).message).to.equal(
      'json: cannot unmarshal hex number > 64 bits into Go value of type hexutil.Uint64',
    );
  });

  it('reads an empty string as zero, as hexutil.Uint64 does', () => {
    expect(uint64.decode('')).to.equal(0n);
  });

  for (const [input, reason] of [
    ['12', 'hex string without 0x prefix'],
    ['0x', 'hex string "0x"'],
    ['0x01', 'hex number with leading zero digits'],
    ['0xzz', 'invalid hex string'],
  ] as const) {
    it(`rejects ${JSON.stringify(input)} with "${reason}"`, () => {
      expect(codecErrorOf(() => uint64.decode(input)).message).to.equal(
        `json: cannot unmarshal ${reason} into Go value of type hexutil.Uint64`,
      );
    });
  }

  it('rejects a non-string', () => {
    expect(codecErrorOf(() => uint64.decode(5)).message).to.equal(
      'json: cannot unmarshal non-string into Go value of type hexutil.Uint64',
    );
  });

  it('reports more than 16 digits as > 64 bits before looking at the digits, as geth does', () => {
    // hexutil.Uint64.UnmarshalText checks len(raw) > 16 before decoding any nibble.
    expect(codecErrorOf(() => uint64.decode('0x' + 'z'.repeat(17))).message).to.equal(
      'json: cannot unmarshal hex number > 64 bits into Go value of type hexutil.Uint64',
    );
  });
});

describe('data codec', () => {
  it('returns a Uint8Array of the bytes', () => {
    const bytes = data.decode('0xabcd');
    expect(bytes).to.be.instanceOf(Uint8Array);
    expect(Array.from(bytes)).to.deep.equal([0xab, 0xcd]);
  });

  it("decodes an empty string to empty bytes (geth's quirk)", () => {
    const bytes = data.decode('');
    expect(bytes).to.be.instanceOf(Uint8Array);
    expect(bytes.length).to.equal(0);
  });

  it('decodes 0x to empty bytes', () => {
    expect(data.decode('0x').length).to.equal(0);
  });

  it('keeps leading zero bytes and accepts upper-case digits', () => {
    expect(Array.from(data.decode('0x00FF'))).to.deep.equal([0x00, 0xff]);
  });

  it('decodes data of megabytes, in pieces, to every byte in order', () => {
    const bytes = Buffer.from(Array.from({ length: 100_003 }, (_, index) => (index * 7) % 256));
    const decoded = data.decode('0x' + bytes.toString('hex').toUpperCase());
    expect(Buffer.from(decoded).equals(bytes)).to.equal(true);
  });

  it('rejects digits without the 0x prefix', () => {
    expect(codecErrorOf(() => data.decode('abcd')).message).to.equal(
      'json: cannot unmarshal hex string without 0x prefix into Go value of type hexutil.Bytes',
    );
  });

  it('rejects an odd number of digits', () => {
    expect(codecErrorOf(() => data.decode('0xabc')).message).to.equal(
      'json: cannot unmarshal hex string of odd length into Go value of type hexutil.Bytes',
    );
  });

  it('rejects non-hex digits', () => {
    expect(codecErrorOf(() => data.decode('0xzz')).message).to.equal(
      'json: cannot unmarshal invalid hex string into Go value of type hexutil.Bytes',
    );
  });

  it('rejects a non-string', () => {
    expect(codecErrorOf(() => data.decode(12)).message).to.equal(
      'json: cannot unmarshal non-string into Go value of type hexutil.Bytes',
    );
  });
});

describe('address codec', () => {
  it('returns lower-case 0x hex, lower-casing mixed-case input', () => {
    expect(address.decode(ADDRESS_MIXED)).to.equal(ADDRESS);
    expect(address.decode(ADDRESS)).to.equal(ADDRESS);
  });

  it('reports a wrong length without wrapping', () => {
    expect(codecErrorOf(() => address.decode('0x' + 'ab'.repeat(19))).message).to.equal(
      'hex string has length 38, want 40 for common.Address',
    );
  });

  it('reports an empty string as length 0', () => {
    expect(codecErrorOf(() => address.decode('')).message).to.equal(
      'hex string has length 0, want 40 for common.Address',
    );
  });

  it('rejects 40 digits without the 0x prefix', () => {
    expect(codecErrorOf(() => address.decode(ADDRESS.slice(2))).message).to.equal(
      'json: cannot unmarshal hex string without 0x prefix into Go value of type common.Address',
    );
  });

  it('rejects a non-string', () => {
    expect(codecErrorOf(() => address.decode(5)).message).to.equal(
      'json: cannot unmarshal non-string into Go value of type common.Address',
    );
  });

  it('rejects non-hex digits of the right length', () => {
    expect(codecErrorOf(() => address.decode('0x' + 'zz'.repeat(20))).message).to.equal(
      'json: cannot unmarshal invalid hex string into Go value of type common.Address',
    );
  });

  it('checks the length before the digits, as geth does', () => {
    // hexutil.UnmarshalFixedText compares the length before it verifies the syntax.
    expect(codecErrorOf(() => address.decode('0xzz')).message).to.equal(
      'hex string has length 2, want 40 for common.Address',
    );
  });
});

describe('hash codec', () => {
  it('returns lower-case 0x hex', () => {
    expect(hash.decode(HASH_MIXED)).to.equal(HASH);
  });

  it('reports a wrong length without wrapping', () => {
    expect(codecErrorOf(() => hash.decode('0x' + 'ab'.repeat(31))).message).to.equal(
      'hex string has length 62, want 64 for common.Hash',
    );
  });

  it('rejects 64 digits without the 0x prefix', () => {
    expect(codecErrorOf(() => hash.decode(HASH.slice(2))).message).to.equal(
      'json: cannot unmarshal hex string without 0x prefix into Go value of type common.Hash',
    );
  });

  it('rejects a non-string', () => {
    expect(codecErrorOf(() => hash.decode(null)).message).to.equal(
      'json: cannot unmarshal non-string into Go value of type common.Hash',
    );
  });
});

describe('blockNumberOrTag codec', () => {
  for (const tag of ['earliest', 'latest', 'pending', 'safe', 'finalized'] as const) {
    it(`returns the tag "${tag}" as a string`, () => {
      expect(blockNumberOrTag.decode(tag)).to.equal(tag);
    });
  }

  it('decodes a hex number to a bigint', () => {
    expect(blockNumberOrTag.decode('0x10')).to.equal(16n);
    expect(blockNumberOrTag.decode('0x0')).to.equal(0n);
    expect(blockNumberOrTag.decode('0x7fffffffffffffff')).to.equal(2n ** 63n - 1n);
  });

  it('rejects decimal digits without wrapping', () => {
    expect(codecErrorOf(() => blockNumberOrTag.decode('10')).message).to.equal('hex string without 0x prefix');
  });

  it('rejects a JSON number as digits without the 0x prefix', () => {
    expect(codecErrorOf(() => blockNumberOrTag.decode(5)).message).to.equal('hex string without 0x prefix');
  });

  it('rejects a number beyond int64', () => {
    expect(codecErrorOf(() => blockNumberOrTag.decode('0x8000000000000000')).message).to.equal(
      'block number larger than int64',
    );
  });

  it('rejects a number beyond 64 bits', () => {
    expect(codecErrorOf(() => blockNumberOrTag.decode('0x10000000000000000')).message).to.equal('hex number > 64 bits');
  });

  it('rejects a leading zero digit without wrapping', () => {
    expect(codecErrorOf(() => blockNumberOrTag.decode('0x01')).message).to.equal('hex number with leading zero digits');
  });

  it('rejects an unknown tag', () => {
    expect(codecErrorOf(() => blockNumberOrTag.decode('Latest')).message).to.equal('hex string without 0x prefix');
  });

  it('does not trim spaces inside the string, as geth does not', () => {
    // geth trims the raw JSON text around the quotes, never the string's content.
    expect(codecErrorOf(() => blockNumberOrTag.decode(' latest')).message).to.equal('hex string without 0x prefix');
  });
});

describe('blockRef codec', () => {
  for (const tag of ['earliest', 'latest', 'pending', 'safe', 'finalized'] as const) {
    it(`returns the tag "${tag}" as a tag reference`, () => {
      expect(blockRef.decode(tag)).to.deep.equal({ kind: 'tag', tag });
    });
  }

  it('decodes a hex number to a number reference', () => {
    expect(blockRef.decode('0x10')).to.deep.equal({ kind: 'number', number: 16n });
  });

  it('takes a 66-character string as a lower-cased hash that need not be canonical', () => {
    expect(blockRef.decode(HASH_MIXED)).to.deep.equal({ kind: 'hash', hash: HASH, requireCanonical: false });
  });

  it('reports non-hex digits in a 66-character string without wrapping', () => {
    expect(codecErrorOf(() => blockRef.decode('0x' + 'zz'.repeat(32))).message).to.equal('invalid hex string');
  });

  it('decodes an EIP-1898 blockNumber object', () => {
    expect(blockRef.decode({ blockNumber: '0x5' })).to.deep.equal({ kind: 'number', number: 5n });
  });

  it('decodes an EIP-1898 blockNumber tag', () => {
    expect(blockRef.decode({ blockNumber: 'latest' })).to.deep.equal({ kind: 'tag', tag: 'latest' });
  });

  it('decodes an EIP-1898 blockHash object with requireCanonical false by default', () => {
    expect(blockRef.decode({ blockHash: HASH_MIXED })).to.deep.equal({
      kind: 'hash',
      hash: HASH,
      requireCanonical: false,
    });
  });

  it('keeps requireCanonical true', () => {
    expect(blockRef.decode({ blockHash: HASH, requireCanonical: true })).to.deep.equal({
      kind: 'hash',
      hash: HASH,
      requireCanonical: true,
    });
  });

  it('refuses both blockNumber and blockHash', () => {
    expect(codecErrorOf(() => blockRef.decode({ blockNumber: '0x1', blockHash: HASH })).message).to.equal(
      'cannot specify both BlockHash and BlockNumber, choose one or the other',
    );
  });

  it('answers an empty object with a -32000 RpcError', () => {
    const error = rpcErrorOf(() => blockRef.decode({}));
    expect(isCodecError(error)).to.equal(false);
    expect(error.code).to.equal(-32000);
    expect(error.message).to.equal('invalid arguments; neither block nor hash specified');
  });

  it('rejects a JSON number as not a string', () => {
    expect(codecErrorOf(() => blockRef.decode(5)).message).to.equal(
      'json: cannot unmarshal number into Go value of type string',
    );
  });

  it('rejects a number beyond int64 as too high', () => {
    expect(codecErrorOf(() => blockRef.decode('0x8000000000000000')).message).to.equal('blocknumber too high');
  });

  it('rejects decimal digits without wrapping', () => {
    expect(codecErrorOf(() => blockRef.decode('10')).message).to.equal('hex string without 0x prefix');
  });

  it('reports a bad blockHash in an object as an object that is not a string', () => {
    expect(codecErrorOf(() => blockRef.decode({ blockHash: '0x12' })).message).to.equal(
      'json: cannot unmarshal object into Go value of type string',
    );
  });

  it('reports a bad blockNumber or requireCanonical in an object as an object that is not a string', () => {
    expect(codecErrorOf(() => blockRef.decode({ blockNumber: '0x01' })).message).to.equal(
      'json: cannot unmarshal object into Go value of type string',
    );
    expect(codecErrorOf(() => blockRef.decode({ blockHash: HASH, requireCanonical: 'yes' })).message).to.equal(
      'json: cannot unmarshal object into Go value of type string',
    );
  });
});

describe('boolean codec', () => {
  it('decodes true and false', () => {
    expect(boolean.decode(true)).to.equal(true);
    expect(boolean.decode(false)).to.equal(false);
  });

  it('decodes null to false, as Go leaves the zero value', () => {
    expect(boolean.decode(null)).to.equal(false);
  });

  it('rejects the string "true"', () => {
    expect(codecErrorOf(() => boolean.decode('true')).message).to.equal(
      'json: cannot unmarshal string into Go value of type bool',
    );
  });

  it('rejects the number 1', () => {
    expect(codecErrorOf(() => boolean.decode(1)).message).to.equal(
      'json: cannot unmarshal number into Go value of type bool',
    );
  });
});

describe('string codec', () => {
  it('decodes a string', () => {
    expect(string.decode('x')).to.equal('x');
  });

  it('rejects a number', () => {
    expect(codecErrorOf(() => string.decode(5)).message).to.equal(
      'json: cannot unmarshal number into Go value of type string',
    );
  });

  it("names arrays, objects and booleans as Go's decoder does", () => {
    expect(codecErrorOf(() => string.decode([])).message).to.equal(
      'json: cannot unmarshal array into Go value of type string',
    );
    expect(codecErrorOf(() => string.decode({})).message).to.equal(
      'json: cannot unmarshal object into Go value of type string',
    );
    expect(codecErrorOf(() => string.decode(false)).message).to.equal(
      'json: cannot unmarshal bool into Go value of type string',
    );
  });
});

describe('arrayOf codec', () => {
  const hashes = arrayOf(hash);

  it('names the Go slice type', () => {
    expect(hashes.goType).to.equal('[]common.Hash');
  });

  it('decodes every element', () => {
    expect(hashes.decode([HASH_MIXED, OTHER_HASH])).to.deep.equal([HASH, OTHER_HASH]);
    expect(hashes.decode([])).to.deep.equal([]);
  });

  it('decodes null to an empty array', () => {
    expect(hashes.decode(null)).to.deep.equal([]);
  });

  it('rejects a non-array with the slice type', () => {
    expect(codecErrorOf(() => hashes.decode('x')).message).to.equal(
      'json: cannot unmarshal string into Go value of type []common.Hash',
    );
  });

  it("propagates an element's error unchanged", () => {
    expect(codecErrorOf(() => hashes.decode([HASH, '0x12'])).message).to.equal(
      'hex string has length 2, want 64 for common.Hash',
    );
    expect(codecErrorOf(() => hashes.decode([5])).message).to.equal(
      'json: cannot unmarshal non-string into Go value of type common.Hash',
    );
  });
});

describe('objectOf codec', () => {
  const transactionArgs = objectOf('TransactionArgs', {
    to: address.optional(),
    value: quantity.optional(),
    from: address,
  });

  it('names the struct as its Go type', () => {
    expect(transactionArgs.goType).to.equal('TransactionArgs');
  });

  it('decodes every known field', () => {
    expect(transactionArgs.decode({ from: ADDRESS_MIXED, to: OTHER_ADDRESS, value: '0x10' })).to.deep.equal({
      to: OTHER_ADDRESS,
      value: 16n,
      from: ADDRESS,
    });
  });

  it('ignores unknown fields and leaves missing optional fields out', () => {
    const decoded = transactionArgs.decode({ from: ADDRESS, gas: '0x5208', input: 7 });
    expect(decoded).to.deep.equal({ from: ADDRESS });
    expect(Object.keys(decoded)).to.deep.equal(['from']);
  });

  it('finds a field named in another case, as Go does, and prefers its exact name', () => {
    expect(transactionArgs.decode({ FROM: ADDRESS, To: OTHER_ADDRESS, value: '0x1' })).to.deep.equal({
      to: OTHER_ADDRESS,
      value: 1n,
      from: ADDRESS,
    });
    expect(transactionArgs.decode({ From: OTHER_ADDRESS, from: ADDRESS })).to.deep.equal({ from: ADDRESS });
    expect(transactionArgs.decode({ from: ADDRESS, VALUE: '0x2', gas: '0x1' })).to.deep.equal({
      from: ADDRESS,
      value: 2n,
    });
  });

  it('leaves null optional fields out', () => {
    const decoded = transactionArgs.decode({ from: ADDRESS, to: null, value: null });
    expect(Object.keys(decoded)).to.deep.equal(['from']);
  });

  it('rejects a missing required field', () => {
    expect(codecErrorOf(() => transactionArgs.decode({ to: OTHER_ADDRESS })).message).to.equal(
      'missing required field TransactionArgs.from',
    );
  });

  it("reports a field's wrapped error as Go reports a struct field's", () => {
    expect(codecErrorOf(() => transactionArgs.decode({ from: ADDRESS, to: '1234' })).message).to.equal(
      'json: cannot unmarshal hex string without 0x prefix into Go struct field TransactionArgs.to of type common.Address',
    );
  });

  it("reports a field's unwrapped error unchanged", () => {
    expect(codecErrorOf(() => transactionArgs.decode({ from: '0x12' })).message).to.equal(
      'hex string has length 2, want 40 for common.Address',
    );
  });

  it('rejects a non-object with the struct name', () => {
    expect(codecErrorOf(() => transactionArgs.decode('x')).message).to.equal(
      'json: cannot unmarshal string into Go value of type TransactionArgs',
    );
    expect(codecErrorOf(() => transactionArgs.decode([])).message).to.equal(
      'json: cannot unmarshal array into Go value of type TransactionArgs',
    );
  });
});

describe('optional codecs', () => {
  it('are optional while the required codec is not', () => {
    expect(quantity.isOptional).to.equal(false);
    expect(quantity.optional().isOptional).to.equal(true);
    expect(quantity.optional(1n).isOptional).to.equal(true);
  });

  it('keep the Go type', () => {
    expect(address.optional().goType).to.equal('common.Address');
  });

  it('decode undefined and null to undefined without a fallback', () => {
    expect(quantity.optional().decode(undefined)).to.equal(undefined);
    expect(quantity.optional().decode(null)).to.equal(undefined);
  });

  it('decode undefined and null to the fallback', () => {
    expect(quantity.optional(7n).decode(undefined)).to.equal(7n);
    expect(quantity.optional(7n).decode(null)).to.equal(7n);
    expect(boolean.optional(true).decode(null)).to.equal(true);
    expect(blockRef.optional({ kind: 'tag', tag: 'latest' }).decode(undefined)).to.deep.equal({
      kind: 'tag',
      tag: 'latest',
    });
  });

  it('decode a present value with the required codec', () => {
    expect(quantity.optional(7n).decode('0x2')).to.equal(2n);
    expect(address.optional().decode(ADDRESS_MIXED)).to.equal(ADDRESS);
  });

  it('still reject a bad value', () => {
    expect(codecErrorOf(() => quantity.optional(7n).decode('0x01')).message).to.equal(
      'json: cannot unmarshal hex number with leading zero digits into Go value of type *hexutil.Big',
    );
  });
});

describe('defineMethod', () => {
  for (const name of ['chainId', 'eth_', '_x', 'Eth_chainId', 'eth-chainId']) {
    it(`refuses the name "${name}"`, () => {
      expect(typeErrorOf(() => defineMethod({ name, params: [], handler: () => null })).message).to.equal(
        `method name "${name}" must look like <namespace>_<method>`,
      );
    });
  }

  it('refuses a required parameter after an optional one', () => {
    expect(
      typeErrorOf(() => defineMethod({ name: 'eth_foo', params: [quantity.optional(), address], handler: () => null }))
        .message,
    ).to.equal('method eth_foo: optional parameters may only trail the required ones');
  });

  it('returns a frozen copy of the definition', () => {
    const params = [address, quantity.optional()] as const;
    const handler = () => '0x1';
    const definition = defineMethod({ name: 'eth_chainId', params, handler });
    expect(Object.isFrozen(definition)).to.equal(true);
    expect(definition).to.deep.equal({ name: 'eth_chainId', params, handler });
    expect(definition.params).to.equal(params);
  });
});

describe('decodeParams', () => {
  const codecs = [address, quantity.optional(1n)];

  it('decodes positional arguments, filling omitted optional ones', () => {
    expect(decodeParams(codecs, [ADDRESS_MIXED, '0x2'])).to.deep.equal([ADDRESS, 2n]);
    expect(decodeParams(codecs, [ADDRESS])).to.deep.equal([ADDRESS, 1n]);
  });

  it('treats absent and null params as no arguments', () => {
    expect(decodeParams([quantity.optional()], undefined)).to.deep.equal([undefined]);
    expect(decodeParams([quantity.optional()], null)).to.deep.equal([undefined]);
  });

  it('answers non-array params with -32602 "non-array args"', () => {
    const error = rpcErrorOf(() => decodeParams(codecs, { 0: ADDRESS }));
    expect(error.toJSON()).to.deep.equal({ code: -32602, message: 'non-array args' });
  });

  it('answers too many arguments with the most allowed', () => {
    expect(rpcErrorOf(() => decodeParams(codecs, [ADDRESS, '0x1', 1])).message).to.equal(
      'too many arguments, want at most 2',
    );
  });

  it('names a missing required argument', () => {
    expect(rpcErrorOf(() => decodeParams(codecs, [])).message).to.equal('missing value for required argument 0');
  });

  it('prefixes a codec error with the argument index', () => {
    const error = rpcErrorOf(() => decodeParams(codecs, [ADDRESS, '0x01']));
    expect(error.code).to.equal(-32602);
    expect(error.message).to.equal(
      'invalid argument 1: json: cannot unmarshal hex number with leading zero digits into Go value of type *hexutil.Big',
    );
  });

  it('decodes the arguments in order before counting the extra one, as geth does', () => {
    // geth's parseArgumentArray decodes argument i before it looks at argument i + 1.
    expect(rpcErrorOf(() => decodeParams([quantity], ['0x01', 1])).message).to.equal(
      'invalid argument 0: json: cannot unmarshal hex number with leading zero digits into Go value of type *hexutil.Big',
    );
  });
});

describe('decoding in turns', () => {
  /** Turns that end at every pause (each waiting for the next macrotask), counting them. */
  function shortTurns(): Turns & { readonly count: number } {
    let count = 0;
    return {
      get count() {
        return count;
      },
      pause: () => {
        count++;
        return new Promise<void>((resolve) => setImmediate(resolve));
      },
    };
  }

  /** What `codec` decodes `value` to in turns, or the message it fails with; a promise is required. */
  async function inTurns<T>(codec: ParamCodec<T>, value: unknown, turns: Turns): Promise<T | string> {
    const decoding = codec.decodeInTurns!(value, turns);
    expect(decoding).to.be.instanceOf(Promise);
    return (decoding as Promise<T>).catch((error: unknown) => (error as Error).message);
  }

  /** What `codec` decodes `value` to at once, or the message it fails with. */
  function atOnce<T>(codec: ParamCodec<T>, value: unknown): T | string {
    try {
      return codec.decode(value);
    } catch (error) {
      return (error as Error).message;
    }
  }

  const slots = (count: number, offset = 0) =>
    Object.fromEntries(
      Array.from({ length: count }, (_, index) => [`0x${(index + offset).toString(16).padStart(64, '0')}`, HASH]),
    );
  const accounts = {
    [ADDRESS_MIXED]: { balance: '0x10', nonce: '0x2', stateDiff: slots(3) },
    [OTHER_ADDRESS]: { code: '0x6000', state: slots(2, 10) },
  };

  it('decodes state overrides as at once, pausing before each account and each slot', async () => {
    const turns = shortTurns();
    const decoded = await inTurns(stateOverrides, accounts, turns);
    expect(decoded).to.deep.equal(stateOverrides.decode(accounts));
    expect([...(decoded as Map<string, unknown>).keys()]).to.deep.equal([ADDRESS, OTHER_ADDRESS]);
    expect(turns.count).to.equal(2 + 3 + 2);
  });

  it('fails in turns with the message it fails with at once, wherever the bad member is', async () => {
    const badSlot = { ...accounts, [OTHER_ADDRESS]: { state: { ...slots(2), [HASH]: '0x12' } } };
    const badAccount = { ...accounts, [OTHER_ADDRESS]: { balance: '0x01' } };
    const badKey = { ...accounts, '0x12': {} };
    for (const value of [badSlot, badAccount, badKey, [], 'x']) {
      const failure = atOnce(stateOverrides, value);
      expect(failure).to.be.a('string');
      // A value that is no map at all fails before any pause; a bad member, in a later turn.
      const inTurnsFailure = await Promise.resolve()
        .then(() => stateOverrides.decodeInTurns!(value, shortTurns()))
        .catch((error: Error) => error.message);
      expect(inTurnsFailure).to.equal(failure);
    }
    expect(atOnce(stateOverrides, badAccount)).to.equal(
      'json: cannot unmarshal hex number with leading zero digits into Go struct field OverrideAccount.balance of type *hexutil.Big',
    );
  });

  it('decodes arrays and objects holding collections as at once; optional ones take absent values at once', async () => {
    const hashes = arrayOf(hash);
    expect(await inTurns(hashes, [HASH_MIXED, OTHER_HASH], shortTurns())).to.deep.equal([HASH, OTHER_HASH]);
    const config = objectOf('tracers.TraceCallConfig', {
      tracer: string.optional(),
      stateOverrides: stateOverrides.optional(),
    });
    const value = { tracer: 'callTracer', stateOverrides: accounts };
    expect(await inTurns(config, value, shortTurns())).to.deep.equal(config.decode(value));
    expect(hashes.optional().decodeInTurns!(null, shortTurns())).to.equal(undefined);
  });

  it('decodes at once, without a promise, what never has to wait', () => {
    const turns = shortTurns();
    const scalars = objectOf('TransactionArgs', { to: address.optional(), value: quantity.optional() });
    // An object's own fields take no turns: only a collection pauses, before each member.
    expect(scalars.decodeInTurns!({ to: OTHER_ADDRESS, value: '0x1' }, turns)).to.deep.equal({
      to: OTHER_ADDRESS,
      value: 1n,
    });
    expect(arrayOf(hash).decodeInTurns!([], turns)).to.deep.equal([]);
    expect(turns.count).to.equal(0);
    expect(stateOverrides.decodeInTurns!(accounts, { pause: () => undefined })).to.deep.equal(
      stateOverrides.decode(accounts),
    );
  });

  it('decodes the arguments of decodeParams in order, in turns from the first collection on', async () => {
    const codecs = [address, stateOverrides.optional(), quantity.optional()];
    const decoding = decodeParams(codecs, [ADDRESS_MIXED, accounts, '0x3'], shortTurns());
    expect(decoding).to.be.instanceOf(Promise);
    expect(await decoding).to.deep.equal(decodeParams(codecs, [ADDRESS_MIXED, accounts, '0x3']));
    // Arguments before the collection fail at once, as without turns; those in and after it, in turns.
    expect(rpcErrorOf(() => decodeParams(codecs, ['0x12', accounts], shortTurns())).message).to.equal(
      'invalid argument 0: hex string has length 2, want 40 for common.Address',
    );
    const late = await (decodeParams(codecs, [ADDRESS, accounts, '0x03'], shortTurns()) as Promise<unknown>).catch(
      (error: RpcError) => error.toJSON(),
    );
    expect(late).to.deep.equal({
      code: -32602,
      message:
        'invalid argument 2: json: cannot unmarshal hex number with leading zero digits into Go value of type *hexutil.Big',
    });
    expect(decodeParams(codecs, [ADDRESS], shortTurns())).to.deep.equal([ADDRESS, undefined, undefined]);
  });
});
