import { createHash } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { DirectSecp256k1Wallet, type EncodeObject } from '@cosmjs/proto-signing';
import { BroadcastTxError, SigningStargateClient, type StdFee } from '@cosmjs/stargate';
import { Comet38Client, WebsocketClient, type comet38 } from '@cosmjs/tendermint-rpc';
import { WebSocket } from 'ws';
import { bech32 } from '@scure/base';
import { expect } from 'chai';
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { QueryAccountRequest } from 'cosmjs-types/cosmos/auth/v1beta1/query';
import {
  QueryAllBalancesRequest,
  QueryAllBalancesResponse,
  QueryBalanceRequest,
} from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { getBytes, Wallet } from 'ethers';
import { devAccounts, wrapEvmTransaction } from '@evmnode/core';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { devWallet, GWEI, nextBlocks, sign, untilHeight } from '../support/chain-kit.js';
import { withPeakRss, withRetainedHeap } from '../support/load-checks.js';
import { post, rpc } from '../support/rpc-client.js';
import { refusalOf } from '../support/startup.js';

const FEE: StdFee = { amount: [{ denom: 'usei', amount: '4000' }], gas: '200000' };
const WEI_PER_USEI = 10n ** 12n;
const CHAIN_ID = 'sei-chain';
const DEV_KEYS = devAccounts(10).map(({ privateKey }) => getBytes(privateKey));

/** The bech32 address with the same 20 bytes as an EVM address: where funds for it land while unassociated. */
function castAddress(evmAddress: string): string {
  return bech32.encode('sei', bech32.toWords(getBytes(evmAddress)));
}

/** SHA-256 of the transaction bytes, as CometBFT shows hashes. */
function txHashOf(tx: Uint8Array): string {
  return createHash('sha256').update(tx).digest('hex').toUpperCase();
}

interface Signer {
  readonly address: string;
  /** The compressed public key. */
  readonly pubkey: Uint8Array;
  readonly client: SigningStargateClient;
}

async function signerOf(node: TestNode, devIndex: number): Promise<Signer> {
  const wallet = await DirectSecp256k1Wallet.fromKey(DEV_KEYS[devIndex]!, 'sei');
  const [account] = await wallet.getAccounts();
  const { address, pubkey } = account!;
  const client = await SigningStargateClient.connectWithSigner(node.nativeUrl, wallet, {
    broadcastPollIntervalMs: 100,
  });
  return { address, pubkey, client };
}

function sendMessage(from: string, to: string, denom: string, amount: string): EncodeObject {
  return {
    typeUrl: '/cosmos.bank.v1beta1.MsgSend',
    value: { fromAddress: from, toAddress: to, amount: [{ denom, amount }] },
  };
}

/** A JSON-RPC call to the gateway, as cosmjs sends it. */
async function gateway(node: TestNode, method: string, params: unknown = {}): Promise<any> {
  const { text } = await post(node.nativeUrl, JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }));
  return JSON.parse(text);
}

async function evmBalance(node: TestNode, address: string): Promise<bigint> {
  return BigInt((await rpc(node.url, 'eth_getBalance', [address, 'latest'])).result);
}

