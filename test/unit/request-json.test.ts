import { expect } from 'chai';
import {
  MAX_JSON_VALUES,
  MAX_NESTING_DEPTH,
  MAX_DISTINCT_KEYS,
  parseRequestJson,
  RequestJsonBusyError,
} from '@evmnode/core';

/** `text` parsed as a request body of its UTF-8 bytes. */
const parseText = (text: string): Promise<unknown> => parseRequestJson(Buffer.from(text));

/** `levels` arrays, one inside the other. */
const nestedArrays = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);
/** `levels` objects, one inside the other, the innermost holding 1. */
const nestedObjects = (levels: number): string => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
/** An array of `count` values. */
const valuesArray = (count: number, value = '1'): string => `[${Array(count).fill(value).join(',')}]`;

/** The SyntaxError's message `text` is refused with. */
async function refusal(text: string): Promise<string> {
  const error: unknown = await parseText(text).then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).to.be.instanceOf(SyntaxError);
  return (error as SyntaxError).message;
}

describe('parseRequestJson', () => {
  it('parses JSON as JSON.parse does, short or long', async () => {
    const text = '{"jsonrpc":"2.0","id":7,"method":"eth_call","params":[{"to":"0x01"},"latest"]}';
    expect(await parseText(text)).to.deep.equal(JSON.parse(text));
    expect(await parseText('12')).to.equal(12);
    // Past 256 KiB a body is checked on a thread of its own first.
    const long = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_call',
      params: [{ input: `0x${'ab'.repeat(1e6)}` }],
    });
    expect(await parseText(long)).to.deep.equal(JSON.parse(long));
    // A plugin may give the text itself.
    expect(await parseRequestJson(text)).to.deep.equal(JSON.parse(text));
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
      expect(await parseText(nested(1000))).to.deep.equal(JSON.parse(nested(1000)));
      expect(await refusal(nested(1001))).to.equal('exceeded max depth');
      // 200,000 levels: a long body, checked on the other thread.
      expect(await refusal(nested(200_000))).to.equal('exceeded max depth');
    }
    // Arrays and objects count alike.
    expect(await parseText(`[${nestedObjects(999)}]`)).to.deep.equal([JSON.parse(nestedObjects(999))]);
    expect(await refusal(`[${nestedObjects(1000)}]`)).to.equal('exceeded max depth');
  });

  it('takes as many values as the limit, array elements and object members alike, and refuses one more', async () => {
    expect(MAX_JSON_VALUES).to.equal(50_000);
    expect(await parseText(valuesArray(50_000))).to.have.length(50_000);
    expect(await refusal(valuesArray(50_001))).to.equal('exceeded max values (50000)');
    // 10,000 objects of two members, and one more value: array elements and members alike.
    const pairs = valuesArray(10_000, '{"a":1,"b":2}');
    expect(await parseText(`[${pairs},${valuesArray(19_998)}]`)).to.have.length(2);
    expect(await refusal(`[${pairs},${valuesArray(19_999)}]`)).to.equal('exceeded max values (50000)');
    // A million tiny arrays in 4.8 MB: refused on the other thread, never parsed on this one.
    expect(await refusal(valuesArray(1_200_000, '[1]'))).to.equal('exceeded max values (50000)');
  });

  it('takes members of as many distinct names as the limit, in one object or many, and refuses one more', async () => {
    expect(MAX_DISTINCT_KEYS).to.equal(20_000);
    const members = (count: number, from = 0) =>
      `{${Array.from({ length: count }, (_, i) => `"k${from + i}":1`).join(',')}}`;
    expect(Object.keys((await parseText(members(20_000))) as object)).to.have.length(20_000);
    expect(await refusal(members(20_001))).to.equal('exceeded max distinct keys (20000)');
    const many = (objects: number) => `[${Array.from({ length: objects }, (_, i) => members(100, i * 100)).join(',')}]`;
    expect(await parseText(many(200))).to.have.length(200);
    expect(await refusal(`[${many(200)},{"last":1}]`)).to.equal('exceeded max distinct keys (20000)');
    // Names that repeat count once: 1,000 objects of the same 40 names are 40,000 members of 40 names.
    expect(await parseText(valuesArray(1000, members(40)))).to.have.length(1000);
    // Half a million members in 5 MB: refused on the other thread, never parsed on this one.
    expect(await refusal(members(500_000))).to.equal('exceeded max values (50000)');
  });

  it('refuses a long body at once while 64 MiB of others wait to be read, and reads the next once they are', async () => {
    const long = `["${'a'.repeat(5_000_000)}"]`;
    // Thirteen such bodies fit in 64 MiB; the fourteenth finds no room.
    const outcomes = await Promise.allSettled(Array.from({ length: 14 }, () => parseText(long)));
    expect(outcomes.slice(0, 13).map((outcome) => outcome.status)).to.deep.equal(Array(13).fill('fulfilled'));
    const refused = outcomes[13]!;
    expect(refused.status).to.equal('rejected');
    const { reason } = refused as PromiseRejectedResult;
    expect(reason).to.be.instanceOf(RequestJsonBusyError);
    expect((reason as Error).message).to.equal('server busy: too many large requests waiting to be read');
    expect(await parseText(long)).to.deep.equal(['a'.repeat(5_000_000)]);
  });

  it('reads invalid UTF-8 as U+FFFD, short or long', async () => {
    const quoted = (filler: number) =>
      Buffer.concat([Buffer.from(`["${'a'.repeat(filler)}`), Buffer.from([0xff, 0xc3]), Buffer.from('"]')]);
    for (const filler of [10, 300_000]) {
      expect(await parseRequestJson(quoted(filler))).to.deep.equal([`${'a'.repeat(filler)}\ufffd\ufffd`]);
    }
  });

  it('leaves the memory around a long body that is a view of a larger buffer as it was', async () => {
    const body = Buffer.from(`["${'b'.repeat(300_000)}"]`);
    const larger = Buffer.concat([Buffer.from('before'), body, Buffer.from('after')]);
    const view = larger.subarray(6, 6 + body.length);
    expect(await parseRequestJson(view)).to.deep.equal(['b'.repeat(300_000)]);
    expect(larger.toString('utf8', 0, 6)).to.equal('before');
    expect(larger.subarray(6, 6 + body.length).equals(body)).to.equal(true);
    expect(larger.toString('utf8', 6 + body.length)).to.equal('after');
  });

  it('finds the deep branch of a body otherwise wide and shallow', async () => {
    const wide = Array.from({ length: 2000 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'eth_chainId', params: [] }));
    const text = JSON.stringify(wide);
    expect(await parseText(text)).to.deep.equal(wide);
    expect(await refusal(`${text.slice(0, -1)},${nestedArrays(1000)}]`)).to.equal('exceeded max depth');
  });
});
