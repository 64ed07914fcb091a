import { expect } from 'chai';
import { MAX_JSON_VALUES, MAX_NESTING_DEPTH, parseRequestJson, RequestJsonBusyError } from '@evmnode/core';

/** `levels` arrays, one inside the other. */
const nestedArrays = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);
/** `levels` objects, one inside the other, the innermost holding 1. */
const nestedObjects = (levels: number): string => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
/** An array of `count` values. */
const valuesArray = (count: number, value = '1'): string => `[${Array(count).fill(value).join(',')}]`;

/** The SyntaxError's message `text` is refused with. */
async function refusal(text: string): Promise<string> {
  const error: unknown = await parseRequestJson(text).then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).to.be.instanceOf(SyntaxError);
  return (error as SyntaxError).message;
}

describe('parseRequestJson', () => {
  it('parses JSON as JSON.parse does, short or long', async () => {
    const text = '{"jsonrpc":"2.0","id":7,"method":"eth_call","params":[{"to":"0x01"},"latest"]}';
    expect(await parseRequestJson(text)).to.deep.equal(JSON.parse(text));
    expect(await parseRequestJson('12')).to.equal(12);
    // Past 256 KiB a body is checked on a thread of its own first.
    const long = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_call',
      params: [{ input: `0x${'ab'.repeat(1e6)}` }],
    });
    expect(await parseRequestJson(long)).to.deep.equal(JSON.parse(long));
  });

  it("refuses text that is not JSON with JSON.parse's SyntaxError, short or long", async () => {
    for (const text of ['{"jsonrpc":', '', `["${'a'.repeat(300_000)}"`]) {
      expect(() => JSON.parse(text)).to.throw(SyntaxError, await refusal(text));
    }
  });

  it('takes arrays and objects nested as deep as the limit, and refuses one level more', async () => {
    expect(MAX_NESTING_DEPTH).to.equal(1000);
    for (const nested of [nestedArrays, nestedObjects]) {
      expect(await parseRequestJson(nested(1000))).to.deep.equal(JSON.parse(nested(1000)));
      expect(await refusal(nested(1001))).to.equal('exceeded max depth');
      // 200,000 levels: a long body, checked on the other thread.
      expect(await refusal(nested(200_000))).to.equal('exceeded max depth');
    }
    // Arrays and objects count alike.
    expect(await parseRequestJson(`[${nestedObjects(999)}]`)).to.deep.equal([JSON.parse(nestedObjects(999))]);
    expect(await refusal(`[${nestedObjects(1000)}]`)).to.equal('exceeded max depth');
  });

  it('takes as many values as the limit, array elements and object members alike, and refuses one more', async () => {
    expect(MAX_JSON_VALUES).to.equal(50_000);
    expect(await parseRequestJson(valuesArray(50_000))).to.have.length(50_000);
    expect(await refusal(valuesArray(50_001))).to.equal('exceeded max values (50000)');
    const members = (count: number) => `{${Array.from({ length: count }, (_, i) => `"k${i}":1`).join(',')}}`;
    // The array's one element and the object's members.
    expect(await parseRequestJson(`[${members(49_999)}]`)).to.have.length(1);
    expect(await refusal(`[${members(50_000)}]`)).to.equal('exceeded max values (50000)');
    // A million tiny arrays in 4.8 MB: refused on the other thread, never parsed on this one.
    expect(await refusal(valuesArray(1_200_000, '[1]'))).to.equal('exceeded max values (50000)');
  });

  it('refuses a long body at once while 64 MiB of others wait to be read, and reads the next once they are', async () => {
    const long = `["${'a'.repeat(5_000_000)}"]`;
    // Thirteen such bodies fit in 64 MiB; the fourteenth finds no room.
    const outcomes = await Promise.allSettled(Array.from({ length: 14 }, () => parseRequestJson(long)));
    expect(outcomes.slice(0, 13).map((outcome) => outcome.status)).to.deep.equal(Array(13).fill('fulfilled'));
    const refused = outcomes[13]!;
    expect(refused.status).to.equal('rejected');
    const { reason } = refused as PromiseRejectedResult;
    expect(reason).to.be.instanceOf(RequestJsonBusyError);
    expect((reason as Error).message).to.equal('server busy: too many large requests waiting to be read');
    expect(await parseRequestJson(long)).to.deep.equal(['a'.repeat(5_000_000)]);
  });

  it('finds the deep branch of a body otherwise wide and shallow', async () => {
    const wide = Array.from({ length: 2000 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'eth_chainId', params: [] }));
    const text = JSON.stringify(wide);
    expect(await parseRequestJson(text)).to.deep.equal(wide);
    expect(await refusal(`${text.slice(0, -1)},${nestedArrays(1000)}]`)).to.equal('exceeded max depth');
  });
});
