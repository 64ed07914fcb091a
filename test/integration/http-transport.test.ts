import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { networkInterfaces } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { brotliDecompressSync, gunzipSync, inflateRawSync } from 'node:zlib';
import { expect } from 'chai';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { fixturePlugin } from '../support/plugins/paths.js';
import { post, rpc } from '../support/rpc-client.js';

const CHAIN_ID_CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
/** fixture_pieces' result for 100: made of 201 pieces. */
const PIECES = Array<string>(100).fill('x'.repeat(4096));
const PARSE_ERROR = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } };

describe('HTTP transport', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ plugins: ['eth-query', fixturePlugin('fixture-rpc')] });
  });
  after(() => node.stop());

  // Every bad-input test ends by checking that the node still answers.
  afterEach(async () => {
    expect((await rpc(node.url, 'eth_chainId')).result).to.equal('0xae3f2');
  });

  it('serves a POST with a JSON body as application/json', async () => {
    const response = await post(node.url, CHAIN_ID_CALL);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('application/json');
    expect(JSON.parse(response.text)).to.deep.equal({ jsonrpc: '2.0', id: 1, result: '0xae3f2' });
  });

  it('sends a result made of pieces whole, with its length, alone or in a batch', async () => {
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'fixture_pieces', params: ['0x64'] });
    const alone = await post(node.url, JSON.stringify(call(1)));
    expect(Number(alone.headers.get('content-length'))).to.equal(Buffer.byteLength(alone.text));
    expect(JSON.parse(alone.text)).to.deep.equal({ jsonrpc: '2.0', id: 1, result: PIECES });
    const batch = await post(node.url, JSON.stringify([call(1), call(2)]));
    expect(JSON.parse(batch.text)).to.deep.equal([1, 2].map((id) => ({ jsonrpc: '2.0', id, result: PIECES })));
  });

  it('echoes ids exactly, large integers included', async () => {
    const big = '123456789012345678901234567890';
    const response = await post(
      node.url,
      `[{"jsonrpc":"2.0","id":${big},"method":"eth_chainId"},{"jsonrpc":"2.0","id":"x","method":"eth_chainId"}]`,
    );
    expect(response.text).to.equal(
      `[{"jsonrpc":"2.0","id":${big},"result":"0xae3f2"},{"jsonrpc":"2.0","id":"x","result":"0xae3f2"}]`,
    );
  });

  it('answers notifications with an empty body', async () => {
    for (const body of [
      '{"jsonrpc":"2.0","method":"eth_chainId"}',
      '[{"jsonrpc":"2.0","method":"eth_chainId"},{"jsonrpc":"2.0","method":"net_version"}]',
    ]) {
      const response = await post(node.url, body);
      expect(response.status).to.equal(200);
      expect(response.text).to.equal('');
    }
  });

  it('accepts the JSON-RPC content types geth accepts', async () => {
    for (const type of ['application/json-rpc', 'application/jsonrequest', 'application/json; charset=utf-8']) {
      expect((await post(node.url, CHAIN_ID_CALL, { 'content-type': type })).status).to.equal(200);
    }
  });

  describe('bad input', () => {
    it('answers truncated JSON with -32700', async () => {
      const response = await post(node.url, '{"jsonrpc":"2.0","id":1,"method":"eth_chai');
      expect(response.status).to.equal(200);
      expect(JSON.parse(response.text)).to.deep.equal(PARSE_ERROR);
    });

    it('answers an empty body with -32700', async () => {
      expect(JSON.parse((await post(node.url, '')).text)).to.deep.equal(PARSE_ERROR);
    });

    it('answers a top-level string or number with -32600', async () => {
      for (const body of ['"eth_chainId"', '12']) {
        expect(JSON.parse((await post(node.url, body)).text)).to.deep.equal({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: 'invalid request' },
        });
      }
    });

    it('answers params that are not an array with -32602', async () => {
      const response = await post(node.url, '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":"0x1"}');
      expect(JSON.parse(response.text).error).to.deep.equal({ code: -32602, message: 'non-array args' });
    });

    it('answers JSON nested deeper than 1,000 levels with -32700, and a body nested to the limit as any other', async () => {
      const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
      const call = (method: string, levels: number) =>
        `{"jsonrpc":"2.0","id":2,"method":"${method}","params":[${nested(levels)},false]}`;
      // Deep enough to overflow the stack of a parameter's error text, before the limit.
      for (const body of [nested(1001), call('eth_chainId', 999), call('eth_getBlockByNumber', 100_000)]) {
        const response = await post(node.url, body);
        expect(response.status).to.equal(200);
        expect(JSON.parse(response.text)).to.deep.equal(PARSE_ERROR);
      }
      expect(JSON.parse((await post(node.url, nested(1000))).text)).to.deep.equal([
        { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } },
      ]);
      // The call's object and its params are two of the 1,000 levels.
      expect(JSON.parse((await post(node.url, call('eth_chainId', 998))).text).error).to.deep.equal({
        code: -32602,
        message: 'too many arguments, want at most 0',
      });
      const { error } = JSON.parse((await post(node.url, call('eth_getBlockByNumber', 998))).text);
      expect(error.code).to.equal(-32602);
      expect(error.message).to.match(/^invalid argument 0: /);
    });

    it("checks a long body off the node's thread: other calls are answered meanwhile, and one over the limits gets -32700", async () => {
      // 4.8 MB of a million tiny arrays: JSON.parse alone takes a few hundred milliseconds.
      const tiny = `[${Array(1_200_000).fill('[1]').join(',')}]`;
      const order: string[] = [];
      const refused = post(node.url, tiny).then((response) => {
        order.push('tiny');
        return response;
      });
      await sleep(20);
      expect((await rpc(node.url, 'eth_chainId')).result).to.equal('0xae3f2');
      order.push('chainId');
      const response = await refused;
      expect(order).to.deep.equal(['chainId', 'tiny']);
      expect(response.status).to.equal(200);
      expect(JSON.parse(response.text)).to.deep.equal(PARSE_ERROR);
    });

    it('answers a 4 MiB string parameter with a parameter error', async () => {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'eth_chainId',
        params: ['a'.repeat(4 * 1024 * 1024)],
      });
      const response = await post(node.url, body);
      expect(response.status).to.equal(200);
      expect(JSON.parse(response.text).error).to.deep.equal({
        code: -32602,
        message: 'too many arguments, want at most 0',
      });
    });

    it("answers a batch of 5,000 with geth's single 'batch too large' element", async () => {
      const batch = Array.from({ length: 5000 }, (_, index) => ({
        jsonrpc: '2.0',
        id: index + 1,
        method: 'eth_chainId',
      }));
      expect(JSON.parse((await post(node.url, JSON.stringify(batch))).text)).to.deep.equal([
        { jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'batch too large' } },
      ]);
    });

    it('reads non-UTF-8 bytes as replacement characters and answers the call', async () => {
      const prefix = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"eth_');
      const body = Buffer.concat([prefix, Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}')]);
      const response = JSON.parse((await post(node.url, body)).text);
      expect(response.error.code).to.equal(-32601);
      expect(response.error.message).to.equal('the method eth_\ufffd\ufffd\ufffd does not exist/is not available');
    });

    it('refuses a body over 5 MiB with HTTP 413', async () => {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_chainId',
        params: ['a'.repeat(5 * 1024 * 1024)],
      });
      const response = await post(node.url, body);
      expect(response.status).to.equal(413);
      expect(JSON.parse(response.text)).to.deep.equal({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'request body too large: the limit is 5242880 bytes' },
      });
    });

    it('refuses a streamed body that grows past 5 MiB with HTTP 413', async () => {
      const { request } = await import('node:http');
      const status = await new Promise<number | undefined>((resolve, reject) => {
        const req = request(node.url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
          res.resume();
          resolve(res.statusCode);
        });
        req.on('error', reject);
        // Chunked: no Content-Length announces the size, so the limit is enforced while reading.
        const chunk = Buffer.alloc(1024 * 1024, 'a');
        for (let sent = 0; sent < 6; sent++) req.write(chunk);
        req.end();
      });
      expect(status).to.equal(413);
    });

    it('refuses another content type with HTTP 415', async () => {
      for (const headers of [
        { 'content-type': 'text/plain' },
        { 'content-type': 'application/x-www-form-urlencoded' },
      ]) {
        const response = await post(node.url, CHAIN_ID_CALL, headers);
        expect(response.status).to.equal(415);
        expect(response.text).to.equal('invalid content type, only application/json is supported');
      }
    });

    it('refuses methods other than POST, GET and OPTIONS with HTTP 405', async () => {
      expect((await fetch(node.url, { method: 'PUT', body: CHAIN_ID_CALL })).status).to.equal(405);
    });
  });

  describe('health, metrics, CORS and compression', () => {
    it('answers a GET with an empty body with 200, and /health with a status', async () => {
      const root = await fetch(node.url);
      expect(root.status).to.equal(200);
      expect(await root.text()).to.equal('');
      const before = node.node.chain.head().height;
      const health = await fetch(`${node.url}/health`);
      expect(health.status).to.equal(200);
      const body = (await health.json()) as { height: number };
      expect(body).to.deep.equal({ status: 'ok', role: 'producer', height: body.height });
      expect(body.height).to.be.within(before, node.node.chain.head().height);
    });

    it('serves Prometheus metrics: calls and latency per method, errors per code', async () => {
      await rpc(node.url, 'net_version');
      await rpc(node.url, 'eth_nope');
      const response = await fetch(`${node.url}/metrics`);
      expect(response.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
      const text = await response.text();
      expect(text).to.match(/^evmnode_rpc_requests_total\{method="net_version"\} [1-9]\d*$/m);
      expect(text).to.match(/^evmnode_rpc_request_duration_seconds_count\{method="net_version"\} [1-9]\d*$/m);
      expect(text).to.match(/^evmnode_rpc_errors_total\{method="unknown",code="-32601"\} [1-9]\d*$/m);
      expect(text).to.include('evmnode_process_cpu_user_seconds_total');
    });

    it('starts without metrics when [metrics] enabled = false, and /metrics is not found', async () => {
      const bare = await startTestNode({ config: { metrics: { enabled: false } } });
      try {
        expect((await fetch(`${bare.url}/metrics`)).status).to.equal(404);
        expect(await rpc(bare.url, 'net_version')).to.deep.include({ result: '713714' });
      } finally {
        await bare.stop();
      }
    });

    it('allows any origin by default and answers preflight requests', async () => {
      const response = await fetch(node.url, {
        method: 'POST',
        body: CHAIN_ID_CALL,
        headers: { 'content-type': 'application/json', origin: 'https://dapp.example' },
      });
      expect(response.headers.get('access-control-allow-origin')).to.equal('*');
      const preflight = await fetch(node.url, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://dapp.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      expect(preflight.status).to.equal(204);
      expect(preflight.headers.get('access-control-allow-methods')).to.include('POST');
    });

    describe('compression', () => {
      // Answers to loopback clients are never compressed: these tests reach the node through an
      // address of this machine that is not loopback.
      let remote: TestNode;
      let remoteUrl: string;
      before(async function () {
        const address = Object.values(networkInterfaces())
          .flat()
          .find((entry) => entry?.family === 'IPv4' && !entry.internal)?.address;
        if (address === undefined) return this.skip();
        remote = await startTestNode({
          plugins: ['eth-query', fixturePlugin('fixture-rpc')],
          config: { evm: { listen_address: '0.0.0.0' } },
        });
        remoteUrl = `http://${address}:${new URL(remote.url).port}`;
      });
      after(() => remote?.stop());

      it('gzips a response when a remote client asks', async () => {
        const batch = JSON.stringify(
          Array.from({ length: 50 }, (_, index) => ({ jsonrpc: '2.0', id: index, method: 'web3_clientVersion' })),
        );
        const response = await fetch(remoteUrl, {
          method: 'POST',
          body: batch,
          headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip' },
        });
        expect(response.headers.get('content-encoding')).to.equal('gzip');
        expect(await response.json()).to.have.length(50);
      });

      /** Posts a batch of 100 `fixture_big` calls, over 256 KiB answered, and returns the raw answer. */
      const postLargeBatch = (acceptEncoding: string, url = remoteUrl) =>
        new Promise<{ headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
          const batch = JSON.stringify(
            Array.from({ length: 100 }, (_, index) => ({ jsonrpc: '2.0', id: index, method: 'fixture_big' })),
          );
          const request = httpRequest(
            url,
            { method: 'POST', headers: { 'content-type': 'application/json', 'accept-encoding': acceptEncoding } },
            (response) => {
              const chunks: Buffer[] = [];
              response.on('data', (chunk: Buffer) => chunks.push(chunk));
              response.on('end', () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }));
            },
          );
          request.on('error', reject);
          request.end(batch);
        });

      const expectLargeBatchAnswer = (text: Buffer) => {
        expect(text.length).to.be.greaterThan(256 * 1024);
        const answers = JSON.parse(text.toString('utf8')) as { id: number; result: unknown[] }[];
        expect(answers.map(({ id }) => id)).to.deep.equal(Array.from({ length: 100 }, (_, index) => index));
        for (const { result } of answers) expect(result).to.have.length(4096);
      };

      it('gzips a large answer at the fastest level, as one ordinary gzip member with its length', async () => {
        const { headers, body } = await postLargeBatch('gzip, deflate');
        expect(headers['content-encoding']).to.equal('gzip');
        expect(Number(headers['content-length'])).to.equal(body.length);
        const text = gunzipSync(body);
        // One member: the raw deflate stream between the header and the trailer holds the whole answer.
        expect(inflateRawSync(body.subarray(10, -8)).equals(text)).to.equal(true);
        expectLargeBatchAnswer(text);
      });

      it('compresses a large answer with brotli when the client takes it, and small ones with gzip', async () => {
        const { headers, body } = await postLargeBatch('gzip, deflate, br');
        expect(headers['content-encoding']).to.equal('br');
        expect(Number(headers['content-length'])).to.equal(body.length);
        expectLargeBatchAnswer(brotliDecompressSync(body));
        const small = await fetch(remoteUrl, {
          method: 'POST',
          body: JSON.stringify(
            Array.from({ length: 50 }, (_, index) => ({ jsonrpc: '2.0', id: index, method: 'web3_clientVersion' })),
          ),
          headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip, deflate, br' },
        });
        expect(small.headers.get('content-encoding')).to.equal('gzip');
        expect(await small.json()).to.have.length(50);
      });

      it('compresses a result made of pieces whole', async () => {
        const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'fixture_pieces', params: ['0x64'] });
        for (const coding of ['gzip', 'br']) {
          // fetch undoes the coding it names.
          const response = await post(remoteUrl, call, {
            'content-type': 'application/json',
            'accept-encoding': coding,
          });
          expect(response.headers.get('content-encoding')).to.equal(coding);
          expect(JSON.parse(response.text)).to.deep.equal({ jsonrpc: '2.0', id: 1, result: PIECES });
        }
      });

      it('answers a loopback client uncompressed, whatever it asks', async () => {
        const { headers, body } = await postLargeBatch('gzip, deflate, br', node.url);
        expect(headers['content-encoding']).to.equal(undefined);
        expect(Number(headers['content-length'])).to.equal(body.length);
        expectLargeBatchAnswer(body);
      });

      it('does not compress when the client does not ask', async () => {
        const response = await post(remoteUrl, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'fixture_big' }), {
          'content-type': 'application/json',
          'accept-encoding': 'identity',
        });
        expect(response.headers.get('content-encoding')).to.equal(null);
        expect(JSON.parse(response.text).result).to.have.length(4096);
        expect(() => gunzipSync(Buffer.from(response.text))).to.throw();
      });
    });

    it('sends the response headers calls ask for', async () => {
      const response = await post(node.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'fixture_header' }));
      expect(response.headers.get('ext-legacy-rpc-deprecation')).to.equal('deprecated');
    });
  });
});

