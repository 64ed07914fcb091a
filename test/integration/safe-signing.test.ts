import { request as httpRequest } from 'node:http';
import { rmSync } from 'node:fs';
import { expect } from 'chai';
import { Wallet, verifyMessage } from 'ethers';
import WebSocket from 'ws';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { devWallet, lower } from '../support/chain-kit.js';
import { homeWithKeyring, keystoreOf } from '../support/keyring.js';
import { post, rpc } from '../support/rpc-client.js';
import { refusalOf } from '../support/startup.js';
import { WsClient } from '../support/ws-client.js';

const SIGNER = lower(devWallet(0).address);
const MESSAGE = '0x68656c6c6f';
const TRANSACTION = { from: SIGNER, to: SIGNER, gas: '0x5208', gasPrice: '0x3b9aca00', nonce: '0x0' };

/** The refusal a web page of `origin` gets from a signing method. */
function refusal(method: string, origin: string) {
  return {
    code: -32000,
    message:
      `${method} refused: origin ${origin} may not sign with this node's hosted keys; ` +
      'to allow it, add it to signing_origins under [evm] in app.toml',
  };
}

/** A JSON-RPC call over HTTP as a web page of `origin` sends it. */
async function callFrom(url: string, origin: string, method: string, params: unknown[]): Promise<any> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
  const { text } = await post(url, body, { 'content-type': 'application/json', origin });
  return JSON.parse(text);
}

interface HostAnswer {
  readonly status: number;
  readonly type: string | undefined;
  readonly text: string;
}

/** An HTTP request with the Host header `host` (fetch does not let a caller set it), on a fresh connection. */
function requestWithHost(url: string, method: 'GET' | 'POST', host: string, body = ''): Promise<HostAnswer> {
  return new Promise((resolve, reject) => {
    const headers = { host, 'content-type': 'application/json' };
    const request = httpRequest(url, { method, headers, agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, type: response.headers['content-type'], text }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** The status and body of a WebSocket upgrade refused with `headers`. */
function refusedUpgrade(url: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.once('open', () => reject(new Error('the upgrade was accepted')));
    socket.once('error', reject);
    socket.once('unexpected-response', (request, response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        resolve({ status: response.statusCode!, text });
        request.destroy();
      });
    });
  });
}

const CHAIN_ID_CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });

describe('safe signing: signing methods and the Origin of the request', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode();
  });
  after(() => node.stop());

  it('refuses eth_sign, eth_signTransaction and eth_sendTransaction over HTTP to a foreign origin', async () => {
    const origin = 'http://evil.example';
    expect((await callFrom(node.url, origin, 'eth_sign', [SIGNER, MESSAGE])).error).to.deep.equal(
      refusal('eth_sign', origin),
    );
    expect((await callFrom(node.url, origin, 'eth_signTransaction', [TRANSACTION])).error).to.deep.equal(
      refusal('eth_signTransaction', origin),
    );
    expect((await callFrom(node.url, origin, 'eth_sendTransaction', [TRANSACTION])).error).to.deep.equal(
      refusal('eth_sendTransaction', origin),
    );
    expect(node.node.chain.pool.size).to.equal(0);
    // Methods that do not sign still serve the page.
    expect((await callFrom(node.url, origin, 'eth_chainId', [])).result).to.equal('0xae3f2');
    expect((await callFrom(node.url, origin, 'eth_accounts', [])).result).to.have.length(10);
  });

  it('refuses only the signing calls of a batch', async () => {
    const batch = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'eth_sign', params: [SIGNER, MESSAGE] },
    ]);
    const { text } = await post(node.url, batch, { 'content-type': 'application/json', origin: 'null' });
    expect(JSON.parse(text)).to.deep.equal([
      { jsonrpc: '2.0', id: 1, result: '0xae3f2' },
      { jsonrpc: '2.0', id: 2, error: refusal('eth_sign', 'null') },
    ]);
  });

  it('signs for a client that sends no Origin, and for the localhost origins of the local profile', async () => {
    const unsigned = await rpc(node.url, 'eth_sign', [SIGNER, MESSAGE]);
    expect(verifyMessage('hello', unsigned.result)).to.equal(devWallet(0).address);
    for (const origin of [
      'http://localhost',
      'http://localhost:5173',
      'http://127.0.0.1:3000',
      'HTTP://LOCALHOST:80',
    ]) {
      expect((await callFrom(node.url, origin, 'eth_sign', [SIGNER, MESSAGE])).result, origin).to.equal(
        unsigned.result,
      );
    }
  });

  it('matches the port wildcard exactly: the same scheme and host, then digits only', async () => {
    for (const origin of [
      'https://localhost:5173',
      'http://localhost.evil.example',
      'http://localhost:3000.evil.example',
      'http://localhost:',
      'http://127.0.0.10:3000',
    ]) {
      expect((await callFrom(node.url, origin, 'eth_sign', [SIGNER, MESSAGE])).error, origin).to.deep.equal(
        refusal('eth_sign', origin),
      );
    }
  });

  it('refuses eth_sign over a WebSocket opened by a foreign page, which ws_origins lets connect', async () => {
    const foreign = await WsClient.connect(node.wsUrl, { origin: 'http://evil.example' });
    const local = await WsClient.connect(node.wsUrl, { origin: 'http://localhost:8080' });
    const script = await WsClient.connect(node.wsUrl);
    try {
      expect((await foreign.call('eth_sign', [SIGNER, MESSAGE])).error).to.deep.equal(
        refusal('eth_sign', 'http://evil.example'),
      );
      expect((await foreign.call('eth_chainId')).result).to.equal('0xae3f2');
      const signature: string = (await local.call('eth_sign', [SIGNER, MESSAGE])).result;
      expect(verifyMessage('hello', signature)).to.equal(devWallet(0).address);
      expect((await script.call('eth_sign', [SIGNER, MESSAGE])).result).to.equal(signature);
    } finally {
      foreign.close();
      local.close();
      script.close();
    }
  });
});

