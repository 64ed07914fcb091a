import { expect } from 'chai';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { devWallet, quantity, sign, submit, untilHeight, waitForReceipt } from '../support/chain-kit.js';
import { overHttp, resultOf } from '../support/rpc-answers.js';

/** EIP-2935's history contract. */
const HISTORY = '0x0000f90827f1c53a10cb7a02335b175320002935';
const HISTORY_CODE =
  '0x3373fffffffffffffffffffffffffffffffffffffffe14604657602036036042575f35600143038111604257611fff81430311604257611fff9006545f5260205ff35b5f5ffd5b5f35611fff60014303065500';

/** Init code of a contract that returns BLOCKHASH of the number its call data holds. */
const BLOCKHASH_READER = '0x600c600c600039600c6000f3' + '60003540' + '60005260206000f3';

const word = (value: number): string => `0x${value.toString(16).padStart(64, '0')}`;

describe('EIP-2935 block hash history', () => {
  let node: TestNode;
  let reader: string;
  const call = () => overHttp(node.url);
  const hashOf = async (height: number): Promise<string> =>
    (await resultOf(call(), 'eth_getBlockByNumber', [quantity(height), false])).hash;

  before(async () => {
    node = await startTestNode({ config: { consensus: { block_time: 100 } } });
    const raw = await sign(devWallet(0), { nonce: 0, data: BLOCKHASH_READER, gasLimit: 100_000n });
    reader = (await waitForReceipt(node.url, await submit(node.url, raw))).contractAddress;
    await untilHeight(node.node.chain, 6);
  });
  after(() => node.stop());

  it('has the history contract at genesis', async () => {
    expect(await resultOf(call(), 'eth_getCode', [HISTORY, '0x0'])).to.equal(HISTORY_CODE);
    expect(await resultOf(call(), 'eth_getTransactionCount', [HISTORY, '0x0'])).to.equal('0x1');
  });

  it('holds each past block hash as BLOCKHASH and eth_getBlockByNumber give it', async () => {
    const head = quantity(6);
    for (const height of [0, 1, 2, 3, 4, 5]) {
      const expected = await hashOf(height);
      expect(await resultOf(call(), 'eth_call', [{ to: HISTORY, data: word(height) }, head])).to.equal(expected);
      expect(await resultOf(call(), 'eth_call', [{ to: reader, data: word(height) }, head])).to.equal(expected);
    }
  });

  it('is written by each block for its parent, as eth_call at that block sees it', async () => {
    for (const height of [2, 3, 4, 5, 6]) {
      expect(await resultOf(call(), 'eth_call', [{ to: HISTORY, data: word(height - 1) }, quantity(height)])).to.equal(
        await hashOf(height - 1),
      );
      expect(
        await resultOf(call(), 'eth_getStorageAt', [HISTORY, quantity(height - 1), quantity(height - 1)]),
      ).to.equal(word(0));
    }
  });
});
