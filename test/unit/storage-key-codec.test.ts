import { expect } from 'chai';
import { isRpcError, storageKey } from '@evmnode/core';
// After '@evmnode/core', which loads the reflect-metadata polyfill the internal entry needs.
import { decodeParams } from '@evmnode/core/internal';

const slot = (hex: string): string => `0x${hex.padStart(64, '0')}`;
const decoded = (value: unknown): string => `0x${Buffer.from(storageKey.decode(value)).toString('hex')}`;

/** The JSON-RPC error a parameter list gets from `[storageKey]`. */
function paramsError(params: unknown[]): unknown {
  try {
    decodeParams([storageKey], params);
  } catch (error) {
    if (isRpcError(error)) return error.toJSON();
    throw error;
  }
  return expect.fail(`expected an error for ${JSON.stringify(params)}`);
}

describe('storageKey codec', () => {
  it("reads hex as geth's decodeHash: 0x optional, odd length padded, left-padded to 32 bytes", () => {
    expect(decoded('0x2')).to.equal(slot('2'));
    expect(decoded('2')).to.equal(slot('2'));
    expect(decoded('0X0aBc')).to.equal(slot('0abc'));
    expect(decoded('')).to.equal(slot(''));
    expect(decoded('0x')).to.equal(slot(''));
    expect(decoded(`0x${'f'.repeat(64)}`)).to.equal(slot('f'.repeat(64)));
    expect(decoded('f'.repeat(63))).to.equal(slot('f'.repeat(63)));
  });

  it('refuses keys over 32 bytes and non-hex keys with -32000, and non-strings with -32602', () => {
    const tooLong = {
      code: -32000,
      message: 'unable to decode storage key: hex string too long, want at most 32 bytes',
    };
    expect(paramsError([`0x${'0'.repeat(65)}`])).to.deep.equal(tooLong);
    expect(paramsError(['1'.repeat(66)])).to.deep.equal(tooLong);
    expect(paramsError(['0xasdf'])).to.deep.equal({
      code: -32000,
      message: 'unable to decode storage key: hex string invalid',
    });
    // geth checks the digits before the length.
    expect(paramsError([`0x${'g'.repeat(80)}`])).to.deep.equal({
      code: -32000,
      message: 'unable to decode storage key: hex string invalid',
    });
    expect(paramsError([2])).to.deep.equal({
      code: -32602,
      message: 'invalid argument 0: json: cannot unmarshal number into Go value of type string',
    });
    expect(paramsError([])).to.deep.equal({ code: -32602, message: 'missing value for required argument 0' });
  });
});
