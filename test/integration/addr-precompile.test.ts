import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bech32 } from '@scure/base';
import { expect } from 'chai';
import {
  AbiCoder,
  Contract,
  getAddress,
  getBytes,
  Interface,
  JsonRpcProvider,
  Signature,
  Wallet,
  type HDNodeWallet,
} from 'ethers';
import { devAccounts } from '@evmnode/core';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { devWallet, sign, submit, waitForReceipt } from '../support/chain-kit.js';
import { rpc } from '../support/rpc-client.js';
import { temporaryDir } from '../support/temp-dirs.js';

const ADDR = '0x0000000000000000000000000000000000001004';
const addr = new Interface([
  'function getSeiAddr(address addr) view returns (string response)',
  'function getEvmAddr(string addr) view returns (address response)',
  'function associate(string v, string r, string s, string customMessage) returns (string seiAddr, address evmAddr)',
  'function associatePubKey(string pubKeyHex) returns (string seiAddr, address evmAddr)',
]);

/**
 * Runtime code that calls the precompile with its own call data (CALL, forwarding its value, or
 * STATICCALL), logs the outcome in a LOG1 (topic: 1 on success, 0 on failure; data: the return or
 * revert data) and returns that data: a transaction's receipt then shows what the precompile answered.
 */
const FORWARDER = {
  call: '365f5f37' + '5f5f365f34611004' + '5af1' + '3d5f5f3e' + '3d5fa1' + '3d5ff3',
  staticcall: '365f5f37' + '5f5f365f611004' + '5afa' + '3d5f5f3e' + '3d5fa1' + '3d5ff3',
};

/** Init code that deploys `runtime` (hex without 0x). */
function deployCode(runtime: string): string {
  const length = (runtime.length / 2).toString(16).padStart(2, '0');
  return `0x60${length}8060095f395ff3${runtime}`;
}

/** The native address of a key, derived here with OpenSSL's hashes: bech32("sei", RIPEMD160(SHA256(compressed key))). */
function nativeAddressOf(wallet: Wallet | HDNodeWallet): string {
  const sha = createHash('sha256').update(getBytes(wallet.signingKey.compressedPublicKey)).digest();
  return bech32.encode('sei', bech32.toWords(createHash('ripemd160').update(sha).digest()));
}

/** The reason in `Error(string)` revert data. */
function revertReason(data: string): string {
  expect(data.slice(0, 10), `revert data ${data}`).to.equal('0x08c379a0');
  return AbiCoder.defaultAbiCoder().decode(['string'], `0x${data.slice(10)}`)[0] as string;
}

/** Gas a transaction pays for its call data (EIP-2028), and the EIP-7623 floor for it. */
function calldataGas(data: string): { standard: bigint; floor: bigint } {
  const bytes = getBytes(data);
  const zeros = BigInt(bytes.filter((byte) => byte === 0).length);
  const nonZeros = BigInt(bytes.length) - zeros;
  return { standard: 4n * zeros + 16n * nonZeros, floor: 10n * (zeros + 4n * nonZeros) };
}

/** Gas used by a call transaction whose execution spends `execution`. */
function transactionGas(data: string, execution: bigint): bigint {
  const { standard, floor } = calldataGas(data);
  const used = 21_000n + standard + execution;
  return used > 21_000n + floor ? used : 21_000n + floor;
}

