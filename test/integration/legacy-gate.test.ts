import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { networkInterfaces } from 'node:os';
import { expect } from 'chai';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { fixturePlugin } from '../support/plugins/paths.js';
import { legacyGateRefusal, methodNotFound } from '../support/rpc-answers.js';
import { post } from '../support/rpc-client.js';
import { WsClient } from '../support/ws-client.js';

const HEADER = 'ext-legacy-rpc-deprecation';
const HEADER_TEXT =
  'All ext_* and ext2_* JSON-RPC methods are deprecated and scheduled for removal; migrate to eth_* and supported APIs.';

/** Posts one call or a batch; returns the status, the deprecation header and the parsed answer. */
async function call(url: string, body: unknown) {
  const response = await post(url, JSON.stringify(body));
  return { status: response.status, header: response.headers.get(HEADER), answer: JSON.parse(response.text) };
}
const request = (method: string, id: unknown = 1, params: unknown[] = []) => ({ jsonrpc: '2.0', id, method, params });

describe('the legacy gate', () => {
  describe('with the default list and no legacy plugin loaded', () => {
    let node: TestNode;
    before(async () => {
      node = await startTestNode({ plugins: ['eth-query'] });
    });
    after(() => node.stop());

    for (const method of ['ext_getNativeAddress', 'ext_getEVMAddress', 'ext_getNativeTx', 'ext_getCosmosTx']) {
      it(`lets ${method} through to the lookup, which does not find it, with the header`, async () => {
        const { status, header, answer } = await call(node.url, request(method));
        expect(status).to.equal(200);
        expect(answer).to.deep.equal({ jsonrpc: '2.0', id: 1, error: methodNotFound(method) });
        expect(header).to.equal(HEADER_TEXT);
      });
    }

    for (const method of [
      'ext_getEvmTx',
      'ext_associate',
      'ext2_getBlockByNumber',
      'ext_noSuchMethod',
      'ext_getnativeaddress',
    ]) {
      it(`refuses ${method} with the gate error, HTTP 200 and no header`, async () => {
        const { status, header, answer } = await call(node.url, request(method));
        expect(status).to.equal(200);
        expect(answer).to.deep.equal({ jsonrpc: '2.0', id: 1, error: legacyGateRefusal(method) });
        expect(header).to.equal(null);
      });
    }

    it('treats a wrong-case prefix as an unknown method, as geth does: not found, not gated', async () => {
      const { header, answer } = await call(node.url, request('EXT_getNativeAddress'));
      expect(answer).to.deep.equal({ jsonrpc: '2.0', id: 1, error: methodNotFound('EXT_getNativeAddress') });
      expect(header).to.equal(null);
    });

    it('adds no header to other methods', async () => {
      const { header, answer } = await call(node.url, request('eth_chainId'));
      expect(answer.result).to.equal('0xae3f2');
      expect(header).to.equal(null);
    });

    it('refuses every legacy name over WebSocket as HTTP-only, enabled or not', async () => {
      const client = await WsClient.connect(node.wsUrl);
      try {
        for (const [method, namespace] of [
          ['ext_getNativeAddress', 'ext'],
          ['ext_getEvmTx', 'ext'],
          ['ext2_getBlockByHash', 'ext2'],
          ['ext_noSuchMethod', 'ext'],
        ] as const) {
          expect(await client.call(method)).to.deep.equal({
            jsonrpc: '2.0',
            id: 1,
            error: { code: -32601, message: `the ${namespace} namespace is HTTP-only: call ${method} over HTTP` },
          });
        }
        expect((await client.call('eth_chainId')).result).to.equal('0xae3f2');
      } finally {
        client.close();
      }
    });
  });

  describe('with a plugin serving ext_ methods and the default list', () => {
    let node: TestNode;
    before(async () => {
      node = await startTestNode({ plugins: ['eth-query', fixturePlugin('fixture-legacy')] });
    });
    after(() => node.stop());

    it('serves an enabled method with the header', async () => {
      const { status, header, answer } = await call(node.url, request('ext_getNativeAddress', 7, ['0x00']));
      expect(status).to.equal(200);
      expect(answer).to.deep.equal({ jsonrpc: '2.0', id: 7, result: 'sei1fixture' });
      expect(header).to.equal(HEADER_TEXT);
    });

    it('adds the header to a failed enabled call too', async () => {
      const { header, answer } = await call(node.url, request('ext_getNativeAddress', 1, []));
      expect(answer.error).to.deep.equal({ code: -32602, message: 'missing value for required argument 0' });
      expect(header).to.equal(HEADER_TEXT);
    });

    it('refuses a method the plugin serves but the list does not enable', async () => {
      const { header, answer } = await call(node.url, request('ext_getEvmTx', 1, ['AB']));
      expect(answer).to.deep.equal({ jsonrpc: '2.0', id: 1, error: legacyGateRefusal('ext_getEvmTx') });
      expect(header).to.equal(null);
    });

    it('answers a batch element by element, with the header once when an enabled legacy call is in it', async () => {
      const batch = [
        request('eth_chainId', 1),
        request('ext_getEvmTx', 2, ['AB']),
        { jsonrpc: '1.0', id: 3, method: 'ext_getNativeAddress', params: ['0x00'] },
        42,
        request('ext_getNativeAddress', 5, ['0x00']),
        { jsonrpc: '2.0', method: 'ext_getEvmTx', params: ['AB'] },
        request('ext2_getBlockReceipts', 6, ['latest']),
        request('ext_getNativeAddress', 8, ['0x01']),
      ];
      const response = await post(node.url, JSON.stringify(batch));
      expect(response.status).to.equal(200);
      expect(response.headers.get(HEADER)).to.equal(HEADER_TEXT);
      expect(JSON.parse(response.text)).to.deep.equal([
        { jsonrpc: '2.0', id: 1, result: '0xae3f2' },
        { jsonrpc: '2.0', id: 2, error: legacyGateRefusal('ext_getEvmTx') },
        { jsonrpc: '2.0', id: 3, error: { code: -32006, message: 'version not supported: jsonrpc must be "2.0"' } },
        { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } },
        { jsonrpc: '2.0', id: 5, result: 'sei1fixture' },
        { jsonrpc: '2.0', id: 6, error: legacyGateRefusal('ext2_getBlockReceipts') },
        { jsonrpc: '2.0', id: 8, result: 'sei1fixture' },
      ]);
    });

    it('sends no header for a batch without an enabled legacy call', async () => {
      const { header, answer } = await call(node.url, [request('eth_chainId', 1), request('ext_getEvmTx', 2, ['AB'])]);
      expect(answer).to.deep.equal([
        { jsonrpc: '2.0', id: 1, result: '0xae3f2' },
        { jsonrpc: '2.0', id: 2, error: legacyGateRefusal('ext_getEvmTx') },
      ]);
      expect(header).to.equal(null);
    });
  });

  describe('with a configured list', () => {
    let node: TestNode;
    before(async () => {
      node = await startTestNode({
        plugins: ['eth-query', fixturePlugin('fixture-legacy')],
        config: {
          evm: {
            enabled_legacy_ext_apis: [
              ' EXT_callCosmos ',
              'ext_getevmtx\t',
              'ext_getNativeTx',
              'ext_noSuchMethod',
              'eth_chainId',
            ],
          },
        },
      });
    });
    after(() => node.stop());

    it('enables the canonical method of an alias listed, and the alias with it', async () => {
      for (const method of ['ext_callNative', 'ext_callCosmos']) {
        const { header, answer } = await call(node.url, request(method));
        expect(answer).to.deep.equal({ jsonrpc: '2.0', id: 1, result: 'native answer' });
        expect(header).to.equal(HEADER_TEXT);
      }
    });

    it('enables the alias of a canonical method listed', async () => {
      // No plugin serves it: it passes the gate and is not found.
      const { header, answer } = await call(node.url, request('ext_getCosmosTx'));
      expect(answer).to.deep.equal({ jsonrpc: '2.0', id: 1, error: methodNotFound('ext_getCosmosTx') });
      expect(header).to.equal(HEADER_TEXT);
    });

    it('matches entries whatever their case and padding, while method names stay case-sensitive', async () => {
      expect((await call(node.url, request('ext_getEvmTx', 1, ['AB']))).answer.result).to.equal(`0x${'ab'.repeat(32)}`);
      expect((await call(node.url, request('ext_getevmtx', 1, ['AB']))).answer.error).to.deep.equal(
        legacyGateRefusal('ext_getevmtx'),
      );
    });

    it('replaces the default list', async () => {
      const { answer } = await call(node.url, request('ext_getNativeAddress', 1, ['0x00']));
      expect(answer.error).to.deep.equal(legacyGateRefusal('ext_getNativeAddress'));
    });

    it('warns once at start-up about the entries that name no legacy method, and ignores them', async () => {
      const warnings = node.logs.filter((line) => String(line.msg).startsWith('enabled_legacy_ext_apis'));
      expect(warnings).to.have.length(1);
      expect(warnings[0]!.level).to.equal(40);
      expect(warnings[0]!.msg).to.equal(
        'enabled_legacy_ext_apis names no legacy method: ext_noSuchMethod, eth_chainId (ignored)',
      );
      expect((await call(node.url, request('ext_noSuchMethod'))).answer.error).to.deep.equal(
        legacyGateRefusal('ext_noSuchMethod'),
      );
    });
  });

  describe('compression', () => {
    // Answers to loopback clients are never compressed: these tests reach the node through an
    // address of this machine that is not loopback.
    let node: TestNode;
    let remoteUrl: string;
    before(async function () {
      const address = Object.values(networkInterfaces())
        .flat()
        .find((entry) => entry?.family === 'IPv4' && !entry.internal)?.address;
      if (address === undefined) return this.skip();
      node = await startTestNode({
        plugins: ['eth-query', fixturePlugin('fixture-legacy')],
        config: { evm: { listen_address: '0.0.0.0', enabled_legacy_ext_apis: ['ext_queryState'] } },
      });
      remoteUrl = `http://${address}:${new URL(node.url).port}`;
    });
    after(() => node?.stop());

    /** Posts a batch of 100 calls of `method` asking for gzip, and returns the raw answer. */
    const postGzipBatch = (method: string) =>
      new Promise<{ headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const batch = JSON.stringify(Array.from({ length: 100 }, (_, index) => request(method, index)));
        const sent = httpRequest(
          remoteUrl,
          { method: 'POST', headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip' } },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }));
          },
        );
        sent.on('error', reject);
        sent.end(batch);
      });

    it('never compresses an answer carrying the header', async () => {
      const { headers, body } = await postGzipBatch('ext_queryState');
      expect(headers[HEADER]).to.equal(HEADER_TEXT);
      expect(headers['content-encoding']).to.equal(undefined);
      expect(body.length).to.be.greaterThan(256 * 1024);
      const answers = JSON.parse(body.toString('utf8')) as { result: string }[];
      expect(answers).to.have.length(100);
      for (const { result } of answers) expect(result).to.equal('x'.repeat(4096));
    });

    it('still compresses other answers of the same size', async () => {
      const { headers } = await postGzipBatch('web3_clientVersion');
      expect(headers[HEADER]).to.equal(undefined);
      expect(headers['content-encoding']).to.equal('gzip');
    });
  });
});
