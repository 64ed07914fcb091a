import { expect } from 'chai';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { CHAIN_ID, devWallet, GWEI, sign, submit, waitForReceipt } from '../support/chain-kit.js';

const RECIPIENT = '0x00000000000000000000000000000000000000dd';

describe('transaction types', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ config: { consensus: { block_time: 100 } } });
  });
  after(() => node.stop());

  it('mines legacy (EIP-155), access-list and dynamic-fee transactions with their type in the receipt', async () => {
    const wallet = devWallet(5);
    const signed = [
      await sign(wallet, {
        type: 0,
        chainId: CHAIN_ID,
        nonce: 0,
        to: RECIPIENT,
        value: 1n,
        gasLimit: 21_000,
        gasPrice: 2n * GWEI,
      }),
      await sign(wallet, {
        type: 1,
        chainId: CHAIN_ID,
        nonce: 1,
        to: RECIPIENT,
        value: 1n,
        gasLimit: 30_000,
        gasPrice: 2n * GWEI,
        accessList: [{ address: RECIPIENT, storageKeys: [`0x${'00'.repeat(32)}`] }],
      }),
      await sign(wallet, {
        type: 2,
        chainId: CHAIN_ID,
        nonce: 2,
        to: RECIPIENT,
        value: 1n,
        gasLimit: 21_000,
        maxFeePerGas: 2n * GWEI,
        maxPriorityFeePerGas: GWEI,
      }),
    ];
    const hashes = [];
    for (const raw of signed) hashes.push(await submit(node.url, raw));
    const receipts = await Promise.all(hashes.map((hash) => waitForReceipt(node.url, hash)));
    expect(receipts.map((receipt) => [receipt.type, receipt.status])).to.deep.equal([
      ['0x0', '0x1'],
      ['0x1', '0x1'],
      ['0x2', '0x1'],
    ]);
    // The access list's address and slot cost 2,400 + 1,900 gas on top of the transfer.
    expect(receipts[1].gasUsed).to.equal(`0x${(21_000 + 2_400 + 1_900).toString(16)}`);
  });

  it('mines an EIP-7702 transaction and applies its authorization', async () => {
    const sender = devWallet(6);
    const authority = devWallet(7);
    const delegate = '0x00000000000000000000000000000000000000ee';
    const authorization = await authority.authorize({ address: delegate, nonce: 0, chainId: CHAIN_ID });
    const raw = await sign(sender, {
      type: 4,
      chainId: CHAIN_ID,
      nonce: 0,
      to: RECIPIENT,
      value: 1n,
      gasLimit: 100_000,
      maxFeePerGas: 2n * GWEI,
      maxPriorityFeePerGas: GWEI,
      authorizationList: [authorization],
    });
    const receipt = await waitForReceipt(node.url, await submit(node.url, raw));
    expect([receipt.type, receipt.status]).to.deep.equal(['0x4', '0x1']);
    // Applying an authorization bumps the authority's nonce.
    expect((await node.node.chain.accountAtHead(authority.address.toLowerCase() as `0x${string}`)).nonce).to.equal(1n);
  });
});
