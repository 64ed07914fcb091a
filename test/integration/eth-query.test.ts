import { expect } from 'chai';
import { JsonRpcProvider, WebSocketProvider } from 'ethers';
import { createPublicClient, http, webSocket } from 'viem';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { expectValidResult } from '../support/openrpc.js';
import { rpc } from '../support/rpc-client.js';
import { WsClient } from '../support/ws-client.js';

describe('eth-query: eth_chainId, net_version, web3_clientVersion', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode();
  });
  after(() => node.stop());

  it('answers eth_chainId with the local chain ID in hex, valid per the execution-apis schema', async () => {
    const { result } = await rpc(node.url, 'eth_chainId');
    expect(result).to.equal('0xae3f2');
    expectValidResult('eth_chainId', result);
  });

  it('answers net_version with the chain ID in decimal', async () => {
    const { result } = await rpc(node.url, 'net_version');
    expect(result).to.equal('713714');
    expectValidResult('net_version', result);
  });

  it("answers web3_clientVersion in geth's synthetic form", async () => {
    expect((await rpc(node.url, 'web3_clientVersion')).result).to.equal(
      `Geth/${process.platform}-${process.arch}/node-${process.versions.node}`,
    );
  });

  it('refuses parameters these methods do not take', async () => {
    expect((await rpc(node.url, 'eth_chainId', [1])).error).to.deep.equal({
      code: -32602,
      message: 'too many arguments, want at most 0',
    });
  });

  it('is what ethers reads over HTTP and WebSocket', async () => {
    const provider = new JsonRpcProvider(node.url, undefined, { staticNetwork: false });
    expect((await provider.getNetwork()).chainId).to.equal(713714n);
    provider.destroy();
    const wsProvider = new WebSocketProvider(node.wsUrl);
    expect((await wsProvider.getNetwork()).chainId).to.equal(713714n);
    await wsProvider.destroy();
  });

  it('is what viem reads over HTTP and WebSocket', async () => {
    expect(await createPublicClient({ transport: http(node.url) }).getChainId()).to.equal(713714);
    const transport = webSocket(node.wsUrl);
    const client = createPublicClient({ transport });
    expect(await client.getChainId()).to.equal(713714);
    (await client.transport.getRpcClient()).close();
  });

  it('serves the same answers over WebSocket', async () => {
    const client = await WsClient.connect(node.wsUrl);
    expect((await client.call('eth_chainId')).result).to.equal('0xae3f2');
    client.close();
  });

  it('follows the network profile and [node] chain_id', async () => {
    for (const [config, hex, decimal] of [
      [{ node: { network: 'testnet' } }, '0x530', '1328'],
      [{ node: { network: 'mainnet' } }, '0x531', '1329'],
      [{ node: { chain_id: 31337 } }, '0x7a69', '31337'],
    ] as const) {
      const own = await startTestNode({ config });
      try {
        expect((await rpc(own.url, 'eth_chainId')).result).to.equal(hex);
        expect((await rpc(own.url, 'net_version')).result).to.equal(decimal);
      } finally {
        await own.stop();
      }
    }
  });
});