describe('safe signing: [evm] signing_origins', () => {
  it('allows exactly the listed origins, and every origin with "*"', async () => {
    const node = await startTestNode({
      config: { evm: { signing_origins: ['https://app.example', 'http://dev.example:*'] } },
    });
    try {
      for (const origin of ['https://app.example', 'HTTPS://APP.EXAMPLE', 'http://dev.example:8080']) {
        expect((await callFrom(node.url, origin, 'eth_sign', [SIGNER, MESSAGE])).result, origin).to.be.a('string');
      }
      // The list replaces the local profile's localhost origins.
      for (const origin of ['https://app.example:8443', 'http://app.example', 'http://localhost:3000']) {
        expect((await callFrom(node.url, origin, 'eth_sign', [SIGNER, MESSAGE])).error, origin).to.deep.equal(
          refusal('eth_sign', origin),
        );
      }
    } finally {
      await node.stop();
    }
    const open = await startTestNode({ config: { evm: { signing_origins: ['*'] } } });
    try {
      const answer = await callFrom(open.url, 'http://evil.example', 'eth_sign', [SIGNER, MESSAGE]);
      expect(answer.result).to.be.a('string');
    } finally {
      await open.stop();
    }
  });

  it('signs for no origin on a network whose profile allows none', async () => {
    const folder = homeWithKeyring({ 'key.json': keystoreOf(Wallet.createRandom(), 'horse') });
    const node = await startTestNode({
      home: folder,
      env: { KEYRING_PASSPHRASE: 'horse' },
      config: { node: { network: 'testnet' } },
    });
    try {
      const [holder] = (await rpc(node.url, 'eth_accounts')).result as string[];
      expect((await rpc(node.url, 'eth_sign', [holder, MESSAGE])).result).to.be.a('string');
      expect((await callFrom(node.url, 'http://localhost:3000', 'eth_sign', [holder, MESSAGE])).error).to.deep.equal(
        refusal('eth_sign', 'http://localhost:3000'),
      );
    } finally {
      await node.stop();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('safe signing: the Host header and [evm] vhosts', () => {
  let node: TestNode;
  let port: string;
  before(async () => {
    node = await startTestNode();
    port = new URL(node.url).port;
  });
  after(() => node.stop());

  it("answers geth's 403 to a host name outside vhosts, on POST and on other requests", async () => {
    for (const host of ['evil.example', `evil.example:${port}`, `localhost.evil.example:${port}`]) {
      expect(await requestWithHost(node.url, 'POST', host, CHAIN_ID_CALL), host).to.deep.equal({
        status: 403,
        type: 'text/plain; charset=utf-8',
        text: 'invalid host specified\n',
      });
    }
    const health = await requestWithHost(`${node.url}/health`, 'GET', 'evil.example');
    expect(health).to.deep.equal({ status: 403, type: 'text/plain; charset=utf-8', text: 'invalid host specified\n' });
  });

  it('serves localhost and IP addresses, with or without a port', async () => {
    for (const host of [`localhost:${port}`, 'localhost', `LocalHost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
      const answer = await requestWithHost(node.url, 'POST', host, CHAIN_ID_CALL);
      expect(answer.status, host).to.equal(200);
      expect(JSON.parse(answer.text), host).to.deep.equal({ jsonrpc: '2.0', id: 1, result: '0xae3f2' });
    }
    expect((await requestWithHost(`${node.url}/health`, 'GET', `localhost:${port}`)).status).to.equal(200);
  });

  it('checks the Host of WebSocket upgrades likewise', async () => {
    expect(await refusedUpgrade(node.wsUrl, { host: 'evil.example' })).to.deep.equal({
      status: 403,
      text: 'invalid host specified\n',
    });
    const client = await WsClient.connect(node.wsUrl, { host: `localhost:${new URL(node.wsUrl).port}` });
    try {
      expect((await client.call('eth_chainId')).result).to.equal('0xae3f2');
    } finally {
      client.close();
    }
  });

  it('takes the names of vhosts, or any with "*"', async () => {
    const named = await startTestNode({ config: { evm: { vhosts: ['rpc.example'] } } });
    try {
      expect((await requestWithHost(named.url, 'POST', 'RPC.example:443', CHAIN_ID_CALL)).status).to.equal(200);
      expect((await requestWithHost(named.url, 'POST', 'localhost', CHAIN_ID_CALL)).status).to.equal(403);
    } finally {
      await named.stop();
    }
    const any = await startTestNode({ config: { evm: { vhosts: ['*'] } } });
    try {
      expect((await requestWithHost(any.url, 'POST', 'evil.example', CHAIN_ID_CALL)).status).to.equal(200);
    } finally {
      await any.stop();
    }
  });

  it('serves any Host on a node without hosted keys, as public nodes behind load balancers need', async () => {
    const keyless = await startTestNode({ config: { plugins: { 'hosted-keys': { dev_accounts: false } } } });
    try {
      const answer = await requestWithHost(keyless.url, 'POST', 'rpc.public.example', CHAIN_ID_CALL);
      expect(answer.status).to.equal(200);
      expect(JSON.parse(answer.text).result).to.equal('0xae3f2');
      const client = await WsClient.connect(keyless.wsUrl, { host: 'rpc.public.example' });
      client.close();
    } finally {
      await keyless.stop();
    }
  });
});

describe('safe signing: hosted keys on a non-loopback listen_address', () => {
  it('refuses to start on 0.0.0.0 unless allow_insecure_unlock is set', async () => {
    expect(await refusalOf({ config: { evm: { listen_address: '0.0.0.0' } } })).to.equal(
      'plugin "hosted-keys" failed during setup: this node holds hosted keys and [evm] listen_address "0.0.0.0" ' +
        'is not a loopback address: anyone who reaches its HTTP or WebSocket port could sign with them. ' +
        'Listen on 127.0.0.1, switch the keys off with [node] disable_tags = ["hosted-key"], or set ' +
        '[evm] allow_insecure_unlock = true to accept the risk.',
    );
    const node = await startTestNode({ config: { evm: { listen_address: '0.0.0.0', allow_insecure_unlock: true } } });
    try {
      expect((await rpc(node.url, 'eth_sign', [SIGNER, MESSAGE])).result).to.be.a('string');
    } finally {
      await node.stop();
    }
  });

  it('starts on 0.0.0.0 without the flag when the node holds no keys', async () => {
    const node = await startTestNode({
      config: { evm: { listen_address: '0.0.0.0' }, node: { disable_tags: ['hosted-key'] } },
    });
    await node.stop();
  });
});

describe('safe signing: the start-up warning about open origins', () => {
  const warningsOf = (node: TestNode) =>
    node.logs.filter((line) => line.level === 40 && line.plugin === 'hosted-keys').map((line) => line.msg);

  it('names cors_origins and ws_origins when either lets every page in while keystores are loaded', async () => {
    const folder = homeWithKeyring({ 'key.json': keystoreOf(Wallet.createRandom(), 'horse') });
    try {
      for (const [evm, keys] of [
        [{}, 'cors_origins and ws_origins allow'],
        [{ cors_origins: ['https://app.example'] }, 'ws_origins allows'],
        [{ cors_origins: ['https://app.example'], ws_origins: ['https://app.example'] }, undefined],
      ] as const) {
        const node = await startTestNode({ home: folder, env: { KEYRING_PASSPHRASE: 'horse' }, config: { evm } });
        await node.stop();
        expect(warningsOf(node), JSON.stringify(evm)).to.deep.equal(
          keys === undefined
            ? []
            : [
                'any web page a browser opens can call this node, which holds keystores, ' +
                  `while [evm] ${keys} every origin ("*"): list only the origins you trust`,
              ],
        );
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
