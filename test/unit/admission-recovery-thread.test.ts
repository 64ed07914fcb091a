import { expect } from 'chai';
import { getBytes, hexlify, SigningKey, Transaction, Wallet } from 'ethers';
import {
  ADMISSION_RECOVERY_SLOT_BYTES,
  ADMISSION_RECOVERY_SLOTS,
  AdmissionRecoveryThread,
} from '@evmnode/core/internal';
import { devWallet, SECP256K1_N, sign, signEachType, withSignature } from '../support/chain-kit.js';

/** The 64-byte public key ethereumjs keeps for a wallet: uncompressed, without its 0x04 prefix. */
const publicKeyOf = (wallet: Wallet | ReturnType<typeof devWallet>) =>
  getBytes(SigningKey.computePublicKey(wallet.privateKey, false)).subarray(1);

describe('AdmissionRecoveryThread', function () {
  this.timeout(20_000);
  let thread: AdmissionRecoveryThread;
  let failures: Error[];
  beforeEach(() => {
    failures = [];
    thread = new AdmissionRecoveryThread(713714n, (error) => failures.push(error));
  });
  afterEach(async () => {
    await thread.stop();
    expect(failures).to.deep.equal([]);
  });

  /** Hands `raw` to the worker, which must take it. */
  function handed(raw: string): Promise<Uint8Array | undefined> {
    const publicKey = thread.publicKeyOf(getBytes(raw));
    expect(publicKey, raw).to.be.instanceOf(Promise);
    return publicKey!;
  }

  it("gives the signer's public key of each transaction type the chain takes", async () => {
    const wallet = devWallet(0);
    const raws = await signEachType(wallet, 0, Wallet.createRandom().address, devWallet(1));
    const keys = await Promise.all(raws.map(handed));
    for (const key of keys) expect(key).to.deep.equal(publicKeyOf(wallet));
    expect(thread.handedOver).to.equal(4);
  });

  it('takes as many transactions at once as it has slots, answers each with its own signer, and goes on after the ring wraps', async () => {
    const wallets = Array.from({ length: 8 }, (_, index) => devWallet(index));
    const raws = await Promise.all(
      Array.from({ length: ADMISSION_RECOVERY_SLOTS + 10 }, (_, index) =>
        sign(wallets[index % wallets.length]!, { to: Wallet.createRandom().address, nonce: index, value: 1n }),
      ),
    );
    for (let round = 0; round < 3; round++) {
      const inHand = raws.slice(0, ADMISSION_RECOVERY_SLOTS).map(handed);
      // Past the ring's size, transactions are refused at once: their senders are recovered by the caller.
      expect(raws.slice(ADMISSION_RECOVERY_SLOTS).map((raw) => thread.publicKeyOf(getBytes(raw)))).to.deep.equal(
        Array(10).fill(undefined),
      );
      const keys = await Promise.all(inHand);
      keys.forEach((key, index) =>
        expect(key, `round ${round}, #${index}`).to.deep.equal(publicKeyOf(wallets[index % 8]!)),
      );
    }
    expect(thread.handedOver).to.equal(3 * ADMISSION_RECOVERY_SLOTS);
  });

  it('leaves a transaction larger than a slot to the caller', async () => {
    const data = hexlify(new Uint8Array(ADMISSION_RECOVERY_SLOT_BYTES));
    const large = await sign(devWallet(0), { to: Wallet.createRandom().address, nonce: 0, data, gasLimit: 100_000n });
    expect(getBytes(large).length).to.be.greaterThan(ADMISSION_RECOVERY_SLOT_BYTES);
    expect(thread.publicKeyOf(getBytes(large))).to.equal(undefined);
    expect(thread.handedOver).to.equal(0);
  });

  it('answers undefined for a transaction whose signature recovers no sender, or that does not decode', async () => {
    const valid = await sign(devWallet(0), { to: Wallet.createRandom().address, nonce: 0, value: 1n });
    const { s, yParity } = Transaction.from(valid).signature!;
    const forged = [
      withSignature(valid, { r: 5n }),
      withSignature(valid, { s: 0n }),
      // Non-canonical: s above n/2, which ethereumjs refuses as geth does.
      withSignature(valid, { s: SECP256K1_N - BigInt(s), yParity: BigInt(1 - yParity) }),
      '0x02c180',
    ];
    expect(await Promise.all(forged.map(handed))).to.deep.equal([undefined, undefined, undefined, undefined]);
    // The ring goes on with the next.
    expect(await handed(valid)).to.deep.equal(publicKeyOf(devWallet(0)));
  });

  it('answers undefined for what is in its hands when stopped, and starts a new worker for the next', async () => {
    const raw = await sign(devWallet(0), { to: Wallet.createRandom().address, nonce: 0 });
    const inHand = Array.from({ length: 50 }, () => handed(raw));
    // Answers are collected between turns of the event loop: none has been yet.
    await thread.stop();
    expect(await Promise.all(inHand)).to.deep.equal(Array(50).fill(undefined));
    expect(await handed(raw)).to.deep.equal(publicKeyOf(devWallet(0)));
  });
});
