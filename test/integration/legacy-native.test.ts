import { bech32 } from '@scure/base';
import { expect } from 'chai';
import { getAddress, getBytes, Interface, keccak256, ripemd160, sha256, SigningKey, toUtf8Bytes, Wallet } from 'ethers';
import { devAccounts } from '@evmnode/core';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { devWallet, GWEI, sign, sleep, submit, waitForReceipt } from '../support/chain-kit.js';
import { nativeSigner, sendNative } from '../support/native-kit.js';
import { post, rpc } from '../support/rpc-client.js';

const METHODS = [
  'ext_associate',
  'ext_getNativeAddress',
  'ext_getEVMAddress',
  'ext_getNativeTx',
  'ext_getEvmTx',
  'ext_sign',
  'ext_getTransactionCount',
  'ext_getTransactionErrorByHash',
  'ext_getVMError',
];

/** The native address of a key, computed here as the Cosmos SDK does: bech32(RIPEMD160(SHA256(compressed key))). */
const nativeAddressOfKey = (privateKey: string): string =>
  bech32.encode('sei', bech32.toWords(getBytes(ripemd160(sha256(SigningKey.computePublicKey(privateKey, true))))));
const castOf = (evmAddress: string): string => bech32.encode('sei', bech32.toWords(getBytes(evmAddress)));
const invalid = (message: string) => ({ code: -32000, message });
const rejected = (message: string, code: number, codespace: string) => ({
  code: -32003,
  message,
  data: { code, codespace },
});
const ADDR_PRECOMPILE = '0x0000000000000000000000000000000000001004';
const addrAbi = new Interface(['function getSeiAddr(address addr) view returns (string)']);

/** interface.md §2.9: the key's signature over keccak256 of the message, v as the recovery id. */
function associationRequest(key: SigningKey, message: string) {
  const signature = key.sign(keccak256(toUtf8Bytes(message)));
  return { custom_message: message, r: signature.r, s: signature.s, v: `0x${signature.yParity}` };
}

