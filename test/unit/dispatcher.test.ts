import { expect } from 'chai';
import {
  address,
  BATCH_CONCURRENCY,
  defineMethod,
  FRESH_ANSWER_MS,
  InvalidInputError,
  quantity,
  RawJson,
  RequestJsonBusyError,
  type RequestContext,
  TransactionRejectedError,
} from '@evmnode/core';
import { Dispatcher, RpcRequest } from '@evmnode/core/internal';
import { call, dispatcherHarness } from '../support/dispatcher-harness.js';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let notified = 0;
/** test_tracked: calls started, and the most under way at once. */
const tracked = { started: 0, running: 0, mostRunning: 0 };
const methods = [
  defineMethod({
    name: 'test_echo',
    params: [quantity, address.optional()],
    handler: ([n, who]) => ({ n: `0x${n.toString(16)}`, who: who ?? null }),
  }),
  defineMethod({ name: 'test_notify', params: [], handler: () => void notified++ }),
  defineMethod({ name: 'test_async', params: [], handler: async () => (await delay(5), 'later') }),
  defineMethod({
    name: 'test_slow',
    params: [],
    handler: async (_params, request: RequestContext) => {
      await delay(1_000);
      return request.signal.aborted ? 'aborted' : 'done';
    },
  }),
  defineMethod({ name: 'test_text', params: [], handler: () => 'x'.repeat(60) }),
  defineMethod({
    name: 'test_crash',
    params: [],
    handler: () => {
      throw new Error('secret database path /var/lib');
    },
  }),
  defineMethod({ name: 'test_bigint', params: [], handler: () => 1n }),
  defineMethod({
    name: 'test_rawBig',
    params: [],
    handler: () =>
      RawJson.array(Array.from({ length: 100 }, (_, index) => Buffer.from(`"${String(index).repeat(100)}"`))),
  }),
  defineMethod({
    name: 'test_raw',
    params: [],
    handler: async () => (await delay(1), RawJson.array(['{"a":1}', Buffer.from('"b"')])),
  }),
  defineMethod({
    name: 'test_reject',
    params: [],
    handler: () => {
      throw new TransactionRejectedError('nonce too low: next nonce 1, tx nonce 0', { code: 32, codespace: 'sdk' });
    },
  }),
  defineMethod({
    name: 'test_foreign',
    params: [],
    handler: () => {
      // An error from a second copy of core: recognised by its brand, not its class.
      throw Object.assign(new Error('from elsewhere'), {
        [Symbol.for('evmnode.rpc-error')]: true,
        code: -32005,
        data: undefined,
      });
    },
  }),
  defineMethod({
    name: 'test_header',
    params: [],
    handler: (_params, request) => {
      request.setResponseHeader('X-Test', 'yes');
      return true;
    },
  }),
  defineMethod({ name: 'debug_ping', params: [], transports: ['http'], handler: () => 'pong' }),
  defineMethod({ name: 'test_subscribe', params: [], transports: ['ws'], handler: () => '0x1' }),
  defineMethod({
    name: 'test_tracked',
    params: [quantity],
    handler: async ([n]) => {
      tracked.started++;
      tracked.mostRunning = Math.max(tracked.mostRunning, ++tracked.running);
      await delay(2);
      tracked.running--;
      return 'y'.repeat(Number(n));
    },
  }),
];

