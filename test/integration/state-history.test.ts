import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startTestNode } from '@evmnode/core/testing';
import { CHAIN_ID, devWallet, GWEI, sign, submit, waitForReceipt } from '../support/chain-kit.js';
import { rpc } from '../support/rpc-client.js';
import { refusalOf } from '../support/startup.js';
import { temporaryDir } from '../support/temp-dirs.js';

const DEV_ACCOUNT = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

function homeWithGenesis(genesis: unknown): string {
  const home = temporaryDir('genesis');
  mkdirSync(path.join(home, 'config'));
  writeFileSync(path.join(home, 'config', 'genesis.json'), JSON.stringify(genesis));
  return home;
}

describe('state history and genesis', () => {
  it('refuses state below [state] keep_recent with the pruned-height error', async () => {
    const node = await startTestNode({ config: { consensus: { block_time: 30 }, state: { keep_recent: 2 } } });
    try {
      while (node.node.chain.head().height < 5) await new Promise((resolve) => setTimeout(resolve, 20));
      const response = await rpc(node.url, 'eth_getBalance', [DEV_ACCOUNT, '0x1']);
      expect(response.error.code).to.equal(-32000);
      expect(response.error.message).to.match(/^requested height 1 has been pruned; earliest available is \d+$/);
      expect(Number(/(\d+)$/.exec(response.error.message)![1])).to.be.at.least(4);
      expect((await rpc(node.url, 'eth_getBalance', [DEV_ACCOUNT, 'latest'])).result).to.equal('0x21e19e0c9bab2400000');
    } finally {
      await node.stop();
    }
  });

  it('deletes the state older than keep_recent blocks and keeps every newer state whole', async () => {
    // Blocks only with transactions: once the last transfer is in, the head and the pruned height
    // stay where they are while every kept height is read.
    const node = await startTestNode({
      config: { consensus: { block_time: 40, create_empty_blocks: false }, state: { keep_recent: 3 } },
    });
    try {
      const recipient = '0x00000000000000000000000000000000000000bb';
      const sender = devWallet(1);
      const chain = node.node.chain;
      const prunedPast = (height: number) =>
        node.logs.some(
          (line) => line.msg === 'pruned old state' && Number(line.deleted) > 0 && Number(line.head) >= height,
        );
      // Transfers one at a time, until the state was pruned at least five blocks past the first.
      const heights: number[] = [];
      for (let nonce = 0; heights.length === 0 || !prunedPast(heights[0]! + 5); nonce++) {
        expect(nonce, 'transfers sent without a prune').to.be.below(20);
        const raw = await sign(sender, {
          type: 2,
          chainId: CHAIN_ID,
          nonce,
          to: recipient,
          value: 1000n,
          gasLimit: 21_000,
          maxFeePerGas: 10n * GWEI,
          maxPriorityFeePerGas: GWEI,
        });
        heights.push(Number((await waitForReceipt(node.url, await submit(node.url, raw))).blockNumber));
      }
      // A prune the last blocks made due runs before the states are read.
      while (chain.pruneDue()) await new Promise((resolve) => setTimeout(resolve, 20));
      const firstRoot = (await chain.store.blockAt(heights[0]!))!.stateRoot;
      // The state root of the first transfer's block is gone from the database...
      expect(await chain.nodes.get(firstRoot.slice(2))).to.equal(undefined);
      // ...and every state still served answers, and answers right.
      const head = chain.head().height;
      for (let height = chain.earliestStateHeight(); height <= head; height++) {
        const expected = 1000n * BigInt(heights.filter((mined) => mined <= height).length);
        expect(
          BigInt((await rpc(node.url, 'eth_getBalance', [recipient, `0x${height.toString(16)}`])).result),
        ).to.equal(expected);
      }
      expect(
        (await rpc(node.url, 'eth_getBalance', [recipient, `0x${heights[0]!.toString(16)}`])).error.message,
      ).to.match(/has been pruned/);
    } finally {
      await node.stop();
    }
  });

  it('starts from a genesis.json in <home>/config, with bech32 addresses', async () => {
    const home = homeWithGenesis({
      chainId: 713714,
      genesisTime: 1_700_000_000_000,
      alloc: { '0x00000000000000000000000000000000000000aa': { balance: '12345' } },
    });
    const node = await startTestNode({ home });
    try {
      expect(
        (await rpc(node.url, 'eth_getBalance', ['0x00000000000000000000000000000000000000aa', '0x0'])).result,
      ).to.equal('0x3039');
      expect((await rpc(node.url, 'eth_getBalance', [DEV_ACCOUNT, '0x0'])).result).to.equal('0x0');
    } finally {
      await node.stop();
    }
  });

  it('uses the genesis gas limit for blocks and admission', async () => {
    const home = homeWithGenesis({
      chainId: 713714,
      genesisTime: 1_700_000_000_000,
      gasLimit: '0x30d40',
      alloc: { [devWallet(0).address]: { balance: '0x56bc75e2d63100000' } },
    });
    const node = await startTestNode({ home, config: { consensus: { block_time: 50 } } });
    try {
      const fields = {
        type: 2,
        chainId: CHAIN_ID,
        to: `0x${'cc'.repeat(20)}`,
        maxFeePerGas: 10n * GWEI,
        maxPriorityFeePerGas: GWEI,
      } as const;
      const tooBig = await rpc(node.url, 'eth_sendRawTransaction', [
        await sign(devWallet(0), { ...fields, nonce: 0, gasLimit: 200_001 }),
      ]);
      expect(tooBig.error).to.deep.equal({
        code: -32003,
        message: 'exceeds block gas limit',
        data: { code: 41, codespace: 'sdk' },
      });
      const receipt = await waitForReceipt(
        node.url,
        await submit(node.url, await sign(devWallet(0), { ...fields, nonce: 0, gasLimit: 200_000 })),
      );
      expect((await node.node.chain.store.blockAt(Number(receipt.blockNumber)))!.gasLimit).to.equal('0x30d40');
    } finally {
      await node.stop();
    }
  });

  it('stops on a malformed genesis, naming the field', async () => {
    const home = homeWithGenesis({
      chainId: 713714,
      genesisTime: 0,
      alloc: { '0x00000000000000000000000000000000000000aa': { balance: 'lots' } },
    });
    expect(await refusalOf({ home })).to.equal(
      `${path.join(home, 'config', 'genesis.json')}: alloc.0x00000000000000000000000000000000000000aa.balance must be a non-negative integer (decimal or 0x hex); got "lots"`,
    );
  });

  it('stops when the genesis chain ID differs from the configured one', async () => {
    const home = homeWithGenesis({ chainId: 1, genesisTime: 0 });
    expect(await refusalOf({ home })).to.equal(
      'genesis chainId 1 differs from [node] chain_id 713714: make them equal',
    );
  });
});