describe('ext_ association, native-transaction, signing and error methods', function () {
  this.timeout(60_000);
  let node: TestNode;
  const sender = devWallet(6);
  const unassociated = Wallet.createRandom().address;
  let txHash: string;

  before(async () => {
    node = await startTestNode({ config: { evm: { enabled_legacy_ext_apis: METHODS } } });
    const raw = await sign(sender, {
      to: unassociated,
      value: 1n,
      gasLimit: 21_000n,
      maxFeePerGas: 100n * GWEI,
      maxPriorityFeePerGas: GWEI,
      nonce: 0,
      chainId: 713714n,
    });
    txHash = await submit(node.url, raw);
    await waitForReceipt(node.url, txHash);
  });
  after(() => node?.stop());

  const call = (method: string, params: unknown[]) => rpc(node.url, method, params);

  describe('ext_getNativeAddress and its alias ext_getCosmosAddress', () => {
    it('answer the bech32 address of the key a signed transaction associated', async () => {
      const expected = nativeAddressOfKey(sender.privateKey);
      for (const method of ['ext_getNativeAddress', 'ext_getCosmosAddress']) {
        expect((await call(method, [sender.address])).result, method).to.equal(expected);
      }
    });

    it('answer an unassociated address with the checksummed address in the error', async () => {
      for (const method of ['ext_getNativeAddress', 'ext_getCosmosAddress']) {
        expect((await call(method, [unassociated.toLowerCase()])).error, method).to.deep.equal(
          invalid(`failed to find native address for ${getAddress(unassociated)}`),
        );
      }
    });
  });

  describe('ext_getEVMAddress', () => {
    it('answers the associated EVM address of a native address', async () => {
      const answer = await call('ext_getEVMAddress', [nativeAddressOfKey(sender.privateKey)]);
      expect(answer.result).to.equal(sender.address.toLowerCase());
    });

    it('answers an unassociated native address with it in the error', async () => {
      const cast = castOf(unassociated);
      expect((await call('ext_getEVMAddress', [cast])).error).to.deep.equal(
        invalid(`failed to find EVM address for ${cast}`),
      );
    });

    it('answers malformed addresses with the bech32 decoder errors', async () => {
      expect((await call('ext_getEVMAddress', [''])).error).to.deep.equal(
        invalid('empty address string is not allowed'),
      );
      const cosmos = bech32.encode('cosmos', bech32.toWords(getBytes(sender.address)));
      expect((await call('ext_getEVMAddress', [cosmos])).error).to.deep.equal(
        invalid('invalid Bech32 prefix; expected sei, got cosmos'),
      );
      expect((await call('ext_getEVMAddress', ['sei1notanaddress'])).error).to.deep.equal(
        invalid('decoding bech32 failed: Unknown letter "o". Allowed: qpzry9x8gf2tvdw0s3jn54khce6mua7l'),
      );
    });
  });

  describe('ext_associate', () => {
    it('associates a fresh funded key: ext_getNativeAddress and the addr precompile then agree', async () => {
      const fresh = Wallet.createRandom();
      const funding = await sign(devWallet(9), {
        to: fresh.address,
        value: 1n,
        gasLimit: 21_000n,
        maxFeePerGas: 100n * GWEI,
        maxPriorityFeePerGas: GWEI,
        nonce: 0,
        chainId: 713714n,
      });
      await waitForReceipt(node.url, await submit(node.url, funding));
      const expected = nativeAddressOfKey(fresh.privateKey);
      expect((await call('ext_getNativeAddress', [fresh.address])).error).to.deep.equal(
        invalid(`failed to find native address for ${fresh.address}`),
      );

      const answer = await call('ext_associate', [associationRequest(fresh.signingKey, 'associate me')]);
      expect(answer).to.deep.equal({ jsonrpc: '2.0', id: 1, result: null });
      let native = await call('ext_getNativeAddress', [fresh.address]);
      for (let tries = 0; native.error !== undefined && tries < 50; tries++) {
        await sleep(200);
        native = await call('ext_getNativeAddress', [fresh.address]);
      }
      expect(native.result).to.equal(expected);
      const precompile = await call('eth_call', [
        { to: ADDR_PRECOMPILE, data: addrAbi.encodeFunctionData('getSeiAddr', [fresh.address]) },
        'latest',
      ]);
      expect(addrAbi.decodeFunctionResult('getSeiAddr', precompile.result)[0]).to.equal(expected);
      expect((await call('ext_getEVMAddress', [expected])).result).to.equal(fresh.address.toLowerCase());
    });

    it('refuses an associated key with the native check code', async () => {
      const answer = await call('ext_associate', [associationRequest(new SigningKey(sender.privateKey), 'again')]);
      expect(answer.error).to.deep.equal(rejected('account already has association set', 2, 'evm'));
    });

    it('refuses a key without funds with the native check code', async () => {
      const answer = await call('ext_associate', [associationRequest(Wallet.createRandom().signingKey, 'no funds')]);
      expect(answer.error).to.deep.equal(
        rejected('account needs to have at least 1 wei to force association', 3, 'evm'),
      );
    });

    it('refuses a signature whose v is no recovery id', async () => {
      const request = { ...associationRequest(Wallet.createRandom().signingKey, 'bad v'), v: '0x1b' };
      expect((await call('ext_associate', [request])).error).to.deep.equal(
        rejected(
          'invalid association signature: r and s must be hex of at most 32 bytes and v 0 or 1: unauthorized',
          4,
          'sdk',
        ),
      );
    });

    it('refuses a signature no key recovers from', async () => {
      const request = { custom_message: 'zero', r: '0x00', s: '0x00', v: '0x0' };
      expect((await call('ext_associate', [request])).error).to.deep.equal(
        rejected('invalid association signature: no key recovers from it: unauthorized', 4, 'sdk'),
      );
    });
  });

  describe('ext_getNativeTx, its alias ext_getCosmosTx and ext_getEvmTx', () => {
    it('map an EVM transaction to its wrapping native transaction and back', async () => {
      const nativeHash: string = (await call('ext_getNativeTx', [txHash])).result;
      expect(nativeHash).to.match(/^[0-9A-F]{64}$/);
      expect((await call('ext_getCosmosTx', [txHash])).result).to.equal(nativeHash);
      for (const form of [nativeHash, nativeHash.toLowerCase(), `0x${nativeHash.toLowerCase()}`]) {
        expect((await call('ext_getEvmTx', [form])).result, form).to.equal(txHash);
      }
    });

    it('answer an unknown EVM transaction with receipt not found', async () => {
      const unknown = `0x${'ab'.repeat(32)}`;
      for (const method of ['ext_getNativeTx', 'ext_getCosmosTx']) {
        expect((await call(method, [unknown])).error, method).to.deep.equal(invalid('receipt not found'));
      }
    });

    it('ext_getEvmTx answers malformed, unknown and native-only hashes with the reference node words', async () => {
      expect((await call('ext_getEvmTx', ['zz'])).error).to.deep.equal(
        invalid("failed to decode cosmosHash: encoding/hex: invalid byte: U+007A 'z'"),
      );
      expect((await call('ext_getEvmTx', ['abc'])).error).to.deep.equal(
        invalid('failed to decode cosmosHash: encoding/hex: odd length hex string'),
      );
      expect((await call('ext_getEvmTx', ['cd'.repeat(32)])).error).to.deep.equal(
        invalid(`tx (${'CD'.repeat(32)}) not found`),
      );
      const signer = await nativeSigner(devAccounts(8)[7]!.privateKey);
      const send = await sendNative(node.node.native, signer, [
        {
          typeUrl: '/cosmos.bank.v1beta1.MsgSend',
          value: {
            fromAddress: signer.address,
            toAddress: castOf(unassociated),
            amount: [{ denom: 'usei', amount: '1' }],
          },
        },
      ]);
      const nativeOnly = Buffer.from(send.hash).toString('hex').toUpperCase();
      expect((await call('ext_getEvmTx', [nativeOnly])).error).to.deep.equal(
        invalid('transaction is not an EVM transaction'),
      );
    });
  });

  describe('ext_sign', () => {
    it('signs like eth_sign with a hosted key', async () => {
      const wallet = devWallet(0);
      const message = '0x48656c6c6f';
      const signature = (await call('ext_sign', [wallet.address, message])).result;
      expect(signature).to.equal(await wallet.signMessage(getBytes(message)));
      expect(signature).to.equal((await call('eth_sign', [wallet.address, message])).result);
    });

    it('refuses a web page whose origin signing_origins does not list, as eth_sign does', async () => {
      const origin = 'http://evil.example';
      const body = (method: string) =>
        JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [devWallet(0).address, '0x00'] });
      const headers = { 'content-type': 'application/json', origin };
      const answer = JSON.parse((await post(node.url, body('ext_sign'), headers)).text) as {
        error: { code: number; message: string };
      };
      expect(answer.error).to.deep.equal({
        code: -32000,
        message:
          `ext_sign refused: origin ${origin} may not sign with this node's hosted keys; ` +
          'to allow it, add it to signing_origins under [evm] in app.toml',
      });
      const eth = JSON.parse((await post(node.url, body('eth_sign'), headers)).text);
      expect(eth.error.message).to.equal(answer.error.message.replace('ext_sign', 'eth_sign'));
    });

    it('answers an address without a hosted key as eth_sign does', async () => {
      expect((await call('ext_sign', [unassociated, '0x00'])).error).to.deep.equal(
        invalid('address does not have hosted key'),
      );
    });
  });

  describe('ext_getTransactionCount, ext_getTransactionErrorByHash and ext_getVMError', () => {
    it('answer exactly as their eth_ counterparts', async () => {
      const cases: [string, unknown[]][] = [
        ['getTransactionCount', [sender.address, 'latest']],
        ['getTransactionCount', [sender.address]],
        ['getTransactionCount', [sender.address, '0x0']],
        ['getTransactionErrorByHash', [txHash]],
        ['getTransactionErrorByHash', [`0x${'ab'.repeat(32)}`]],
        ['getVMError', [txHash]],
        ['getVMError', [`0x${'ab'.repeat(32)}`]],
      ];
      for (const [name, params] of cases) {
        const [ext, eth] = await Promise.all([call(`ext_${name}`, params), call(`eth_${name}`, params)]);
        expect({ result: ext.result, error: ext.error }, name).to.deep.equal({ result: eth.result, error: eth.error });
      }
      expect((await call('ext_getTransactionCount', [sender.address])).result).to.equal('0x1');
      expect((await call('ext_getTransactionErrorByHash', [txHash])).result).to.equal('');
      expect((await call('ext_getVMError', [`0x${'ab'.repeat(32)}`])).error).to.deep.equal(
        invalid('receipt not found'),
      );
    });
  });
});