describe('dispatcher', () => {
  const { send, sendRaw, hooks, logs } = dispatcherHarness(methods, { evm: { deny_list: ['test_text'] } });

  describe('envelope', () => {
    it('answers a call with jsonrpc, the id and the result', async () => {
      expect(await send(call('test_echo', ['0x10']))).to.deep.equal({
        jsonrpc: '2.0',
        id: 1,
        result: { n: '0x10', who: null },
      });
    });

    it('echoes string, number and null ids exactly', async () => {
      expect((await send(call('test_echo', ['0x1'], 'abc'))).id).to.equal('abc');
      expect((await send(call('test_echo', ['0x1'], 0))).id).to.equal(0);
      expect((await send(call('test_echo', ['0x1'], null))).id).to.equal(null);
      expect(await sendRaw('{"jsonrpc":"2.0","id":-1.5,"method":"test_echo","params":["0x1"]}')).to.include(
        '"id":-1.5,',
      );
    });

    it('keeps every digit of an integer id beyond 2^53, alone and in a batch', async () => {
      const big = '12345678901234567890123456789';
      expect(await sendRaw(`{"jsonrpc":"2.0","id":${big},"method":"test_echo","params":["0x1"]}`)).to.equal(
        `{"jsonrpc":"2.0","id":${big},"result":{"n":"0x1","who":null}}`,
      );
      const batch = await sendRaw(
        `[{"jsonrpc":"2.0","id":1,"method":"test_async"},{"jsonrpc":"2.0","id":${big},"method":"nope_x"}]`,
      );
      expect(batch).to.include(`"id":${big},"error"`);
    });

    it('answers a top-level string, number or null with -32600 and a null id', async () => {
      for (const body of ['"eth_chainId"', '42', 'null', 'true']) {
        expect(JSON.parse((await sendRaw(body))!)).to.deep.equal({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: 'invalid request' },
        });
      }
    });

    it('answers a jsonrpc version other than "2.0", or none, with -32006', async () => {
      for (const jsonrpc of ['1.0', 2, undefined]) {
        const response = await send({ jsonrpc, id: 7, method: 'test_echo', params: ['0x1'] });
        expect(response.id).to.equal(7);
        expect(response.error).to.deep.equal({ code: -32006, message: 'version not supported: jsonrpc must be "2.0"' });
      }
    });

    it('answers a missing or non-string method with -32600', async () => {
      expect((await send({ jsonrpc: '2.0', id: 3 })).error).to.deep.equal({ code: -32600, message: 'invalid request' });
      expect((await send({ jsonrpc: '2.0', id: 3, method: 5 })).error.code).to.equal(-32600);
    });

    it('answers an object or array id with -32600 and a null id', async () => {
      expect(await send({ jsonrpc: '2.0', id: { a: 1 }, method: 'test_echo' })).to.deep.equal({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'invalid request' },
      });
    });

    it('gives a well-formed notification no answer but runs it', async () => {
      const before = notified;
      expect(await send({ jsonrpc: '2.0', method: 'test_notify' })).to.equal(undefined);
      expect(notified).to.equal(before + 1);
    });
  });

  describe('parameters', () => {
    it('answers non-array params with geth\'s "non-array args"', async () => {
      expect((await send({ jsonrpc: '2.0', id: 1, method: 'test_echo', params: { n: '0x1' } })).error).to.deep.equal({
        code: -32602,
        message: 'non-array args',
      });
    });

    it('treats absent and null params as none', async () => {
      expect((await send(call('test_async'))).result).to.equal('later');
      expect((await send({ jsonrpc: '2.0', id: 1, method: 'test_async', params: null })).result).to.equal('later');
    });

    it('names the argument that does not decode, the missing one, and the most allowed', async () => {
      expect((await send(call('test_echo', ['12']))).error).to.deep.equal({
        code: -32602,
        message:
          'invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go value of type *hexutil.Big',
      });
      expect((await send(call('test_echo', []))).error).to.deep.equal({
        code: -32602,
        message: 'missing value for required argument 0',
      });
      expect((await send(call('test_echo', ['0x1', null, 3]))).error).to.deep.equal({
        code: -32602,
        message: 'too many arguments, want at most 2',
      });
      expect((await send(call('test_echo', ['0x1', '0x12']))).error.message).to.equal(
        'invalid argument 1: hex string has length 2, want 40 for common.Address',
      );
    });

    it('accepts a 4 MiB string where a quantity is wanted and answers with an error', async () => {
      const response = await send(call('test_echo', ['0x' + 'f'.repeat(4 * 1024 * 1024)]));
      expect(response.error.code).to.equal(-32602);
      expect(response.error.message).to.equal(
        'invalid argument 0: json: cannot unmarshal hex number > 256 bits into Go value of type *hexutil.Big',
      );
    });
  });

  describe('method lookup', () => {
    it("answers an unknown method with geth's -32601 message", async () => {
      expect((await send(call('eth_nope'))).error).to.deep.equal({
        code: -32601,
        message: 'the method eth_nope does not exist/is not available',
      });
    });

    it('answers every method of the unserved namespaces with -32601', async () => {
      for (const method of [
        'admin_peers',
        'miner_start',
        'clique_getSigners',
        'engine_newPayloadV3',
        'les_serverInfo',
        'personal_sign',
      ]) {
        expect((await send(call(method))).error).to.deep.equal({
          code: -32601,
          message: `the method ${method} does not exist/is not available`,
        });
      }
    });

    it('refuses to register a method of an unserved namespace', () => {
      const { registry } = dispatcherHarness([]);
      expect(() =>
        registry.register('rogue', [defineMethod({ name: 'admin_peers', params: [], handler: () => [] })]),
      ).to.throw('plugin rogue registers admin_peers, but the admin namespace is never served');
    });

    it('refuses a second registration of the same method, naming both plugins', () => {
      const { registry } = dispatcherHarness(methods);
      expect(() => registry.register('other', [methods[0]!])).to.throw(
        'plugin other registers test_echo, which plugin test already registered',
      );
    });

    it('answers methods in deny_list as if they did not exist', async () => {
      expect((await send(call('test_text'))).error).to.deep.equal({
        code: -32601,
        message: 'the method test_text does not exist/is not available',
      });
    });
  });

  describe('transports', () => {
    it('refuses an HTTP-only namespace over WebSocket, also for its unknown methods', async () => {
      expect((await send(call('debug_ping'), 'ws')).error).to.deep.equal({
        code: -32601,
        message: 'the debug namespace is HTTP-only: call debug_ping over HTTP',
      });
      expect((await send(call('debug_other'), 'ws')).error.message).to.equal(
        'the debug namespace is HTTP-only: call debug_other over HTTP',
      );
      expect((await send(call('debug_ping'), 'http')).result).to.equal('pong');
    });

    it('answers a WebSocket-only method over HTTP with "notifications not supported"', async () => {
      expect((await send(call('test_subscribe'), 'http')).error).to.deep.equal({
        code: -32601,
        message: 'notifications not supported',
      });
      expect((await send(call('test_subscribe'), 'ws')).result).to.equal('0x1');
    });
  });

  describe('errors', () => {
    it('passes typed errors through with their code, message and data', async () => {
      expect((await send(call('test_reject'))).error).to.deep.equal({
        code: -32003,
        message: 'nonce too low: next nonce 1, tx nonce 0',
        data: { code: 32, codespace: 'sdk' },
      });
    });

    it('recognises an error of another copy of core by its brand', async () => {
      expect((await send(call('test_foreign'))).error).to.deep.equal({ code: -32005, message: 'from elsewhere' });
    });

    it('hides unexpected errors as -32603 and logs each once with the method and request id', async () => {
      const before = logs.length;
      const response = await send(call('test_crash'));
      expect(response.error).to.deep.equal({ code: -32603, message: 'internal error' });
      const logged = logs.slice(before);
      expect(logged).to.have.length(1);
      expect(logged[0]).to.include({
        method: 'test_crash',
        requestId: 'req-1',
        msg: 'call failed with an unexpected error',
      });
      expect((logged[0]!.err as { message: string }).message).to.equal('secret database path /var/lib');
    });

    it('maps a result that cannot be serialised to -32603', async () => {
      expect((await send(call('test_bigint'))).error).to.deep.equal({ code: -32603, message: 'internal error' });
    });
  });

  describe('batches', () => {
    it('answers an empty batch with one -32600 "empty batch" object', async () => {
      expect(await send([])).to.deep.equal({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'empty batch' },
      });
    });

    it('serves a result that is already JSON as it is, alone and in a batch', async () => {
      expect(await sendRaw(JSON.stringify(call('test_raw', [], 7)))).to.equal(
        '{"jsonrpc":"2.0","id":7,"result":[{"a":1},"b"]}',
      );
      const big = Array.from({ length: 100 }, (_, index) => `"${String(index).repeat(100)}"`).join(',');
      expect(await sendRaw(JSON.stringify(call('test_rawBig', [], 8)))).to.equal(
        `{"jsonrpc":"2.0","id":8,"result":[${big}]}`,
      );
      expect(await sendRaw(JSON.stringify([call('test_raw', [], 1), call('test_echo', ['0x2'], 2)]))).to.equal(
        '[{"jsonrpc":"2.0","id":1,"result":[{"a":1},"b"]},{"jsonrpc":"2.0","id":2,"result":{"n":"0x2","who":null}}]',
      );
    });

    it('answers each element in order, skipping notifications', async () => {
      const response = await send([
        call('test_async', [], 'a'),
        { jsonrpc: '2.0', method: 'test_notify' },
        call('test_echo', ['0x2'], 'b'),
        5,
      ]);
      expect(response).to.deep.equal([
        { jsonrpc: '2.0', id: 'a', result: 'later' },
        { jsonrpc: '2.0', id: 'b', result: { n: '0x2', who: null } },
        { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } },
      ]);
    });

    it('sends nothing for a batch of notifications only', async () => {
      expect(
        await send([
          { jsonrpc: '2.0', method: 'test_notify' },
          { jsonrpc: '2.0', method: 'test_notify' },
        ]),
      ).to.equal(undefined);
    });

    it('serves a batch of batch_request_limit calls', async () => {
      const response = await send(Array.from({ length: 1000 }, (_, index) => call('test_echo', ['0x1'], index)));
      expect(response).to.have.length(1000);
      expect(response[999]).to.deep.equal({ jsonrpc: '2.0', id: 999, result: { n: '0x1', who: null } });
    });

    it("answers a larger batch with geth's single 'batch too large' element carrying the first call's id", async () => {
      const batch = [
        { jsonrpc: '2.0', method: 'test_notify' },
        ...Array.from({ length: 5000 }, (_, index) => call('test_echo', ['0x1'], index + 10)),
      ];
      expect(await send(batch)).to.deep.equal([
        { jsonrpc: '2.0', id: 10, error: { code: -32600, message: 'batch too large' } },
      ]);
    });
  });

  describe('limits and hooks', () => {
    it('gives the calls after batch_response_max_size -32003 "response too large"', async () => {
      const { send: sendSmall } = dispatcherHarness(methods, { evm: { batch_response_max_size: 100 } });
      const response = await sendSmall([call('test_text', [], 1), call('test_text', [], 2), call('test_text', [], 3)]);
      expect(response[0].result).to.have.length(60);
      expect(response[1].result).to.have.length(60);
      expect(response[2]).to.deep.equal({
        jsonrpc: '2.0',
        id: 3,
        error: { code: -32003, message: 'response too large' },
      });
    });

    it('gives the calls of a batch whose answers find no room in max_held_answer_bytes -32005, after closing the connections with the most unread', async () => {
      const harness = dispatcherHarness(methods, { evm: { max_held_answer_bytes: 260 } });
      const { send: sendHeld, heldAnswers, heldClock } = harness;
      const closed: string[] = [];
      heldAnswers.hold({}, 60, () => closed.push('small reader'));
      heldAnswers.hold({}, 80, () => closed.push('large reader'));
      // Left unread long enough to be closed for room.
      heldClock.now += FRESH_ANSWER_MS;
      const batch = [call('test_text', [], 1), call('test_text', [], 2), call('test_text', [], 3)];
      const response = (await sendHeld(batch)) as { result?: string; error?: unknown }[];
      // Each answer is 96 bytes: the first fits beside both readers, the second once the larger reader is
      // closed; for the third, closing the other one too leaves too little.
      expect(closed).to.deep.equal(['large reader', 'small reader']);
      expect(response.slice(0, 2).map((answer) => answer.result?.length)).to.deep.equal([60, 60]);
      const busy = { code: -32005, message: 'server busy: too many large answers held for clients' };
      expect(response[2]).to.deep.equal({ jsonrpc: '2.0', id: 3, error: busy });
      // The batch gave its room back.
      expect(heldAnswers.total).to.equal(0);
    });

    it(`runs at most ${BATCH_CONCURRENCY} calls of a batch at once and answers in order`, async () => {
      Object.assign(tracked, { started: 0, running: 0, mostRunning: 0 });
      const batch = Array.from({ length: 40 }, (_, index) =>
        call('test_tracked', [`0x${(index + 1).toString(16)}`], index),
      );
      const response = (await send(batch)) as { id: number; result: string }[];
      expect(response.map((answer) => [answer.id, answer.result.length])).to.deep.equal(
        Array.from({ length: 40 }, (_, index) => [index, index + 1]),
      );
      expect(tracked.mostRunning).to.equal(BATCH_CONCURRENCY);
    });

    it('does not run the calls after batch_response_max_size, asynchronous ones included', async () => {
      Object.assign(tracked, { started: 0, running: 0, mostRunning: 0 });
      const { send: sendSmall } = dispatcherHarness(methods, { evm: { batch_response_max_size: 1000 } });
      const batch: unknown[] = Array.from({ length: 100 }, (_, index) => call('test_tracked', ['0x190'], index));
      batch.splice(50, 0, { jsonrpc: '2.0', method: 'test_tracked', params: ['0x1'] }, null);
      const response = (await sendSmall(batch)) as { id: number | null; result?: string; error?: unknown }[];
      // 400 bytes each: the third answer passes 1000 bytes, and the calls after it are never run.
      expect(response).to.have.length(101);
      expect(response.slice(0, 3).map((answer) => answer.result?.length)).to.deep.equal([400, 400, 400]);
      expect(response[3]).to.deep.equal({
        jsonrpc: '2.0',
        id: 3,
        error: { code: -32003, message: 'response too large' },
      });
      // The notification gets nothing; the element that is not an object gets the error with a null id.
      expect(response[50]).to.deep.equal({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32003, message: 'response too large' },
      });
      expect(response[100]!.id).to.equal(99);
      expect(tracked.started).to.be.at.most(3 + BATCH_CONCURRENCY);
    });

    it('times out only the slow elements of a batch, 100 ms before write_timeout', async () => {
      const { send: sendTimed } = dispatcherHarness(methods, { evm: { write_timeout: 300 } });
      const started = Date.now();
      const response = await sendTimed([call('test_async', [], 1), call('test_slow', [], 2)]);
      expect(Date.now() - started).to.be.within(180, 900);
      expect(response).to.deep.equal([
        { jsonrpc: '2.0', id: 1, result: 'later' },
        { jsonrpc: '2.0', id: 2, error: { code: -32002, message: 'request timed out' } },
      ]);
    });

    it('answers a single call that timed out, with its id, and aborts its request signal', async () => {
      const { dispatcher } = dispatcherHarness(methods, { evm: { write_timeout: 200 } });
      const request = new RpcRequest('http', 'r', undefined, 'test-client');
      const body = JSON.stringify(call('test_slow', [], 'slow-1'));
      const answer = await dispatcher.dispatch(JSON.parse(body) as unknown, body, request);
      expect(JSON.parse(String(answer))).to.deep.equal({
        jsonrpc: '2.0',
        id: 'slow-1',
        error: { code: -32002, message: 'request timed out' },
      });
      expect(request.signal.aborted).to.equal(true);
    });

    it('runs hooks before lookup (they may refuse any name) and after the outcome', async () => {
      const harness = dispatcherHarness(methods);
      const seen: string[] = [];
      harness.hooks.add({
        name: 'gate',
        beforeCall(method) {
          if (method.startsWith('ext_')) throw new InvalidInputError(`${method} is gated`);
        },
        afterCall(method, _request, error, durationMs) {
          seen.push(`${method}:${error?.code ?? 'ok'}:${durationMs >= 0}`);
        },
      });
      expect((await harness.send(call('ext_made_up'))).error).to.deep.equal({
        code: -32000,
        message: 'ext_made_up is gated',
      });
      await harness.send(call('test_async'));
      await harness.send(call('nope_method'));
      expect(seen).to.deep.equal(['ext_made_up:-32000:true', 'test_async:ok:true', 'nope_method:-32601:true']);
    });

    it('refuses hooks once sealed', () => {
      hooks.seal();
      expect(() => hooks.add({ name: 'late' })).to.throw('request hook late added after the node started');
    });

    it('collects response headers a call sets', async () => {
      const request = new RpcRequest('http', 'h', undefined, 'test-client');
      await sendRaw(JSON.stringify(call('test_header')), 'http', request);
      expect(request.responseHeaders).to.deep.equal([['X-Test', 'yes']]);
    });
  });

  it('answers a body it could not read with -32700, or with -32005 when too many waited to be read', () => {
    expect(JSON.parse(Dispatcher.unreadable(new SyntaxError('exceeded max depth')))).to.deep.equal({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'parse error' },
    });
    expect(JSON.parse(Dispatcher.unreadable(new RequestJsonBusyError()))).to.deep.equal({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32005, message: 'server busy: too many large requests waiting to be read' },
    });
  });
});