describe('addr precompile', () => {
  let node: TestNode;
  let forwarder: string;
  let staticForwarder: string;

  /** Sends a transaction from `wallet` and waits for its receipt. */
  async function send(
    wallet: Wallet | HDNodeWallet,
    fields: { to?: string; data: string; value?: bigint; gasLimit?: bigint },
  ): Promise<any> {
    const { nonce } = await node.node.chain.accountAtHead(wallet.address.toLowerCase() as `0x${string}`);
    const raw = await sign(wallet, { nonce: Number(nonce), gasLimit: 500_000n, ...fields });
    return waitForReceipt(node.url, await submit(node.url, raw));
  }

  /** Calls the precompile through a forwarder in a transaction; what it answered, from the receipt's log. */
  async function forward(
    wallet: Wallet | HDNodeWallet,
    data: string,
    options: { via?: string; value?: bigint } = {},
  ): Promise<{ ok: boolean; data: string; height: number }> {
    const receipt = await send(wallet, { to: options.via ?? forwarder, data, value: options.value ?? 0n });
    expect(receipt.status).to.equal('0x1');
    const [log] = receipt.logs;
    return { ok: BigInt(log.topics[0]) === 1n, data: log.data, height: Number(receipt.blockNumber) };
  }

  async function reverted(wallet: Wallet | HDNodeWallet, data: string, options?: { via?: string; value?: bigint }) {
    const answer = await forward(wallet, data, options);
    expect(answer.ok, `expected a revert, got ${answer.data}`).to.equal(false);
    return revertReason(answer.data);
  }

  const chainNativeAddress = (address: string, height?: number) =>
    node.node.chain.nativeAddressOf(address.toLowerCase() as `0x${string}`, height ?? node.node.chain.head().height);

  before(async () => {
    // The dev accounts funded but not associated at genesis: their first transactions associate them.
    const home = temporaryDir('addr');
    mkdirSync(path.join(home, 'config'));
    const alloc = Object.fromEntries(
      devAccounts(10).map(({ address }) => [address, { balance: (10_000n * 10n ** 18n).toString() }]),
    );
    writeFileSync(
      path.join(home, 'config', 'genesis.json'),
      JSON.stringify({ chainId: 713714, genesisTime: '2025-01-01T00:00:00.000Z', alloc }),
    );
    node = await startTestNode({ home, config: { consensus: { block_time: 100 } } });
    const deployer = devWallet(0);
    forwarder = (await send(deployer, { data: deployCode(FORWARDER.call) })).contractAddress;
    staticForwarder = (await send(deployer, { data: deployCode(FORWARDER.staticcall) })).contractAddress;
  });
  after(() => node.stop());

  it("associates a sender on its first transaction, before the transaction's execution", async () => {
    const sender = devWallet(1);
    const expected = nativeAddressOf(sender);
    expect(await chainNativeAddress(sender.address)).to.equal(undefined);

    const answer = await forward(sender, addr.encodeFunctionData('getSeiAddr', [sender.address]));
    expect(answer.ok).to.equal(true);
    expect(addr.decodeFunctionResult('getSeiAddr', answer.data)[0]).to.equal(expected);

    const chain = node.node.chain;
    expect(await chainNativeAddress(sender.address, answer.height)).to.equal(expected);
    expect(await chain.evmAddressOf(expected, answer.height)).to.equal(sender.address.toLowerCase());
    // Stored in the state: the block before has no record.
    expect(await chainNativeAddress(sender.address, answer.height - 1)).to.equal(undefined);
    expect(await chain.evmAddressOf(expected, answer.height - 1)).to.equal(undefined);
  });

  it('keeps the association of a first transaction whose execution reverts', async () => {
    const sender = devWallet(2);
    const receipt = await send(sender, { to: ADDR, data: '0xdeadbeef' });
    expect(receipt.status).to.equal('0x0');
    expect(await chainNativeAddress(sender.address)).to.equal(nativeAddressOf(sender));
  });

  it('answers getSeiAddr and getEvmAddr for the deployer, whose key gives sei15428…yfgc', async () => {
    const deployer = devWallet(0);
    expect(nativeAddressOf(deployer)).to.equal('sei15428vq2uzwhm3taey9sr9x5vm6tk78ew5cyfgc');
    const seiAddr = await forward(deployer, addr.encodeFunctionData('getSeiAddr', [deployer.address]));
    expect(addr.decodeFunctionResult('getSeiAddr', seiAddr.data)[0]).to.equal(
      'sei15428vq2uzwhm3taey9sr9x5vm6tk78ew5cyfgc',
    );
    const evmAddr = await forward(
      deployer,
      addr.encodeFunctionData('getEvmAddr', ['sei15428vq2uzwhm3taey9sr9x5vm6tk78ew5cyfgc']),
    );
    expect(addr.decodeFunctionResult('getEvmAddr', evmAddr.data)[0]).to.equal(deployer.address);
  });

  it('reverts lookups of unassociated or malformed addresses', async () => {
    const caller = devWallet(0);
    const stranger = Wallet.createRandom();
    const cast = bech32.encode('sei', bech32.toWords(getBytes(stranger.address)));
    expect(await reverted(caller, addr.encodeFunctionData('getSeiAddr', [stranger.address.toLowerCase()]))).to.equal(
      `EVM address ${getAddress(stranger.address)} is not associated`,
    );
    expect(await reverted(caller, addr.encodeFunctionData('getEvmAddr', [cast]))).to.equal(
      `sei address ${cast} is not associated`,
    );
    const cosmos = bech32.encode('cosmos', bech32.toWords(getBytes(stranger.address)));
    expect(await reverted(caller, addr.encodeFunctionData('getEvmAddr', [cosmos]))).to.equal(
      'invalid Bech32 prefix; expected sei, got cosmos',
    );
    expect(await reverted(caller, addr.encodeFunctionData('getEvmAddr', ['']))).to.equal(
      'empty address string is not allowed',
    );
  });

  it('associates the signer of a personal_sign message, once', async () => {
    const caller = devWallet(3);
    const signer = Wallet.createRandom();
    const message = 'associate my addresses';
    const signature = Signature.from(signer.signMessageSync(message));
    // personal_sign signs keccak256 of the prefixed message; the precompile adds no prefix.
    const customMessage = `\x19Ethereum Signed Message:\n${message.length}${message}`;
    const v = `0x${signature.yParity}`;
    const call = addr.encodeFunctionData('associate', [v, signature.r, signature.s, customMessage]);

    const answer = await forward(caller, call);
    expect(answer.ok, answer.data).to.equal(true);
    expect([...addr.decodeFunctionResult('associate', answer.data)]).to.deep.equal([
      nativeAddressOf(signer),
      signer.address,
    ]);
    expect(await chainNativeAddress(signer.address)).to.equal(nativeAddressOf(signer));
    expect(await chainNativeAddress(caller.address)).to.equal(nativeAddressOf(caller));

    expect(await reverted(caller, call)).to.equal(
      `address ${nativeAddressOf(signer)} is already associated with evm address ${signer.address}`,
    );
    // v is the recovery id: 27 is not one.
    const with27 = addr.encodeFunctionData('associate', ['0x1b', signature.r, signature.s, customMessage]);
    expect(await reverted(caller, with27)).to.equal('invalid transaction v, r, s values');
    expect(
      await reverted(caller, addr.encodeFunctionData('associate', ['nothex', signature.r, signature.s, ''])),
    ).to.equal("encoding/hex: invalid byte: U+006E 'n'");
  });

  it('associates a public key sent to the precompile in a transaction, for 50,000 gas', async () => {
    const caller = devWallet(4);
    const key = Wallet.createRandom();
    const data = addr.encodeFunctionData('associatePubKey', [key.signingKey.compressedPublicKey.slice(2)]);
    const receipt = await send(caller, { to: ADDR, data });
    expect(receipt.status).to.equal('0x1');
    expect(BigInt(receipt.gasUsed)).to.equal(transactionGas(data, 50_000n));
    expect(await chainNativeAddress(key.address)).to.equal(nativeAddressOf(key));
    expect(await node.node.chain.evmAddressOf(nativeAddressOf(key), Number(receipt.blockNumber))).to.equal(
      key.address.toLowerCase(),
    );

    const prefixed = addr.encodeFunctionData('associatePubKey', [Wallet.createRandom().signingKey.compressedPublicKey]);
    expect(await reverted(caller, prefixed)).to.equal("encoding/hex: invalid byte: U+0078 'x'");
  });

  it('runs out of gas below 50,000 for an association, and records nothing', async () => {
    const caller = devWallet(5);
    const key = Wallet.createRandom();
    const data = addr.encodeFunctionData('associatePubKey', [key.signingKey.compressedPublicKey.slice(2)]);
    const gasLimit = transactionGas(data, 50_000n) - 1n;
    const receipt = await send(caller, { to: ADDR, data, gasLimit });
    expect(receipt.status).to.equal('0x0');
    expect(BigInt(receipt.gasUsed)).to.equal(gasLimit);
    expect(await chainNativeAddress(key.address)).to.equal(undefined);
  });

  it('charges a lookup 1,000 gas plus 3 per byte of its arguments', async () => {
    const caller = devWallet(0);
    const bySei = addr.encodeFunctionData('getSeiAddr', [caller.address]);
    expect(BigInt((await send(caller, { to: ADDR, data: bySei })).gasUsed)).to.equal(
      transactionGas(bySei, 1_000n + 3n * 32n),
    );
    const byEvm = addr.encodeFunctionData('getEvmAddr', [nativeAddressOf(caller)]);
    // Offset, length and two words of string.
    expect(BigInt((await send(caller, { to: ADDR, data: byEvm })).gasUsed)).to.equal(
      transactionGas(byEvm, 1_000n + 3n * 128n),
    );
  });

  it('refuses associations in a static call, and answers lookups there', async () => {
    const caller = devWallet(6);
    const key = Wallet.createRandom();
    const byKey = addr.encodeFunctionData('associatePubKey', [key.signingKey.compressedPublicKey.slice(2)]);
    expect(await reverted(caller, byKey, { via: staticForwarder })).to.equal(
      'cannot call associate pub key precompile from staticcall',
    );
    const signature = Signature.from(key.signMessageSync('hello'));
    const bySignature = addr.encodeFunctionData('associate', [
      `0x${signature.yParity}`,
      signature.r,
      signature.s,
      '\x19Ethereum Signed Message:\n5hello',
    ]);
    expect(await reverted(caller, bySignature, { via: staticForwarder })).to.equal(
      'cannot call associate precompile from staticcall',
    );
    expect(await chainNativeAddress(key.address)).to.equal(undefined);

    const lookup = await forward(caller, addr.encodeFunctionData('getSeiAddr', [caller.address]), {
      via: staticForwarder,
    });
    expect(addr.decodeFunctionResult('getSeiAddr', lookup.data)[0]).to.equal(nativeAddressOf(caller));
  });

  it('answers eth_call, at any height, and keeps nothing an eth_call associates', async () => {
    const deployer = devWallet(0);
    const contract = new Contract(ADDR, addr, new JsonRpcProvider(node.url, undefined, { staticNetwork: true }));
    expect(await contract.getFunction('getSeiAddr')(deployer.address)).to.equal(nativeAddressOf(deployer));
    expect(await contract.getFunction('getEvmAddr')(nativeAddressOf(deployer))).to.equal(deployer.address);

    // At genesis the deployer had sent nothing yet.
    const atGenesis = await rpc(node.url, 'eth_call', [
      { to: ADDR, data: addr.encodeFunctionData('getSeiAddr', [deployer.address]) },
      '0x0',
    ]);
    const reason = `EVM address ${deployer.address} is not associated`;
    expect(atGenesis.error).to.deep.equal({
      code: 3,
      message: `execution reverted: ${reason}`,
      data: new Interface(['error Error(string)']).encodeErrorResult('Error', [reason]),
    });

    // eth_call runs a plain call, as the reference chain's does: an association succeeds there and is not kept.
    const key = Wallet.createRandom();
    const byKey = addr.encodeFunctionData('associatePubKey', [key.signingKey.compressedPublicKey.slice(2)]);
    const simulated = await rpc(node.url, 'eth_call', [{ to: ADDR, data: byKey }, 'latest']);
    expect([...addr.decodeFunctionResult('associatePubKey', simulated.result)]).to.deep.equal([
      nativeAddressOf(key),
      key.address,
    ]);
    expect(await chainNativeAddress(key.address)).to.equal(undefined);
    const viaStatic = await rpc(node.url, 'eth_call', [{ to: staticForwarder, data: byKey }, 'latest']);
    expect(revertReason(viaStatic.result)).to.equal('cannot call associate pub key precompile from staticcall');
  });

  it('refuses value, unknown functions and short input', async () => {
    const caller = devWallet(7);
    const lookup = addr.encodeFunctionData('getSeiAddr', [devWallet(0).address]);
    expect(await reverted(caller, lookup, { value: 1n })).to.equal('sending funds to a non-payable function');
    expect(await reverted(caller, '0xdeadbeef')).to.equal('no method with id: 0xdeadbeef');
    expect(await reverted(caller, '0x0c3c20')).to.equal('input too short to extract method ID');
    expect(await reverted(caller, addr.getFunction('getEvmAddr')!.selector)).to.equal(
      'invalid calldata encoding for addr',
    );
  });
});
