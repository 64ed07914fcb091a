import { expect } from 'chai';
import { RLP } from '@ethereumjs/rlp';
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

  it('hashes each envelope as ethereumjs does by serialising it again', async () => {
    const wallet = Wallet.createRandom();
    const options = fastTxOptions(evmCommon(713715n));
    const shared = { chainId: 713715, nonce: 7, gasLimit: 90_000, to: wallet.address, value: 5, data: '0x1234' };
    const authorization = await wallet.authorize({ address: wallet.address, nonce: 8, chainId: 713715 });
    const envelopes = [
      { type: 0, gasPrice: 10 },
      {
        type: 1,
        gasPrice: 10,
        accessList: [{ address: wallet.address, storageKeys: [`0x${'01'.padStart(64, '0')}`] }],
      },
      { type: 2, maxFeePerGas: 10, maxPriorityFeePerGas: 2 },
      { type: 4, maxFeePerGas: 10, maxPriorityFeePerGas: 2, authorizationList: [authorization] },
    ];
    for (const envelope of envelopes) {
      const raw = Buffer.from(
        (await wallet.signTransaction(Transaction.from({ ...shared, ...envelope }))).slice(2),
        'hex',
      );
      const plain = createTxFromRLP(raw, { ...options, freeze: false }); // hashes its serialisation
      expect(bytesToHex(decodeSignedTransaction(raw, options).hash()), `type ${envelope.type}`).to.equal(
        bytesToHex(plain.hash()),
      );
    }
  });

  it('refuses encodings other than the canonical one, whose hash would differ', async () => {
    const wallet = Wallet.createRandom();
    const options = fastTxOptions(evmCommon(713715n));
    const signed = await wallet.signTransaction(
      Transaction.from({ type: 2, chainId: 713715, nonce: 7, gasLimit: 21_000, maxFeePerGas: 10, to: wallet.address }),
    );
    const raw = Buffer.from(signed.slice(2), 'hex');
    const fields = RLP.decode(raw.subarray(1)) as Uint8Array[];
    const body = RLP.encode(fields);
    expect(body[0]).to.equal(0xf8); // a list of 56 to 255 bytes: one length byte follows the prefix
    const noncanonical = {
      'a length with a leading zero': [2, 0xf9, 0, ...body.subarray(1)],
      'an integer with a leading zero': [2, ...RLP.encode(fields.with(1, Uint8Array.of(0, 7)))],
      'bytes after the transaction': [...raw, 0],
    };
    for (const [name, bytes] of Object.entries(noncanonical)) {
      expect(() => decodeSignedTransaction(Uint8Array.from(bytes), options), name).to.throw();
    }
  });
});
