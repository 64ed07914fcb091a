import { expect } from 'chai';
import { hexlify } from 'ethers';
import { devAccounts, type NativeLayer } from '@evmnode/core';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { BLOCK_GAS_LIMIT, devWallet, nextBlocks, sign, submit, waitForReceipt } from '../support/chain-kit.js';
import { post } from '../support/rpc-client.js';
import { nativeSigner, sendNative, signNative, type NativeSigner } from '../support/native-kit.js';

const send = (from: string, to: string) => ({
  typeUrl: '/cosmos.bank.v1beta1.MsgSend',
  value: { fromAddress: from, toAddress: to, amount: [{ denom: 'usei', amount: '1' }] },
});

/** The fee a gas limit needs at the local minimum gas price (1 gwei = 1/1000 usei per gas), rounded up. */
const feeFor = (gas: bigint) => [{ denom: 'usei', amount: ((gas + 999n) / 1000n).toString() }];

/** Signs `messages` at the signer's next sequence plus `ahead` (its transactions already pooled). */
async function signedNative(
  native: NativeLayer,
  signer: NativeSigner,
  gas: bigint,
  messages = [send(signer.address, signer.address)],
  ahead = 0n,
): Promise<Uint8Array> {
  const account = (await native.account(signer.address))!;
  return signNative(signer, {
    messages,
    sequence: account.sequence + ahead,
    accountNumber: account.accountNumber,
    gas,
    fee: feeFor(gas),
  });
}

describe('transactions above the block gas limit, and blocks around big ones', function () {
  this.timeout(60_000);
  let node: TestNode;
  let native: NativeLayer;
  let signers: NativeSigner[];

  before(async () => {
    // Blocks 2.5s apart: every transaction of a test arrives before the block that follows.
    node = await startTestNode({
      plugins: ['eth-query', 'eth-send', 'native-gateway'],
      config: { consensus: { block_time: 2500 } },
    });
    native = node.node.native;
    signers = await Promise.all(devAccounts(5).map(({ privateKey }) => nativeSigner(privateKey)));
  });
  after(() => node.stop());

  /** broadcast_tx_sync on the native gateway, as Cosmos tooling sends it. */
  async function broadcast(tx: Uint8Array): Promise<any> {
    const body = {
      jsonrpc: '2.0',
      id: 1,
      method: 'broadcast_tx_sync',
      params: { tx: Buffer.from(tx).toString('base64') },
    };
    return JSON.parse((await post(node.nativeUrl, JSON.stringify(body))).text).result;
  }

  it("refuses a native transaction whose gas is above the block gas limit with the SDK's out of gas, while others are included", async () => {
    const [big, many, other] = [signers[0]!, signers[1]!, signers[2]!];
    const refused = await broadcast(await signedNative(native, big, BLOCK_GAS_LIMIT + 1n));
    expect(refused).to.include({
      code: 11,
      codespace: 'sdk',
      log: 'tx gas wanted 12500001 exceeds block max gas limit 12500000: out of gas',
    });
    // 900 messages need more gas than a block has.
    const messages = Array.from({ length: 900 }, () => send(many.address, other.address));
    const crowded = await broadcast(await signedNative(native, many, 25_000_000n, messages));
    expect(crowded).to.include({
      code: 11,
      codespace: 'sdk',
      log: 'tx gas wanted 25000000 exceeds block max gas limit 12500000: out of gas',
    });
    expect(node.node.chain.nativePool.size).to.equal(0);

    for (const signer of [big, many, other]) {
      const included = await sendNative(native, signer, [send(signer.address, other.address)], {
        fee: feeFor(200_000n),
      });
      expect(included.code).to.equal(0);
    }
  });

  it('skips a transaction that does not fit in what is left of a block: smaller ones of other senders go in, it in the next block', async () => {
    const chain = node.node.chain;
    await nextBlocks(chain);
    const blocks = nextBlocks(chain, 3);
    const [small, big, other] = [signers[0]!, signers[1]!, signers[2]!];
    const admit = async (raw: Uint8Array): Promise<string> => {
      const checked = await native.submit(raw);
      expect(checked.code, checked.log).to.equal(0);
      return hexlify(checked.hash);
    };
    // Natives in arrival order: 1M, then 12M (13M would not fit), the big signer's next one
    // (which must wait behind it), and another signer's 200,000.
    const first = await admit(await signedNative(native, small, 1_000_000n));
    const bigHash = await admit(await signedNative(native, big, 12_000_000n));
    const afterBig = await admit(await signedNative(native, big, 200_000n, undefined, 1n));
    const fits = await admit(await signedNative(native, other, 200_000n));
    // EVM: 11.5M does not fit in the 11.1M left, a transfer does.
    const evmBig = await submit(
      node.url,
      await sign(devWallet(3), { nonce: 0, to: devWallet(4).address, gasLimit: 11_500_000n }),
    );
    const evmSmall = await submit(node.url, await sign(devWallet(4), { nonce: 0, to: devWallet(3).address }));

    const [next, following, third] = await blocks;
    expect(next!.block.nativeTransactions).to.deep.equal([first, fits]);
    expect(next!.block.transactions).to.deep.equal([evmSmall]);
    // 12.2M of natives leave no room for 11.5M: it goes in the block after.
    expect(following!.block.nativeTransactions).to.deep.equal([bigHash, afterBig]);
    expect(following!.block.transactions).to.deep.equal([]);
    expect(third!.block.transactions).to.deep.equal([evmBig]);
    expect((await waitForReceipt(node.url, evmBig)).status).to.equal('0x1');
  });
});
