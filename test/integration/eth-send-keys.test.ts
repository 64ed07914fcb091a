import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import {
  JsonRpcProvider,
  Transaction,
  Wallet,
  concat,
  encodeRlp,
  getAddress,
  getBytes,
  getCreateAddress,
  hexlify,
  keccak256,
  randomBytes,
  toBeArray,
  verifyMessage,
} from 'ethers';
import { createPublicClient, createWalletClient, defineChain, http, type Address } from 'viem';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { CHAIN_ID, GWEI, devWallet, lower, nextBlocks, quantity, waitForReceipt } from '../support/chain-kit.js';
import { homeWithKeyring, keystoreOf } from '../support/keyring.js';
import { expectValidResult } from '../support/openrpc.js';
import { rpc } from '../support/rpc-client.js';
import { refusalOf } from '../support/startup.js';

/** A fresh address to send to. */
const someone = () => lower(getAddress(hexlify(randomBytes(20))));
const devAddress = (index: number) => lower(devWallet(index).address);
/** The suggested legacy price on a quiet local chain: the 1 gwei base fee x 110/100 (decisions.md D4). */
const QUIET_GAS_PRICE = (GWEI * 110n) / 100n;
const MAX_UINT256 = `0x${'f'.repeat(64)}`;

/** The result of a call that must succeed. */
async function resultOf(url: string, method: string, params: unknown[]): Promise<any> {
  const answer = await rpc(url, method, params);
  expect(answer.error, `${method}: ${JSON.stringify(answer.error)}`).to.equal(undefined);
  return answer.result;
}

/** The error of a call that must fail. */
async function errorOf(url: string, method: string, params: unknown[]): Promise<{ code: number; message: string }> {
  const answer = await rpc(url, method, params);
  expect(answer.result, `${method} answered ${JSON.stringify(answer.result)}`).to.equal(undefined);
  return answer.error;
}

