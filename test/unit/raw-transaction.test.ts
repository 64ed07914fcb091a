import { expect } from 'chai';
import { createTxFromRLP } from '@ethereumjs/tx';
import { bytesToHex } from '@ethereumjs/util';
import { Transaction, Wallet } from 'ethers';
import { decodeSignedTransaction, evmCommon, fastTxOptions } from '@evmnode/core/internal';

describe('decodeSignedTransaction', () => {
  it('decodes as ethereumjs does, frozen, and works out the sender once', async () => {
    const wallet = Wallet.createRandom();
    const signed = await wallet.signTransaction(
      Transaction.from({ type: 2, chainId: 713715, nonce: 3, gasLimit: 21_000, maxFeePerGas: 10, to: wallet.address }),
    );
    const options = fastTxOptions(evmCommon(713715n));
    const raw = Buffer.from(signed.slice(2), 'hex');

    const tx = decodeSignedTransaction(raw, options);
    const plain = createTxFromRLP(raw, options);
    expect(Object.isFrozen(tx)).to.equal(true);
    expect(bytesToHex(tx.hash())).to.equal(bytesToHex(plain.hash()));
    expect(tx.getSenderAddress().toString()).to.equal(wallet.address.toLowerCase());
    expect(tx.getSenderAddress()).to.equal(tx.getSenderAddress());
    expect(plain.getSenderAddress()).to.not.equal(plain.getSenderAddress());
    expect(tx.nonce).to.equal(3n);
  });
});
