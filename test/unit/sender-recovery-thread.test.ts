import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { getBytes, SigningKey, Transaction, Wallet } from 'ethers';
import { wrapEvmTransaction } from '@evmnode/core';
import { SenderRecoveryThread } from '@evmnode/core/internal';
import { CHAIN_ID, devWallet, sign } from '../support/chain-kit.js';
import { nativeSigner, signNative } from '../support/native-kit.js';

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

describe('SenderRecoveryThread', function () {
  this.timeout(20_000);
  let thread: SenderRecoveryThread;
  beforeEach(() => {
    thread = new SenderRecoveryThread(CHAIN_ID);
  });
  afterEach(() => thread.stop());

  it("gives each EVM transaction of a block its raw bytes, its sender's public key and its hash, in block order", async () => {
    const raws = await Promise.all(
      [0, 1, 2].map((nonce) => sign(devWallet(nonce), { to: Wallet.createRandom().address, value: 1n, nonce })),
    );
    const wrapped = raws.map((raw) => wrapEvmTransaction(getBytes(raw)));
    const recovered = await thread.recover(wrapped.map(base64));
    expect(recovered).to.have.length(3);
    expect(await thread.recover([])).to.deep.equal([]);
    recovered.forEach((transaction, index) => {
      const expected = Transaction.from(raws[index]);
      const publicKey = SigningKey.computePublicKey(devWallet(index).privateKey, false);
      expect(transaction).to.deep.equal({
        kind: 'evm',
        raw: getBytes(raws[index]!),
        // Uncompressed, without its 0x04 prefix, as ethereumjs keeps it.
        senderPublicKey: getBytes(publicKey).subarray(1),
        hash: getBytes(expected.hash!),
        // The native transaction's hash, as CometBFT names a transaction: SHA-256 of its bytes.
        nativeHash: new Uint8Array(createHash('sha256').update(wrapped[index]!).digest()),
      });
    });
  });

  it('leaves native transactions whole and names what is wrong with an EVM one that does not decode', async () => {
    const signer = await nativeSigner(devWallet(0).privateKey);
    const native = await signNative(signer, { messages: [], sequence: 0n, accountNumber: 0n });
    const otherChain = await devWallet(0).signTransaction({
      chainId: 1n,
      to: Wallet.createRandom().address,
      nonce: 0,
      gasLimit: 21_000n,
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
    });
    const [first, second, third] = await thread.recover([
      base64(native),
      base64(wrapEvmTransaction(getBytes(otherChain))),
      base64(wrapEvmTransaction(Uint8Array.of(0x02, 0xc1, 0x80))),
    ]);
    expect(first).to.deep.equal({ kind: 'native', bytes: native });
    expect(second).to.have.property('kind', 'invalid');
    expect((second as { reason: string }).reason).to.match(/chain ID/i);
    expect(third).to.have.property('kind', 'invalid');
  });

  it('fails the blocks in its hands when stopped, and starts a new worker for the next', async () => {
    const raw = await sign(devWallet(0), { to: Wallet.createRandom().address, nonce: 0 });
    const block = [base64(wrapEvmTransaction(getBytes(raw)))];
    const inHand = thread.recover(block);
    await thread.stop();
    let failure: unknown;
    await inHand.catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(Error);
    const [next] = await thread.recover(block);
    expect(next).to.have.property('kind', 'evm');
  });
});