describe('hosted keys: eth_accounts, eth_sign, eth_signTransaction, eth_sendTransaction on a local node', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode();
  });
  after(() => node.stop());

  it('lists the ten dev accounts in eth_accounts, in mnemonic order', async () => {
    const accounts = await resultOf(node.url, 'eth_accounts', []);
    expectValidResult('eth_accounts', accounts);
    expect(accounts).to.deep.equal(Array.from({ length: 10 }, (_, index) => devAddress(index)));
  });

  it('signs the EIP-191 hash in eth_sign: r, s and v 27/28, as a wallet signs the message', async () => {
    for (const message of ['0xdeadbeef', '0x', hexlify(randomBytes(100))]) {
      const signature: string = await resultOf(node.url, 'eth_sign', [devAddress(0), message]);
      expectValidResult('eth_sign', signature);
      expect(verifyMessage(getBytes(message), signature)).to.equal(devWallet(0).address);
      expect(signature.slice(-2)).to.be.oneOf(['1b', '1c']);
      // Both sign deterministically (RFC 6979) with low s: the bytes are the same.
      expect(signature).to.equal(await devWallet(0).signMessage(getBytes(message)));
    }
  });

  it('signs a legacy transaction in eth_signTransaction as a wallet would, and broadcasts nothing', async () => {
    const to = someone();
    const fields = { to, value: 12_345n, gasLimit: 30_000n, gasPrice: 3n * GWEI, nonce: 0, data: '0x1234' };
    const result = await resultOf(node.url, 'eth_signTransaction', [
      {
        from: devAddress(1),
        to,
        value: quantity(fields.value),
        gas: quantity(fields.gasLimit),
        gasPrice: quantity(fields.gasPrice),
        nonce: '0x0',
        input: fields.data,
      },
    ]);
    expectValidResult('eth_signTransaction', result);
    expect(result.raw).to.equal(await devWallet(1).signTransaction({ ...fields, type: 0, chainId: CHAIN_ID }));
    const decoded = Transaction.from(result.raw);
    expect(decoded.from).to.equal(devWallet(1).address);
    expect(result.tx).to.deep.equal({
      from: devAddress(1),
      gas: '0x7530',
      gasPrice: quantity(3n * GWEI),
      hash: decoded.hash,
      input: '0x1234',
      nonce: '0x0',
      to,
      value: '0x3039',
      type: '0x0',
      chainId: quantity(CHAIN_ID),
      v: quantity(CHAIN_ID * 2n + 35n + BigInt(decoded.signature!.yParity)),
      r: quantity(BigInt(decoded.signature!.r)),
      s: quantity(BigInt(decoded.signature!.s)),
    });

    await nextBlocks(node.node.chain, 2);
    expect(node.node.chain.pool.size).to.equal(0);
    expect(await resultOf(node.url, 'eth_getTransactionCount', [devAddress(1), 'pending'])).to.equal('0x0');
    expect(await resultOf(node.url, 'eth_getTransactionReceipt', [decoded.hash])).to.equal(null);
  });

  it('signs an EIP-1559 transaction when the fee-market fields are given, as geth', async () => {
    const to = someone();
    const fields = { to, value: 1n, gasLimit: 21_000n, maxFeePerGas: 5n * GWEI, maxPriorityFeePerGas: 2n * GWEI };
    const result = await resultOf(node.url, 'eth_signTransaction', [
      {
        from: devAddress(1),
        to,
        value: '0x1',
        gas: '0x5208',
        maxFeePerGas: quantity(fields.maxFeePerGas),
        maxPriorityFeePerGas: quantity(fields.maxPriorityFeePerGas),
        nonce: '0x7',
      },
    ]);
    expectValidResult('eth_signTransaction', result);
    expect(result.raw).to.equal(
      await devWallet(1).signTransaction({ ...fields, nonce: 7, type: 2, chainId: CHAIN_ID, accessList: [] }),
    );
    expect(result.tx).to.include({ type: '0x2', nonce: '0x7', maxFeePerGas: quantity(5n * GWEI), from: devAddress(1) });
    expect(result.tx.hash).to.equal(Transaction.from(result.raw).hash);
  });

  it("refuses eth_signTransaction without gas, a fee or a nonce, in geth's words", async () => {
    const complete = { from: devAddress(1), to: someone(), gas: '0x5208', gasPrice: '0x3b9aca00', nonce: '0x0' };
    const without = (field: string) => Object.fromEntries(Object.entries(complete).filter(([key]) => key !== field));
    expect(await errorOf(node.url, 'eth_signTransaction', [without('gas')])).to.deep.equal({
      code: -32000,
      message: 'gas not specified',
    });
    expect(await errorOf(node.url, 'eth_signTransaction', [without('gasPrice')])).to.deep.equal({
      code: -32000,
      message: 'missing gasPrice or maxFeePerGas/maxPriorityFeePerGas',
    });
    expect(
      await errorOf(node.url, 'eth_signTransaction', [{ ...without('gasPrice'), maxFeePerGas: '0x3b9aca00' }]),
    ).to.deep.equal({ code: -32000, message: 'missing gasPrice or maxFeePerGas/maxPriorityFeePerGas' });
    expect(await errorOf(node.url, 'eth_signTransaction', [without('nonce')])).to.deep.equal({
      code: -32000,
      message: 'nonce not specified',
    });
  });

  it('fills the defaults in eth_sendTransaction and signs a legacy transaction at the suggested price', async () => {
    const to = someone();
    const hash = await resultOf(node.url, 'eth_sendTransaction', [{ from: devAddress(2), to, value: '0x2a' }]);
    expectValidResult('eth_sendTransaction', hash);
    const receipt = await waitForReceipt(node.url, hash);
    expect(receipt).to.include({
      status: '0x1',
      type: '0x0',
      from: devAddress(2),
      to,
      gasUsed: '0x5208',
      effectiveGasPrice: quantity(QUIET_GAS_PRICE),
    });
    expect(await resultOf(node.url, 'eth_gasPrice', [])).to.equal(quantity(QUIET_GAS_PRICE));
    const tx = await resultOf(node.url, 'eth_getTransactionByHash', [hash]);
    expect(tx).to.include({ nonce: '0x0', gas: '0x5208', gasPrice: quantity(QUIET_GAS_PRICE), value: '0x2a' });
    expect(tx.chainId).to.equal(quantity(CHAIN_ID));
    expect(await resultOf(node.url, 'eth_getBalance', [to, 'latest'])).to.equal('0x2a');
  });

  it('takes the pending nonce: concurrent sends from one account get consecutive nonces', async () => {
    const sender = devAddress(6);
    const hashes: string[] = await Promise.all(
      [1, 2, 3, 4].map((value) =>
        resultOf(node.url, 'eth_sendTransaction', [{ from: sender, to: someone(), value: quantity(value) }]),
      ),
    );
    const receipts = await Promise.all(hashes.map((hash) => waitForReceipt(node.url, hash)));
    expect(receipts.map((receipt) => receipt.status)).to.deep.equal(['0x1', '0x1', '0x1', '0x1']);
    const nonces = await Promise.all(
      hashes.map(async (hash) => Number((await resultOf(node.url, 'eth_getTransactionByHash', [hash])).nonce)),
    );
    expect([...nonces].sort()).to.deep.equal([0, 1, 2, 3]);
    expect(await resultOf(node.url, 'eth_getTransactionCount', [sender, 'latest'])).to.equal('0x4');
  });

  it('deploys a contract from eth_sendTransaction without "to", with gas by estimate', async () => {
    const sender = devAddress(7);
    // Init code returning the one-byte runtime code 0x00: MSTORE8(0, 0), RETURN(0, 1).
    const initCode = '0x600060005360016000f3';
    const hash = await resultOf(node.url, 'eth_sendTransaction', [{ from: sender, input: initCode }]);
    const receipt = await waitForReceipt(node.url, hash);
    expect(receipt.status).to.equal('0x1');
    expect(receipt.contractAddress).to.equal(lower(getCreateAddress({ from: sender, nonce: 0 })));
    expect(await resultOf(node.url, 'eth_getCode', [receipt.contractAddress, 'latest'])).to.equal('0x00');
  });

  it("signs init code past EIP-3860's limit as geth does, and eth_sendTransaction gets the pool's refusal", async () => {
    const unestimated = { from: devAddress(8), input: `0x${'00'.repeat(49_153)}`, nonce: '0x0' };
    const deployment = { ...unestimated, gas: '0x100000' };
    const signed = await resultOf(node.url, 'eth_signTransaction', [{ ...deployment, gasPrice: quantity(GWEI) }]);
    expect(Transaction.from(signed.raw).data).to.equal(deployment.input);
    expect(await errorOf(node.url, 'eth_sendTransaction', [deployment])).to.deep.equal({
      code: -32003,
      message: 'max initcode size exceeded: code size 49153, limit 49152',
      data: { code: 21, codespace: 'sdk' },
    });
    // Without gas, the estimate refuses it first, as geth's does.
    expect(await errorOf(node.url, 'eth_sendTransaction', [unestimated])).to.deep.equal({
      code: -32000,
      message: 'failed with 10000000 gas: max initcode size exceeded: code size 49153 limit 49152',
    });
  });

  it('serves ethers JsonRpcSigner.sendTransaction', async () => {
    const provider = new JsonRpcProvider(node.url, Number(CHAIN_ID), { staticNetwork: true, pollingInterval: 100 });
    try {
      const signer = await provider.getSigner(devWallet(3).address);
      const to = someone();
      const response = await signer.sendTransaction({ to, value: 7n });
      const receipt = await response.wait();
      expect(receipt?.status).to.equal(1);
      expect(receipt?.from).to.equal(devWallet(3).address);
      expect(response.type).to.equal(0);
      expect(await provider.getBalance(to)).to.equal(7n);
    } finally {
      provider.destroy();
    }
  });

  it('serves a viem wallet client with a JSON-RPC account', async () => {
    const local = defineChain({
      id: Number(CHAIN_ID),
      name: 'evmnode local',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [node.url] } },
    });
    const wallet = createWalletClient({
      account: devWallet(4).address as Address,
      chain: local,
      transport: http(node.url),
    });
    const to = someone() as Address;
    const hash = await wallet.sendTransaction({ to, value: 9n });
    const receipt = await createPublicClient({ chain: local, transport: http(node.url) }).waitForTransactionReceipt({
      hash,
      pollingInterval: 50,
    });
    expect(receipt.status).to.equal('success');
    expect(receipt.type).to.equal('legacy');
    expect(receipt.from).to.equal(devAddress(4));
  });

  it('answers eth_fillTransaction with the unsigned transaction and geth fee-market defaults', async () => {
    const sender = devAddress(5);
    const to = someone();
    const result = await resultOf(node.url, 'eth_fillTransaction', [{ from: sender, to, value: '0x5' }]);
    expectValidResult('eth_fillTransaction', result);
    // Tip: 1 gwei on a quiet chain; fee cap: the tip plus twice the 1 gwei base fee.
    const unsigned = [toBeArray(CHAIN_ID), '0x', toBeArray(GWEI), toBeArray(3n * GWEI), toBeArray(21_000), to, '0x05'];
    const raw = concat(['0x02', encodeRlp([...unsigned, '0x', [], '0x', '0x', '0x'])]);
    expect(result.raw).to.equal(raw);
    expect(result.tx).to.deep.equal({
      from: sender,
      gas: '0x5208',
      gasPrice: quantity(3n * GWEI),
      maxFeePerGas: quantity(3n * GWEI),
      maxPriorityFeePerGas: quantity(GWEI),
      hash: keccak256(raw),
      input: '0x',
      nonce: '0x0',
      to,
      value: '0x5',
      type: '0x2',
      accessList: [],
      chainId: quantity(CHAIN_ID),
      v: '0x0',
      r: '0x0',
      s: '0x0',
      yParity: '0x0',
    });
    expect(node.node.chain.pool.size).to.equal(0);

    const legacy = await resultOf(node.url, 'eth_fillTransaction', [{ from: sender, to, gasPrice: '0x77359400' }]);
    expectValidResult('eth_fillTransaction', legacy);
    expect(legacy.tx).to.include({ type: '0x0', gasPrice: '0x77359400', gas: '0x5208', value: '0x0' });
    expect(legacy.tx).to.not.have.property('chainId');

    // An access list rides on the fee-market transaction; a legacy one drops it, as geth does.
    const accessList = [{ address: someone(), storageKeys: [`0x${'00'.repeat(31)}01`] }];
    const listed = await resultOf(node.url, 'eth_fillTransaction', [{ from: sender, to, accessList }]);
    expect(listed.tx.accessList).to.deep.equal(accessList);
    expect(listed.tx.gas).to.equal(await resultOf(node.url, 'eth_estimateGas', [{ from: sender, to, accessList }]));
    expect(Number(listed.tx.gas)).to.be.at.least(21_000 + 2_400 + 1_900);
    const priced = await resultOf(node.url, 'eth_fillTransaction', [
      { from: sender, to, accessList, gasPrice: '0x77359400' },
    ]);
    expect(priced.tx).to.not.have.property('accessList');
    expect(priced.tx.gas).to.equal('0x5208');
  });

  it('refuses what geth refuses while filling, with -32000', async () => {
    const from = devAddress(8);
    const cases: [Record<string, unknown>, string][] = [
      [
        { from, to: someone(), gasPrice: '0x1', maxFeePerGas: '0x2' },
        'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified',
      ],
      [
        { from, to: someone(), maxFeePerGas: '0x1', maxPriorityFeePerGas: '0x2' },
        'maxFeePerGas (0x1) < maxPriorityFeePerGas (0x2)',
      ],
      [{ from }, 'contract creation without any data provided'],
      [{ from, to: someone(), chainId: '0x1' }, "chainId does not match node's (have=1, want=713714)"],
      [
        {
          from,
          to: someone(),
          authorizationList: [{ chainId: '0x0', address: someone(), nonce: '0x0', yParity: '0x0', r: '0x1', s: '0x1' }],
        },
        'authorization lists are not signed by the node: sign EIP-7702 transactions in the client and send them with eth_sendRawTransaction',
      ],
      [
        { from, to: someone(), data: '0x01', input: '0x02' },
        'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data',
      ],
      // No account could pay it, and no transaction of it can be built.
      [{ from, to: someone(), gas: '0x5208', gasPrice: MAX_UINT256 }, 'gas * gasPrice exceeds 2^256-1'],
    ];
    for (const [request, message] of cases) {
      for (const method of ['eth_sendTransaction', 'eth_fillTransaction']) {
        expect(await errorOf(node.url, method, [request]), `${method} ${JSON.stringify(request)}`).to.deep.equal({
          code: -32000,
          message,
        });
      }
    }
    const unpayable = { from, to: someone(), gas: '0x5208', nonce: '0x0' };
    expect(await errorOf(node.url, 'eth_signTransaction', [{ ...unpayable, gasPrice: MAX_UINT256 }])).to.deep.equal({
      code: -32000,
      message: 'gas * gasPrice exceeds 2^256-1',
    });
    const feeMarket = { ...unpayable, maxFeePerGas: MAX_UINT256, maxPriorityFeePerGas: '0x1' };
    expect(await errorOf(node.url, 'eth_signTransaction', [feeMarket])).to.deep.equal({
      code: -32000,
      message: 'gas * maxFeePerGas exceeds 2^256-1',
    });
    expect(node.node.chain.pool.size).to.equal(0);
  });

  it("refuses malformed parameters with geth's -32602 wording", async () => {
    expect(await errorOf(node.url, 'eth_sign', [devAddress(0)])).to.deep.equal({
      code: -32602,
      message: 'missing value for required argument 1',
    });
    expect(await errorOf(node.url, 'eth_sign', ['0x12', '0x00'])).to.deep.equal({
      code: -32602,
      message: 'invalid argument 0: hex string has length 2, want 40 for common.Address',
    });
    expect(await errorOf(node.url, 'eth_sign', [devAddress(0), 'hello'])).to.deep.equal({
      code: -32602,
      message:
        'invalid argument 1: json: cannot unmarshal hex string without 0x prefix into Go value of type hexutil.Bytes',
    });
    expect(await errorOf(node.url, 'eth_sendTransaction', [{ from: devAddress(0), gas: '21000' }])).to.deep.equal({
      code: -32602,
      message:
        'invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go struct field TransactionArgs.gas of type hexutil.Uint64',
    });
    expect(await errorOf(node.url, 'eth_signTransaction', [])).to.deep.equal({
      code: -32602,
      message: 'missing value for required argument 0',
    });
    expect(await errorOf(node.url, 'eth_accounts', [1])).to.deep.equal({
      code: -32602,
      message: 'too many arguments, want at most 0',
    });
  });

  it('answers the hosted-key refusals for an address the node holds no key of', async () => {
    const stranger = someone();
    const transaction = { from: stranger, to: someone(), gas: '0x5208', gasPrice: '0x3b9aca00', nonce: '0x0' };
    expect(await errorOf(node.url, 'eth_sendTransaction', [transaction])).to.deep.equal({
      code: -32000,
      message: 'from address does not have hosted key',
    });
    expect(await errorOf(node.url, 'eth_signTransaction', [transaction])).to.deep.equal({
      code: -32000,
      message: 'from address does not have hosted key',
    });
    expect(await errorOf(node.url, 'eth_sign', [stranger, '0x00'])).to.deep.equal({
      code: -32000,
      message: 'address does not have hosted key',
    });
  });
});