describe('native gateway', function () {
  let node: TestNode;

  before(async () => {
    node = await startTestNode({ plugins: ['eth-query', 'native-gateway'] });
    // cosmjs refuses query answers at height 0, as a Cosmos SDK chain gives before its first block.
    await untilHeight(node.node.chain, 1);
  });

  after(() => node.stop());

  it('reports CometBFT 0.38 and the native chain ID in status', async () => {
    const { result } = await gateway(node, 'status');
    expect(result.node_info.version).to.equal('0.38.0');
    expect(result.node_info.network).to.equal(CHAIN_ID);
    expect(result.sync_info.catching_up).to.equal(false);
    const head = node.node.chain.head();
    expect(Number(result.sync_info.latest_block_height)).to.be.within(head.height, head.height + 1);
    expect(result.sync_info.latest_block_height).to.match(/^\d+$/);
    expect(result.sync_info.earliest_block_height).to.equal('1');
    expect(result.sync_info.latest_block_hash).to.match(/^[0-9A-F]{64}$/);
    expect(result.validator_info.address).to.equal(node.node.chain.proposer.slice(2).toUpperCase());
  });

  it('serves the URI form of status over GET', async () => {
    const response = await fetch(`${node.nativeUrl}/status`);
    const body = (await response.json()) as any;
    expect(response.status).to.equal(200);
    expect(body.id).to.equal(-1);
    expect(body.result.node_info.network).to.equal(CHAIN_ID);
  });

  it('answers a request target URL cannot read with 400 and an upgrade to one with 404, and keeps serving', async () => {
    const { port } = new URL(node.nativeUrl);
    const exchange = (head: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.write(head));
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
    const get = await exchange('GET //a:99999/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(get).to.match(/^HTTP\/1\.1 400 /);
    expect(get).to.include('"data":"malformed request target"');
    const upgrade = await exchange('GET http://[/ HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n');
    expect(upgrade).to.match(/^HTTP\/1\.1 404 Not Found\r\n/);
    expect((await gateway(node, 'status')).result.node_info.network).to.equal(CHAIN_ID);
  });

  it('sends usei with sendTokens to the cast address of an EVM address, which eth_getBalance shows in wei', async () => {
    const { address, client } = await signerOf(node, 0);
    const recipientEvm = Wallet.createRandom().address;
    const recipient = castAddress(recipientEvm);
    const before = BigInt((await client.getBalance(address, 'usei')).amount);

    const result = await client.sendTokens(address, recipient, [{ denom: 'usei', amount: '12345' }], FEE, 'memo');

    expect(result.code).to.equal(0);
    expect(await evmBalance(node, recipientEvm)).to.equal(12345n * WEI_PER_USEI);
    expect(await client.getBalance(recipient, 'usei')).to.deep.equal({ denom: 'usei', amount: '12345' });
    expect(BigInt((await client.getBalance(address, 'usei')).amount)).to.equal(before - 12345n - 4000n);
    client.disconnect();
  });

  it('sends another denomination and lists every balance with getAllBalances', async () => {
    const { address, client } = await signerOf(node, 1);
    const recipient = castAddress(Wallet.createRandom().address);

    const result = await client.sendTokens(address, recipient, [{ denom: 'utest', amount: '250' }], FEE, '');

    expect(result.code).to.equal(0);
    expect(await client.getAllBalances(recipient)).to.deep.equal([{ denom: 'utest', amount: '250' }]);
    expect(await client.getBalance(address, 'utest')).to.deep.equal({ denom: 'utest', amount: '999750' });
    client.disconnect();
  });

  it('returns the account number and a sequence that each transaction increments', async () => {
    const { address, pubkey, client } = await signerOf(node, 2);
    const before = await client.getAccount(address);
    expect(before).to.deep.include({ address, accountNumber: 2n, sequence: 0 });

    await client.sendTokens(
      address,
      castAddress(Wallet.createRandom().address),
      [{ denom: 'usei', amount: '1' }],
      FEE,
      '',
    );

    const after = await client.getAccount(address);
    expect(after).to.deep.include({ address, accountNumber: 2n, sequence: 1 });
    // The first transaction shows the account's key.
    expect(after!.pubkey).to.deep.equal({
      type: 'tendermint/PubKeySecp256k1',
      value: Buffer.from(pubkey).toString('base64'),
    });
    expect(await client.getSequence(address)).to.deep.equal({ accountNumber: 2n, sequence: 1 });
    client.disconnect();
  });

  it('answers getAccount of an address without an account with null (code 22, NotFound)', async () => {
    const { client } = await signerOf(node, 3);
    const unknown = castAddress(Wallet.createRandom().address);
    expect(await client.getAccount(unknown)).to.equal(null);
    const { result } = await gateway(node, 'abci_query', {
      path: '/cosmos.auth.v1beta1.Query/Account',
      data: Buffer.from(QueryAccountRequest.encode({ address: unknown }).finish()).toString('hex'),
    });
    expect(result.response).to.deep.include({
      code: 22,
      codespace: 'sdk',
      log: `rpc error: code = NotFound desc = account ${unknown} not found: key not found`,
      height: String(node.node.chain.head().height),
    });
    client.disconnect();
  });

  it('pages AllBalances as the Cosmos SDK pages its store', async () => {
    const { address } = await signerOf(node, 8);
    const allBalances = async (pagination: object) => {
      const data = QueryAllBalancesRequest.encode(
        QueryAllBalancesRequest.fromPartial({ address, pagination }),
      ).finish();
      const { result } = await gateway(node, 'abci_query', {
        path: '/cosmos.bank.v1beta1.Query/AllBalances',
        data: Buffer.from(data).toString('hex'),
      });
      return QueryAllBalancesResponse.decode(Buffer.from(result.response.value, 'base64'));
    };
    const usei = { denom: 'usei', amount: '10000000000' };
    const utest = { denom: 'utest', amount: '1000000' };
    const utestKey = new TextEncoder().encode('utest');

    expect(await allBalances({})).to.deep.equal({
      balances: [usei, utest],
      pagination: { nextKey: new Uint8Array(), total: 2n },
    });
    expect(await allBalances({ limit: 1n })).to.deep.equal({
      balances: [usei],
      pagination: { nextKey: utestKey, total: 0n },
    });
    expect(await allBalances({ key: utestKey, limit: 1n })).to.deep.equal({
      balances: [utest],
      pagination: { nextKey: new Uint8Array(), total: 0n },
    });
    expect(await allBalances({ offset: 1n, countTotal: true })).to.deep.equal({
      balances: [utest],
      pagination: { nextKey: new Uint8Array(), total: 2n },
    });
  });

  it('serves batches, positional params and notifications as CometBFT does', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 'a', method: 'tx', params: ['CD'.repeat(32)] },
      { jsonrpc: '2.0', method: 'status' },
      // A null id is none, as CometBFT's decoder reads it: a notification too.
      { jsonrpc: '2.0', id: null, method: 'health' },
      { jsonrpc: '2.0', id: 2, method: 'nope' },
      [{ jsonrpc: '2.0', id: 3, method: 'status' }],
    ];
    const { status, text } = await post(node.nativeUrl, JSON.stringify(batch));
    expect(status).to.equal(200);
    expect(JSON.parse(text)).to.deep.equal([
      {
        jsonrpc: '2.0',
        id: 'a',
        error: { code: -32603, message: 'Internal error', data: `tx (${'CD'.repeat(32)}) not found` },
      },
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } },
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request', data: 'a request must be a JSON object' },
      },
    ]);
    const tooLarge = await post(
      node.nativeUrl,
      JSON.stringify({ id: 1, method: 'status', params: ' '.repeat(1_000_000) }),
    );
    expect(tooLarge.status).to.equal(400);
    expect(JSON.parse(tooLarge.text).error).to.deep.equal({
      code: -32600,
      message: 'Invalid Request',
      data: 'error reading request body: http: request body too large',
    });
    const unparsable = await post(node.nativeUrl, '{');
    expect(unparsable.status).to.equal(500);
    expect(JSON.parse(unparsable.text).error).to.deep.include({ code: -32700, message: 'Parse error' });
    const tooDeep = await post(
      node.nativeUrl,
      `{"jsonrpc":"2.0","id":1,"method":"block","params":{"height":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`,
    );
    expect(tooDeep.status).to.equal(500);
    expect(JSON.parse(tooDeep.text).error).to.deep.equal({
      code: -32700,
      message: 'Parse error',
      data: 'error unmarshaling request: exceeded max depth',
    });
  });

  it('finds a committed transaction by tx and tx_search, with its code, height and transfer events', async () => {
    const { address, client } = await signerOf(node, 4);
    const recipient = castAddress(Wallet.createRandom().address);
    const sent = await client.sendTokens(address, recipient, [{ denom: 'usei', amount: '777' }], FEE, '');

    const found = await client.getTx(sent.transactionHash);
    expect(found).to.deep.include({ hash: sent.transactionHash, code: 0, height: sent.height, txIndex: sent.txIndex });
    const transfers = found!.events
      .filter(({ type }) => type === 'transfer')
      .map(({ attributes }) => Object.fromEntries(attributes.map(({ key, value }) => [key, value])));
    expect(transfers).to.deep.include({ recipient, sender: address, amount: '777usei' });

    const byHex = await gateway(node, 'tx', { hash: sent.transactionHash });
    const byBase64 = await gateway(node, 'tx', { hash: Buffer.from(sent.transactionHash, 'hex').toString('base64') });
    expect(byBase64.result).to.deep.equal(byHex.result);
    expect(byHex.result).to.deep.include({
      hash: sent.transactionHash,
      height: String(sent.height),
      index: sent.txIndex,
    });
    expect(byHex.result.tx_result).to.deep.include({ code: 0, codespace: '', gas_wanted: '200000' });
    expect(byHex.result.tx_result.events).to.deep.include({
      type: 'transfer',
      attributes: [
        { key: 'recipient', value: recipient, index: true },
        { key: 'sender', value: address, index: true },
        { key: 'amount', value: '777usei', index: true },
      ],
    });

    const search = await gateway(node, 'tx_search', { query: `tx.hash='${sent.transactionHash}'` });
    expect(search.result.total_count).to.equal('1');
    expect(search.result.txs).to.deep.equal([byHex.result]);
    const viaGet = (await (await fetch(`${node.nativeUrl}/tx?hash=0x${sent.transactionHash}`)).json()) as any;
    expect(viaGet.result).to.deep.equal(byHex.result);
    client.disconnect();
  });

  it('waits for the block in broadcast_tx_commit', async () => {
    const { address, client } = await signerOf(node, 5);
    const recipient = castAddress(Wallet.createRandom().address);
    const signed = TxRaw.encode(
      await client.sign(address, [sendMessage(address, recipient, 'usei', '5')], FEE, ''),
    ).finish();

    const { result } = await gateway(node, 'broadcast_tx_commit', { tx: Buffer.from(signed).toString('base64') });

    expect(result.hash).to.equal(txHashOf(signed));
    expect(result.check_tx).to.deep.include({ code: 0, log: '', codespace: '' });
    expect(result.tx_result).to.deep.include({ code: 0, codespace: '' });
    expect(Number(result.height)).to.be.greaterThan(0);
    expect((await gateway(node, 'tx', { hash: result.hash })).result.height).to.equal(result.height);
    client.disconnect();
  });

  it('answers a hash it does not know, an unknown method and an unsupported query as CometBFT does', async () => {
    const hash = 'AB'.repeat(32);
    expect((await gateway(node, 'tx', { hash })).error).to.deep.equal({
      code: -32603,
      message: 'Internal error',
      data: `tx (${hash}) not found`,
    });
    expect(await gateway(node, 'tx_search', { query: `tx.hash='${hash}'` })).to.deep.include({
      result: { txs: [], total_count: '0' },
    });
    expect((await gateway(node, 'tx_search', { query: 'tx.height=5' })).error).to.deep.include({
      code: -32603,
      message: 'Internal error',
    });
    expect((await gateway(node, 'block_results', { height: '1' })).error).to.deep.equal({
      code: -32601,
      message: 'Method not found',
    });
    expect((await gateway(node, 'broadcast_tx_sync', { tx: '%%%' })).error).to.deep.include({
      code: -32602,
      message: 'Invalid params',
    });
  });

  it('answers abci_query for an unknown path and a bad address as a Cosmos SDK node', async () => {
    const unknownPath = await gateway(node, 'abci_query', {
      path: '/cosmos.staking.v1beta1.Query/Validators',
      data: '',
    });
    expect(unknownPath.result.response).to.deep.include({
      code: 6,
      codespace: 'sdk',
      log: 'unknown query path: unknown request',
      height: '0',
    });

    const request = QueryBalanceRequest.encode({
      address: 'cosmos1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqnrql8a',
      denom: 'usei',
    }).finish();
    const badAddress = await gateway(node, 'abci_query', {
      path: '/cosmos.bank.v1beta1.Query/Balance',
      data: Buffer.from(request).toString('hex'),
    });
    expect(badAddress.result.response).to.deep.include({
      code: 18,
      codespace: 'sdk',
      log: 'rpc error: code = InvalidArgument desc = invalid address: invalid Bech32 prefix; expected sei, got cosmos: invalid request',
    });
  });

  describe('refuses bad transactions with the Cosmos SDK code and log, applying nothing', function () {
    let signer: Signer;
    let accountNumber: bigint;
    let sequence: number;
    const recipientEvm = Wallet.createRandom().address;
    const recipient = castAddress(recipientEvm);

    before(async () => {
      signer = await signerOf(node, 6);
      ({ accountNumber, sequence } = await signer.client.getSequence(signer.address));
    });

    after(() => signer.client.disconnect());

    const sign = (messages: EncodeObject[], fee = FEE, signerData?: { sequence?: number; chainId?: string }) =>
      signer.client
        .sign(signer.address, messages, fee, '', {
          accountNumber,
          sequence: signerData?.sequence ?? sequence,
          chainId: signerData?.chainId ?? CHAIN_ID,
        })
        .then((raw) => TxRaw.encode(raw).finish());

    const send = (denom: string, amount: string) => sendMessage(signer.address, recipient, denom, amount);

    const cases: {
      readonly name: string;
      readonly tx: () => Promise<Uint8Array>;
      readonly code: number;
      readonly log: () => string | RegExp;
    }[] = [
      {
        name: 'a bad signature',
        tx: async () => {
          const raw = TxRaw.decode(await sign([send('usei', '10')]));
          raw.signatures[0]![5]! ^= 1;
          return TxRaw.encode(raw).finish();
        },
        code: 4,
        log: () =>
          `signature verification failed; please verify account number (${accountNumber}), sequence (${sequence}) and chain-id (${CHAIN_ID}): unauthorized`,
      },
      {
        name: 'a wrong sequence',
        tx: () => sign([send('usei', '10')], FEE, { sequence: sequence + 5 }),
        code: 32,
        log: () => `account sequence mismatch, expected ${sequence}, got ${sequence + 5}: incorrect account sequence`,
      },
      {
        name: 'a signature for another chain ID',
        tx: () => sign([send('usei', '10')], FEE, { chainId: 'pacific-1' }),
        code: 4,
        log: () =>
          `signature verification failed; please verify account number (${accountNumber}), sequence (${sequence}) and chain-id (${CHAIN_ID}): unauthorized`,
      },
      {
        name: 'an unknown message type',
        tx: () =>
          sign([
            {
              typeUrl: '/cosmos.staking.v1beta1.MsgDelegate',
              value: {
                delegatorAddress: signer.address,
                validatorAddress: signer.address,
                amount: { denom: 'usei', amount: '1' },
              },
            },
          ]),
        code: 2,
        log: () => 'unable to resolve type URL /cosmos.staking.v1beta1.MsgDelegate: tx parse error',
      },
      {
        name: 'malformed protobuf',
        tx: () => Promise.resolve(Uint8Array.of(0x0a, 0xff, 0xff, 0x01)),
        code: 2,
        // The detail is the decoder's own; the Cosmos SDK's wording of Go's protobuf errors is not reproduced.
        log: () => /^[^:]+(: [^:]+)*: tx parse error$/,
      },
      // TxRaw is not signed: bytes other than the canonical ones would be the same transaction under another hash.
      {
        name: 'a signed transaction with a field TxRaw does not have',
        tx: async () => Uint8Array.from([...(await sign([send('usei', '10')])), 0x22, 0x00]),
        code: 2,
        log: () => 'errUnknownField "*tx.TxRaw": {TagNum: 4, WireType:"bytes"}: tx parse error',
      },
      {
        name: 'a signed transaction twice over, its fields out of order',
        tx: async () => {
          const bytes = await sign([send('usei', '10')]);
          return Uint8Array.from([...bytes, ...bytes]);
        },
        code: 2,
        log: () => 'txRaw must follow ADR-027, got tagNum 1 after tagNum 3: tx parse error',
      },
      {
        name: 'a signed transaction whose body length takes more bytes than it needs',
        tx: async () => {
          const { bodyBytes, authInfoBytes, signatures } = TxRaw.decode(await sign([send('usei', '10')]));
          // Field 1's length as a varint with one more byte than the shortest.
          const length = [(bodyBytes.length & 0x7f) | 0x80, ((bodyBytes.length >> 7) & 0x7f) | 0x80, 0x00];
          const rest = TxRaw.encode({ bodyBytes: new Uint8Array(), authInfoBytes, signatures }).finish();
          return Uint8Array.from([0x0a, ...length, ...bodyBytes, ...rest]);
        },
        code: 2,
        log: () => 'length prefix varint for tagNum 1 is not as short as possible, read 3, only need 2: tx parse error',
      },
      {
        name: 'a second signature for its one signer',
        tx: async () => Uint8Array.from([...(await sign([send('usei', '10')])), 0x1a, 0x00]),
        code: 4,
        log: () => 'wrong number of signers; expected 1, got 2: unauthorized',
      },
      {
        name: 'a bad denomination',
        tx: () => sign([send('BAD!', '10')]),
        code: 10,
        // MsgSend.ValidateBasic: the coins as the SDK prints them, then the code's description.
        log: () => '10BAD!: invalid coins',
      },
      {
        name: 'an amount above 2^256',
        tx: () => sign([send('usei', (2n ** 256n).toString())]),
        code: 2,
        // sdk.Int refuses more than 256 bits while the transaction decodes.
        log: () => 'integer out of range; got: 257, max: 256: tx parse error',
      },
      {
        name: 'a fee below the minimum',
        tx: () => sign([send('usei', '10')], { amount: [{ denom: 'usei', amount: '1' }], gas: '200000' }),
        code: 13,
        log: () => 'insufficient fees; got: 1usei required: 200usei: insufficient fee',
      },
    ];

    for (const { name, tx, code, log } of cases) {
      it(`refuses ${name}`, async () => {
        const senderBefore = await signer.client.getAllBalances(signer.address);
        const bytes = await tx();

        const { result } = await gateway(node, 'broadcast_tx_sync', { tx: Buffer.from(bytes).toString('base64') });

        const expectedLog = log();
        expect(result).to.deep.include({ code, data: '', codespace: 'sdk', hash: txHashOf(bytes) });
        if (typeof expectedLog === 'string') expect(result.log).to.equal(expectedLog);
        else expect(result.log).to.match(expectedLog);
        const refusal = await signer.client.broadcastTxSync(bytes).catch((error: unknown) => error);
        expect(refusal).to.be.instanceOf(BroadcastTxError);
        expect(refusal).to.deep.include({ code, codespace: 'sdk', log: result.log });
        // A block later, nothing moved.
        await nextBlocks(node.node.chain);
        expect(await signer.client.getAllBalances(signer.address)).to.deep.equal(senderBefore);
        expect(await signer.client.getSequence(signer.address)).to.deep.equal({ accountNumber, sequence });
        expect(await evmBalance(node, recipientEvm)).to.equal(0n);
      });
    }
  });
});

