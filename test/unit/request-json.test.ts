import { expect } from 'chai';
import { MAX_NESTING_DEPTH, parseRequestJson } from '@evmnode/core';

/** `levels` arrays, one inside the other. */
const nestedArrays = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);
/** `levels` objects, one inside the other, the innermost holding 1. */
const nestedObjects = (levels: number): string => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

describe('parseRequestJson', () => {
  it('parses JSON as JSON.parse does', () => {
    const text = '{"jsonrpc":"2.0","id":7,"method":"eth_call","params":[{"to":"0x01"},"latest"]}';
    expect(parseRequestJson(text)).to.deep.equal(JSON.parse(text));
    expect(parseRequestJson('12')).to.equal(12);
  });

  it("throws JSON.parse's SyntaxError for text that is not JSON", () => {
    expect(() => parseRequestJson('{"jsonrpc":')).to.throw(SyntaxError);
    expect(() => parseRequestJson('')).to.throw(SyntaxError);
  });

  it('takes arrays and objects nested as deep as the limit, and refuses one level more', () => {
    expect(MAX_NESTING_DEPTH).to.equal(1000);
    for (const nested of [nestedArrays, nestedObjects]) {
      expect(() => parseRequestJson(nested(1000))).not.to.throw();
      expect(() => parseRequestJson(nested(1001))).to.throw(SyntaxError, 'exceeded max depth');
      expect(() => parseRequestJson(nested(100_000))).to.throw(SyntaxError, 'exceeded max depth');
    }
    // Arrays and objects count alike.
    expect(() => parseRequestJson(`[${nestedObjects(999)}]`)).not.to.throw();
    expect(() => parseRequestJson(`[${nestedObjects(1000)}]`)).to.throw(SyntaxError, 'exceeded max depth');
  });

  it('finds the deep branch of a body otherwise wide and shallow', () => {
    const wide = Array.from({ length: 5000 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'eth_chainId', params: [] }));
    const text = JSON.stringify(wide);
    expect(parseRequestJson(text)).to.deep.equal(wide);
    expect(() => parseRequestJson(`${text.slice(0, -1)},${nestedArrays(1000)}]`)).to.throw(
      SyntaxError,
      'exceeded max depth',
    );
  });
});