describe('hosted keys: eth_sendTransaction with [evm] slow', () => {
  it('answers once the transaction is committed', async () => {
    const node = await startTestNode({ config: { evm: { slow: true } } });
    try {
      const hash = await resultOf(node.url, 'eth_sendTransaction', [{ from: devAddress(0), to: someone() }]);
      expect((await resultOf(node.url, 'eth_getTransactionReceipt', [hash]))?.status).to.equal('0x1');
    } finally {
      await node.stop();
    }
  });
});

describe('hosted keys: keystores in <home>/keyring', () => {
  const homes: string[] = [];
  const home = (files: Record<string, string>) => {
    const folder = homeWithKeyring(files);
    homes.push(folder);
    return folder;
  };
  after(() => {
    for (const folder of homes) rmSync(folder, { recursive: true, force: true });
  });

  it('loads keystores with the passphrase from the environment, after the dev accounts', async () => {
    const first = Wallet.createRandom();
    const second = Wallet.createRandom();
    const node = await startTestNode({
      // geth names its keystores without an extension.
      home: home({
        [`UTC--2025-01-01T00-00-00.000000000Z--${first.address.slice(2).toLowerCase()}`]: keystoreOf(first, 'horse'),
        'second.json': keystoreOf(second, 'horse'),
      }),
      env: { KEYRING_PASSPHRASE: 'horse' },
    });
    try {
      const accounts: string[] = await resultOf(node.url, 'eth_accounts', []);
      expect(accounts.slice(0, 10)).to.deep.equal(Array.from({ length: 10 }, (_, index) => devAddress(index)));
      expect(accounts.slice(10)).to.have.members([lower(first.address), lower(second.address)]);
      const signature = await resultOf(node.url, 'eth_sign', [lower(second.address), '0x68656c6c6f']);
      expect(verifyMessage('hello', signature)).to.equal(second.address);
      expect(node.logs.some((line) => line.msg === 'hosted keys loaded')).to.equal(true);
    } finally {
      await node.stop();
    }
  });

  it('reads the passphrase from passphrase_file, and holds no dev accounts off the local network', async () => {
    const keyholder = Wallet.createRandom();
    const folder = home({ 'key.json': keystoreOf(keyholder, 'battery staple') });
    const passphraseFile = path.join(folder, 'passphrase.txt');
    writeFileSync(passphraseFile, 'battery staple\n');
    const node = await startTestNode({
      home: folder,
      config: { node: { network: 'testnet' }, plugins: { 'hosted-keys': { passphrase_file: passphraseFile } } },
    });
    try {
      expect(await resultOf(node.url, 'eth_accounts', [])).to.deep.equal([lower(keyholder.address)]);
      const result = await resultOf(node.url, 'eth_signTransaction', [
        { from: lower(keyholder.address), to: someone(), gas: '0x5208', gasPrice: '0xba43b7400', nonce: '0x0' },
      ]);
      expect(Transaction.from(result.raw).from).to.equal(keyholder.address);
      expect(Transaction.from(result.raw).chainId).to.equal(1328n);
    } finally {
      await node.stop();
    }
  });

  it('refuses to start, naming the keystore, when the passphrase does not decrypt it', async () => {
    const folder = home({ 'key.json': keystoreOf(Wallet.createRandom(), 'right') });
    const message = await refusalOf({ home: folder, env: { KEYRING_PASSPHRASE: 'wrong' } });
    expect(message).to.equal(
      `plugin "hosted-keys" failed during setup: the passphrase does not decrypt the keystore ${path.join(folder, 'keyring', 'key.json')}: ` +
        'give the right one through [plugins.hosted-keys] passphrase_file or passphrase_env, or remove the file.',
    );
  });

  it('refuses to start when keystores have no passphrase, or a file is no keystore', async () => {
    const locked = home({ 'key.json': keystoreOf(Wallet.createRandom(), 'right') });
    expect(await refusalOf({ home: locked })).to.equal(
      `plugin "hosted-keys" failed during setup: ${path.join(locked, 'keyring')} holds keystores but no passphrase was given: ` +
        'name a file holding it in [plugins.hosted-keys] passphrase_file, or set the environment variable KEYRING_PASSPHRASE.',
    );
    const stray = home({ 'notes.txt': 'not a keystore' });
    const message = await refusalOf({ home: stray, env: { KEYRING_PASSPHRASE: 'x' } });
    expect(message).to.match(
      new RegExp(
        `^plugin "hosted-keys" failed during setup: ${path.join(stray, 'keyring', 'notes.txt')} is not a Web3 Secret Storage \\(version 3\\) keystore`,
      ),
    );
  });
});