describe('native gateway: block', function () {
  this.timeout(60_000);
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ config: { consensus: { block_time: 1000 } } });
    await untilHeight(node.node.chain, 1);
  });
  after(() => node.stop());

  const hexOf = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`;
  const sleepMs = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();

  it('serves a block with its native transactions, then its EVM ones wrapped, as cosmjs reads it', async () => {
    const { address, client } = await signerOf(node, 5);
    const signed = await client.sign(
      address,
      [sendMessage(address, castAddress(Wallet.createRandom().address), 'usei', '5')],
      FEE,
      '',
    );
    const nativeTx = TxRaw.encode(signed).finish();
    const evmTx = await sign(devWallet(6), {
      to: Wallet.createRandom().address,
      value: 1n,
      nonce: 0,
      gasLimit: 21_000n,
      maxFeePerGas: 100n * GWEI,
      maxPriorityFeePerGas: GWEI,
    });
    // Sent just after a block, so that the next one (a second later) holds both.
    await nextBlocks(node.node.chain);
    expect(
      (await gateway(node, 'broadcast_tx_sync', { tx: Buffer.from(nativeTx).toString('base64') })).result.code,
    ).to.equal(0);
    const evmHash = (await rpc(node.url, 'eth_sendRawTransaction', [evmTx])).result;
    await nextBlocks(node.node.chain);
    const height = node.node.chain.head().height;
    const [evmBlock, parent] = await Promise.all([
      rpc(node.url, 'eth_getBlockByNumber', [`0x${height.toString(16)}`, false]),
      rpc(node.url, 'eth_getBlockByNumber', [`0x${(height - 1).toString(16)}`, false]),
    ]);
    expect(evmBlock.result.transactions).to.deep.equal([evmHash]);

    const comet = await Comet38Client.connect(node.nativeUrl);
    const { blockId, block } = await comet.block(height);
    comet.disconnect();
    const txs = [nativeTx, wrapEvmTransaction(getBytes(evmTx))];
    expect(block.txs.map(hexOf)).to.deep.equal(txs.map(hexOf));
    expect(hexOf(blockId.hash)).to.equal(evmBlock.result.hash);
    expect(block.header.height).to.equal(height);
    expect(block.header.chainId).to.equal(CHAIN_ID);
    expect(hexOf(block.header.lastBlockId!.hash)).to.equal(parent.result.hash);
    expect(hexOf(block.header.appHash)).to.equal(parent.result.stateRoot);
    expect(hexOf(block.header.dataHash)).to.equal(hexOf(sha256(Buffer.concat(txs.map(sha256)))));
    expect(block.header.time.getTime()).to.equal(Number(node.node.chain.head().header.timeMs));
    client.disconnect();
  });

  it('pushes each committed block to a /websocket subscription to new blocks, as cosmjs reads it', async () => {
    const comet = Comet38Client.create(new WebsocketClient(node.nativeUrl.replace(/^http/, 'ws')));
    const events: comet38.NewBlockEvent[] = [];
    const subscription = comet.subscribeNewBlock().subscribe({ next: (event) => events.push(event) });
    const deadline = Date.now() + 10_000;
    while (events.length < 3 && Date.now() < deadline) await sleepMs(20);
    subscription.unsubscribe();
    comet.disconnect();
    const heights = events.map((event) => event.header.height);
    expect(heights.slice(0, 3)).to.deep.equal([heights[0], heights[0]! + 1, heights[0]! + 2]);
    const block = (await gateway(node, 'block', { height: String(heights[1]) })).result.block;
    expect(hexOf(events[1]!.header.appHash)).to.equal(`0x${(block.header.app_hash as string).toLowerCase()}`);
    expect(events[1]!.header.time.getTime()).to.equal(Date.parse(block.header.time));
  });

  it('refuses other event queries and a second subscription, and serves other methods over /websocket', async () => {
    const socket = new WebSocket(`${node.nativeUrl.replace(/^http/, 'ws')}/websocket`);
    const answers: any[] = [];
    socket.on('message', (data: Buffer) => answers.push(JSON.parse(data.toString())));
    await new Promise((resolve) => socket.once('open', resolve));
    const ask = async (request: object) => {
      const count = answers.length;
      socket.send(JSON.stringify({ jsonrpc: '2.0', ...request }));
      while (answers.length === count) await sleepMs(5);
      return answers.find(
        (answer) => answer.id === (request as { id: unknown }).id && answer.result?.query === undefined,
      );
    };
    expect((await ask({ id: 1, method: 'subscribe', params: { query: "tm.event='Tx'" } })).error.data).to.equal(
      `this node's subscribe takes only the query tm.event='NewBlock', got "tm.event='Tx'"`,
    );
    expect(await ask({ id: 2, method: 'subscribe', params: { query: "tm.event='NewBlock'" } })).to.deep.equal({
      jsonrpc: '2.0',
      id: 2,
      result: {},
    });
    expect((await ask({ id: 3, method: 'subscribe', params: ["tm.event='NewBlock'"] })).error.data).to.equal(
      'already subscribed',
    );
    expect((await ask({ id: 4, method: 'status' })).result.node_info.network).to.equal(CHAIN_ID);
    expect(await ask({ id: 5, method: 'unsubscribe_all' })).to.deep.equal({ jsonrpc: '2.0', id: 5, result: {} });
    expect((await ask({ id: 6, method: 'unsubscribe', params: { query: "tm.event='NewBlock'" } })).error.data).to.equal(
      'subscription not found',
    );
    socket.close();
  });

  it('takes one request per /websocket message and serves no notification, as CometBFT', async () => {
    const socket = new WebSocket(`${node.nativeUrl.replace(/^http/, 'ws')}/websocket`);
    const answers: any[] = [];
    socket.on('message', (data: Buffer) => answers.push(JSON.parse(data.toString())));
    await new Promise((resolve) => socket.once('open', resolve));
    /** Sends each text and waits for the answer to the last, which must be the only one. */
    const answerTo = async (...texts: string[]) => {
      const count = answers.length;
      for (const text of texts) socket.send(text);
      while (answers.length === count) await sleepMs(5);
      await sleepMs(50);
      expect(answers.length, texts.join(' ')).to.equal(count + 1);
      return answers.at(-1);
    };
    const unmarshalError = (kind: string) => ({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32700,
        message: 'Parse error',
        data: `error unmarshaling request: json: cannot unmarshal ${kind} into Go value of type types.RPCRequest`,
      },
    });
    expect(await answerTo('[{"jsonrpc":"2.0","id":1,"method":"status"}]')).to.deep.equal(unmarshalError('array'));
    expect(await answerTo('5')).to.deep.equal(unmarshalError('number'));
    expect(await answerTo('"status"')).to.deep.equal(unmarshalError('string'));
    const subscribe = (id: unknown) =>
      JSON.stringify({
        jsonrpc: '2.0',
        ...(id === undefined ? {} : { id }),
        method: 'subscribe',
        params: ["tm.event='NewBlock'"],
      });
    // Neither a notification (no id, or a null one) nor a request with an object for its id subscribes.
    expect(await answerTo(subscribe(undefined), subscribe(null), subscribe({ a: 1 }))).to.deep.equal({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request', data: 'id must be a string or a number' },
    });
    // So the first subscription is this one (its events then come with its id too).
    socket.send(subscribe('first'));
    while (answers.every((answer) => answer.id !== 'first')) await sleepMs(5);
    expect(answers.find((answer) => answer.id === 'first')).to.deep.equal({ jsonrpc: '2.0', id: 'first', result: {} });
    socket.close();
  });

  it('disconnects a /websocket client that sends without reading rather than buffering its answers', async () => {
    const socket = new WebSocket(`${node.nativeUrl.replace(/^http/, 'ws')}/websocket`);
    await new Promise((resolve) => socket.once('open', resolve));
    const closed = new Promise<number>((resolve) => socket.once('close', resolve));
    // The client stops reading, then asks for far more than the 16 MiB of answers it may leave unread.
    (socket as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
    const request = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'status' });
    for (let sent = 0; sent < 30_000; sent++) socket.send(request);
    await sleepMs(3_000);
    (socket as unknown as { _socket: { resume(): void } })._socket.resume();
    expect(await closed).to.equal(1006);
    expect((await gateway(node, 'status')).result.node_info.network).to.equal(CHAIN_ID);
  });

  it('serves the latest block without a height, and refuses heights below 1 or above the head as CometBFT does', async () => {
    const latest = await gateway(node, 'block');
    expect(Number(latest.result.block.header.height)).to.be.at.least(node.node.chain.head().height - 1);
    expect((await gateway(node, 'block', { height: '0' })).error).to.deep.equal({
      code: -32603,
      message: 'Internal error',
      data: 'height must be greater than 0, but got 0',
    });
    const beyond = node.node.chain.head().height + 1000;
    expect((await gateway(node, 'block', { height: String(beyond) })).error.data).to.match(
      new RegExp(`^height ${beyond} must be less than or equal to the current blockchain height \\d+$`),
    );
    const viaGet = (await (await fetch(`${node.nativeUrl}/block?height=1`)).json()) as any;
    expect(viaGet.result.block.header.height).to.equal('1');
  });
});