describe('HTTP transport settings', () => {
  it('allows only the configured CORS origins', async () => {
    const node = await startTestNode({ config: { evm: { cors_origins: ['https://good.example'] } } });
    try {
      const ask = (origin: string) =>
        fetch(node.url, {
          method: 'POST',
          body: CHAIN_ID_CALL,
          headers: { 'content-type': 'application/json', origin },
        });
      expect((await ask('https://good.example')).headers.get('access-control-allow-origin')).to.equal(
        'https://good.example',
      );
      expect((await ask('https://evil.example')).headers.get('access-control-allow-origin')).to.equal(null);
    } finally {
      await node.stop();
    }
  });

  it('answers a call still running 100 ms before write_timeout with -32002', async () => {
    const node = await startTestNode({
      plugins: ['eth-query', fixturePlugin('fixture-rpc')],
      config: { evm: { write_timeout: 400 } },
    });
    try {
      const started = Date.now();
      const batch = [
        { jsonrpc: '2.0', id: 1, method: 'fixture_sleep', params: ['0x2710'] },
        { jsonrpc: '2.0', id: 2, method: 'eth_chainId' },
      ];
      const response = JSON.parse((await post(node.url, JSON.stringify(batch))).text);
      expect(Date.now() - started).to.be.below(2000);
      expect(response).to.deep.equal([
        { jsonrpc: '2.0', id: 1, error: { code: -32002, message: 'request timed out' } },
        { jsonrpc: '2.0', id: 2, result: '0xae3f2' },
      ]);
    } finally {
      await node.stop();
    }
  });

  it('finishes in-flight requests on shutdown, then refuses connections', async () => {
    const node = await startTestNode({ plugins: ['eth-query', fixturePlugin('fixture-rpc')] });
    const inFlight = rpc(node.url, 'fixture_sleep', ['0x12c']);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await node.stop();
    expect((await inFlight).result).to.equal('awake');
    const refused = await fetch(node.url, {
      method: 'POST',
      body: CHAIN_ID_CALL,
      headers: { 'content-type': 'application/json' },
    }).then(
      () => 'answered',
      () => 'refused',
    );
    expect(refused).to.equal('refused');
  });

  it('serves neither transport when both are disabled', async () => {
    const node = await startTestNode({ config: { evm: { http_enabled: false, ws_enabled: false } } });
    expect(node.url).to.equal('');
    expect(node.wsUrl).to.equal('');
    await node.stop();
  });
});