describe('hosted keys: a node without them', () => {
  for (const [label, options] of [
    ['without the hosted-keys plugin', { plugins: ['eth-query', 'eth-send'] }],
    ['with the hosted-key tag disabled', { config: { node: { disable_tags: ['hosted-key'] } } }],
    ['with dev_accounts = false', { config: { plugins: { 'hosted-keys': { dev_accounts: false } } } }],
  ] as const) {
    it(`answers eth_accounts with [] and refuses to sign, ${label}`, async () => {
      const node = await startTestNode(options);
      try {
        expect(await resultOf(node.url, 'eth_accounts', [])).to.deep.equal([]);
        const transaction = { from: devAddress(0), to: someone(), value: '0x1' };
        expect(await errorOf(node.url, 'eth_sendTransaction', [transaction])).to.deep.equal({
          code: -32000,
          message: 'from address does not have hosted key',
        });
        expect(await errorOf(node.url, 'eth_signTransaction', [transaction])).to.deep.equal({
          code: -32000,
          message: 'from address does not have hosted key',
        });
        expect(await errorOf(node.url, 'eth_sign', [devAddress(0), '0xdeadbeef'])).to.deep.equal({
          code: -32000,
          message: 'address does not have hosted key',
        });
        // Filling needs no key.
        const filled = await resultOf(node.url, 'eth_fillTransaction', [transaction]);
        expect(filled.tx).to.include({ from: devAddress(0), nonce: '0x0', gas: '0x5208', type: '0x2' });
        expect(node.node.chain.pool.size).to.equal(0);
      } finally {
        await node.stop();
      }
    });
  }
});