describe('native gateway broadcast_tx_commit timeout', function () {
  it("fails with CometBFT's words when no block includes the transaction in time", async () => {
    const node = await startTestNode({
      plugins: ['native-gateway'],
      config: { consensus: { block_time: '1h' }, plugins: { 'native-gateway': { broadcast_commit_timeout: 300 } } },
    });
    try {
      const { address, client } = await signerOf(node, 7);
      const signed = TxRaw.encode(
        await client.sign(address, [sendMessage(address, address, 'usei', '1')], FEE, '', {
          accountNumber: 7n,
          sequence: 0,
          chainId: CHAIN_ID,
        }),
      ).finish();
      const answer = await gateway(node, 'broadcast_tx_commit', { tx: Buffer.from(signed).toString('base64') });
      expect(answer.error).to.deep.equal({
        code: -32603,
        message: 'Internal error',
        data: 'timed out waiting for tx to be included in a block',
      });
      client.disconnect();
    } finally {
      await node.stop();
    }
  });
});

describe('native gateway: requests received in part', function () {
  it('answers 503 and closes the bodies that have waited longest once the requests the node receives pass its bound', async () => {
    // Room for two of these bodies, shared with the EVM ports.
    const node = await startTestNode({
      plugins: ['native-gateway'],
      config: { evm: { max_unfinished_request_bytes: 2_000_000, max_request_body_bytes: 1_000_000 } },
    });
    try {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'status' }).padEnd(900_000, ' ');
      const head = `POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
      const sockets: { socket: Socket; received: () => string; closed: Promise<unknown> }[] = [];
      for (let index = 0; index < 3; index++) {
        const socket = await rawConnection(node);
        let received = '';
        socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
        const closed = new Promise((resolve) => socket.once('close', resolve));
        socket.write(head + body.slice(0, -1));
        sockets.push({ socket, received: () => received, closed });
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
      // The third body passes the bound: the first is refused, unread.
      const [first, ...others] = sockets;
      await first!.closed;
      const refusal = first!.received();
      expect(refusal).to.match(/^HTTP\/1\.1 503 /);
      // The body, sent chunked as CometBFT's answers are.
      expect(JSON.parse(refusal.slice(refusal.indexOf('{'), refusal.lastIndexOf('}') + 1))).to.deep.equal({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32603, message: 'Internal error', data: 'server busy: too many requests being received' },
      });
      for (const { socket, received } of others) {
        socket.write(body.slice(-1));
        const deadline = Date.now() + 5000;
        while (!received().includes('"node_info"')) {
          expect(Date.now()).to.be.below(deadline);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        socket.destroy();
      }
    } finally {
      await node.stop();
    }
  });
});

describe('native gateway: its bound on a body', () => {
  it('refuses to start when one body may pass the bound on the requests received in part', async () => {
    const evm = { max_unfinished_request_bytes: 1_000_000, max_request_body_bytes: 1_000_000 };
    expect(
      await refusalOf({
        plugins: ['native-gateway'],
        config: { evm, plugins: { 'native-gateway': { max_body_bytes: 1_000_001 } } },
      }),
    ).to.equal(
      'plugin "native-gateway" failed during setup: [plugins.native-gateway] max_body_bytes (1000001) must be at most ' +
        '[evm] max_unfinished_request_bytes (1000000): a request body that large would always be refused',
    );
  });
});

/** A batch of `count` status calls. */
function statusBatch(count: number): { jsonrpc: string; id: number; method: string }[] {
  return Array.from({ length: count }, (_, id) => ({ jsonrpc: '2.0', id, method: 'status' }));
}

/** A raw connection to the gateway from `localAddress`; resolves once connected. */
function rawConnection(node: TestNode, localAddress = '127.0.0.1'): Promise<Socket> {
  const { hostname, port } = new URL(node.nativeUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), localAddress }, () => {
      // A connection the gateway refuses may be reset: that is an outcome here, not a failure.
      socket.off('error', reject).on('error', () => undefined);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Whether the gateway closes `socket` within a second (call it as soon as the socket connects). */
function closedSoon(socket: Socket): Promise<boolean> {
  return new Promise((resolve) => {
    socket.once('close', () => resolve(true));
    setTimeout(() => resolve(false), 1000);
  });
}

describe('native gateway limits: batch size, response size, unread answers, connections', function () {
  this.timeout(120_000);
  const RESPONSE_MAX_BYTES = 200_000;
  let node: TestNode;

  /** `status` from a fresh client, within a second. */
  async function expectStatusWithinASecond(target: TestNode): Promise<void> {
    const started = performance.now();
    const { result } = await gateway(target, 'status');
    expect(performance.now() - started, 'status latency (ms)').to.be.below(1000);
    expect(result.node_info.network).to.equal(CHAIN_ID);
  }

  before(async () => {
    node = await startTestNode({
      plugins: ['native-gateway'],
      config: {
        consensus: { block_time: 50 },
        evm: { batch_response_max_size: RESPONSE_MAX_BYTES },
        plugins: { 'native-gateway': { max_connections_per_ip: 20 } },
      },
    });
  });
  after(() => node.stop());

  it("refuses a batch beyond max_request_batch_size (CometBFT's 10) with CometBFT's error", async () => {
    const { status, text } = await post(node.nativeUrl, JSON.stringify(statusBatch(11)));
    expect(status).to.equal(200);
    expect(JSON.parse(text)).to.deep.equal({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: 'Invalid Request',
        data: 'batch request exceeds maximum (10) allowed number of requests',
      },
    });
    const { text: ten } = await post(node.nativeUrl, JSON.stringify(statusBatch(10)));
    expect((JSON.parse(ten) as any[]).map((answer) => answer.result.node_info.network)).to.deep.equal(
      Array(10).fill(CHAIN_ID),
    );
  });

  it('stops serving a client that pipelines requests and never reads the answers', async () => {
    const body = JSON.stringify(statusBatch(10));
    const request = `POST / HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const socket = await rawConnection(node);
    try {
      socket.pause();
      const { retainedMib } = await withRetainedHeap(async () => {
        // 20,000 batches: about 160 MB of answers if all were served.
        for (let sent = 0; sent < 20; sent++) socket.write(request.repeat(1000));
        await new Promise((resolve) => setTimeout(resolve, 3000));
      });
      // The client's unsent requests are held too. Answers queued behind unread ones held 35-65 MiB.
      expect(retainedMib, 'heap held (MiB)').to.be.below(16);
      await expectStatusWithinASecond(node);
    } finally {
      socket.destroy();
    }
  });

  describe('with no batch limit', () => {
    let unlimited: TestNode;
    before(async () => {
      unlimited = await startTestNode({
        plugins: ['native-gateway'],
        config: {
          consensus: { block_time: 50 },
          evm: { batch_response_max_size: RESPONSE_MAX_BYTES },
          plugins: { 'native-gateway': { max_request_batch_size: 0, max_connections_per_ip: 20 } },
        },
      });
    });
    after(() => unlimited.stop());

    it('stops a heavy batch at the response size cap: every call after it gets -32003', async () => {
      const { status, text } = await post(unlimited.nativeUrl, JSON.stringify(statusBatch(1000)));
      expect(status).to.equal(200);
      const answers = JSON.parse(text) as any[];
      expect(answers.map((answer) => answer.id)).to.deep.equal(statusBatch(1000).map((call) => call.id));
      const cut = answers.findIndex((answer) => answer.error !== undefined);
      const sizes = answers.slice(0, cut).map((answer) => JSON.stringify(answer).length);
      const kept = sizes.reduce((total, size) => total + size, 0);
      expect(kept).to.be.above(RESPONSE_MAX_BYTES);
      expect(kept - sizes[cut - 1]!).to.be.at.most(RESPONSE_MAX_BYTES);
      for (const answer of answers.slice(cut)) {
        expect(answer).to.deep.equal({
          jsonrpc: '2.0',
          id: answer.id,
          error: { code: -32003, message: 'response too large' },
        });
      }
    });

    it('keeps memory bounded when 16 clients send a 1 MB batch of status calls and never read', async () => {
      const call = JSON.stringify({ jsonrpc: '2.0', id: 123456, method: 'status' });
      const body = `[${Array(Math.floor(990_000 / (call.length + 1)))
        .fill(call)
        .join(',')}]`;
      const request = `POST / HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
      const sockets: Socket[] = [];
      try {
        const { peakGrowthMib } = await withPeakRss(async () => {
          for (let client = 0; client < 16; client++) {
            const socket = await rawConnection(unlimited);
            // Never read: the answers stay in the kernel's and the gateway's buffers.
            socket.pause();
            socket.write(request);
            sockets.push(socket);
          }
          // Time for every batch to be answered, as far as the unread sockets let it.
          await new Promise((resolve) => setTimeout(resolve, 3000));
        });
        expect(peakGrowthMib, 'RSS growth (MiB)').to.be.below(250);
        await expectStatusWithinASecond(unlimited);
        const height = unlimited.node.chain.head().height;
        await untilHeight(unlimited.node.chain, height + 2);
      } finally {
        for (const socket of sockets) socket.destroy();
      }
    });
  });

  it('closes connections beyond max_connections_per_ip and max_open_connections as they arrive', async () => {
    const capped = await startTestNode({
      plugins: ['native-gateway'],
      config: { plugins: { 'native-gateway': { max_open_connections: 4, max_connections_per_ip: 2 } } },
    });
    const sockets: Socket[] = [];
    try {
      const kept: Promise<boolean>[] = [];
      for (const localAddress of ['127.0.0.1', '127.0.0.1', '127.0.0.2', '127.0.0.2']) {
        const socket = await rawConnection(capped, localAddress);
        kept.push(closedSoon(socket));
        sockets.push(socket);
      }
      // A third from one address, then a fifth in all.
      const overPerAddress = closedSoon(await rawConnection(capped, '127.0.0.1'));
      const overTotal = closedSoon(await rawConnection(capped, '127.0.0.3'));
      expect(await Promise.all([...kept, overPerAddress, overTotal])).to.deep.equal([
        false,
        false,
        false,
        false,
        true,
        true,
      ]);
      // A closed connection frees its place.
      sockets.shift()!.destroy();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await gateway(capped, 'status')).result.node_info.network).to.equal(CHAIN_ID);
    } finally {
      for (const socket of sockets) socket.destroy();
      await capped.stop();
    }
  });

  it('gives one client max_client_share of the 100 subscription places, so that others still subscribe', async () => {
    // A share of 0.25: 25 of CometBFT's 100 subscription clients.
    const shared = await startTestNode({ plugins: ['native-gateway'], config: { evm: { max_client_share: 0.25 } } });
    const url = `${shared.nativeUrl.replace('http:', 'ws:')}/websocket`;
    const sockets: WebSocket[] = [];
    /** A connection from `localAddress` and the answer to its subscription to new blocks. */
    const subscribed = async (localAddress: string): Promise<[WebSocket, any]> => {
      const socket = new WebSocket(url, { localAddress });
      sockets.push(socket);
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      const answer = new Promise<any>((resolve) =>
        socket.once('message', (data: Buffer) => resolve(JSON.parse(data.toString()))),
      );
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscribe', params: ["tm.event='NewBlock'"] }));
      return [socket, await answer];
    };
    try {
      const first: WebSocket[] = [];
      for (let opened = 0; opened < 25; opened++) {
        const [socket, answer] = await subscribed('127.0.0.1');
        expect(answer).to.deep.equal({ jsonrpc: '2.0', id: 1, result: {} });
        first.push(socket);
      }
      // The 26th connection opens, but its subscription is refused.
      expect((await subscribed('127.0.0.1'))[1]).to.deep.equal({
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32603,
          message: 'Internal error',
          data: 'max_subscription_clients 100: this client holds its share (25) of them',
        },
      });
      expect((await subscribed('127.0.0.2'))[1]).to.deep.equal({ jsonrpc: '2.0', id: 1, result: {} });
      // A closed connection gives its client's place back.
      const closing = first[0]!;
      closing.close();
      await new Promise((resolve) => closing.once('close', resolve));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await subscribed('127.0.0.1'))[1]).to.deep.equal({ jsonrpc: '2.0', id: 1, result: {} });
    } finally {
      for (const socket of sockets) socket.terminate();
      await shared.stop();
    }
  });
});
