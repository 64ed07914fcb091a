import { expect } from 'chai';
import { Bucket, bucketRange, Database } from '@evmnode/core';
import { startTestNode } from '@evmnode/core/testing';
import { devWallet, manyTopicLogsInit, sign, submit, waitForReceipt } from '../support/chain-kit.js';
import { rpc } from '../support/rpc-client.js';
import { temporaryDir } from '../support/temp-dirs.js';

const PLUGINS = ['eth-query', 'eth-send', 'filters'];
const LOGS = 2_000;

async function result(url: string, method: string, params: unknown[]): Promise<any> {
  const answer = await rpc(url, method, params);
  expect(answer.error, `${method}: ${JSON.stringify(answer.error)}`).to.equal(undefined);
  return answer.result;
}

const quantity = (value: number) => `0x${value.toString(16)}`;

/** Where a key of a height-keyed bucket holds its height: after the bucket byte, or (log indexes) last. */
const heightOffset = (key: Uint8Array) =>
  key[0] === Bucket.Log || key[0] === Bucket.Transaction || key[0] === Bucket.Receipt ? 1 : key.length - 8;

/**
 * Writes at height `to` the entries a commit writes in pieces before its last (logs, their index
 * entries, transactions and receipts), copied from block `from`: what a node stopped between a
 * block's first pieces and its last leaves above its head.
 */
async function writePiecesAbove(home: string, from: number, to: number): Promise<number> {
  const database = await Database.openInHome(home);
  try {
    const batch = database.batch();
    const buckets = [Bucket.Log, Bucket.LogByAddress, Bucket.LogByTopic, Bucket.LogByAddressTopic];
    for (const bucket of [...buckets, Bucket.Transaction, Bucket.Receipt]) {
      for await (const [key, value] of database.store.iterate(bucketRange(bucket))) {
        if (new DataView(key.buffer, key.byteOffset + heightOffset(key), 8).getBigUint64(0) !== BigInt(from)) continue;
        const copy = Uint8Array.from(key);
        new DataView(copy.buffer, heightOffset(copy), 8).setBigUint64(0, BigInt(to));
        batch.put(copy, value);
      }
    }
    const written = batch.length;
    await batch.write();
    return written;
  } finally {
    await database.close();
  }
}

async function headOf(home: string): Promise<number> {
  const database = await Database.openInHome(home);
  try {
    return Number(await database.meta.get('head'));
  } finally {
    await database.close();
  }
}

describe('a block written in part', function () {
  this.timeout(60_000);

  it('is removed at start: the block made anew at its height serves only its own logs', async () => {
    const home = temporaryDir('block-pieces');
    let node = await startTestNode({ home, plugins: PLUGINS });
    let emitter: string;
    let logsHeight: number;
    let logs: unknown[];
    try {
      const deploy = await sign(devWallet(9), { nonce: 0, data: manyTopicLogsInit(LOGS), gasLimit: 3_000_000n });
      const receipt = await waitForReceipt(node.url, await submit(node.url, deploy));
      expect(receipt.logs).to.have.length(LOGS);
      emitter = receipt.contractAddress;
      logsHeight = Number(receipt.blockNumber);
      logs = await result(node.url, 'eth_getLogs', [{ fromBlock: receipt.blockNumber, address: emitter }]);
      expect(logs).to.deep.equal(receipt.logs);
    } finally {
      await node.stop();
    }
    const head = await headOf(home);
    // Per block and index key one entry: the emitter's, and each log's topic and event (each
    // topic is its own); then the logs themselves, the raw transaction and its receipt.
    expect(await writePiecesAbove(home, logsHeight, head + 1)).to.equal(1 + 2 * LOGS + LOGS + 2);

    node = await startTestNode({ home, plugins: PLUGINS });
    try {
      // Blocks at the height of the pieces and after it: a transfer, no logs.
      const transfer = await sign(devWallet(8), { nonce: 0, to: devWallet(7).address, value: 1n });
      const toBlock = (await waitForReceipt(node.url, await submit(node.url, transfer))).blockNumber;
      const above = { fromBlock: quantity(head + 1), toBlock };
      expect(await result(node.url, 'eth_getLogs', [above])).to.deep.equal([]);
      expect(await result(node.url, 'eth_getLogs', [{ ...above, address: emitter }])).to.deep.equal([]);
      const topic = `0x${LOGS.toString(16).padStart(64, '0')}`;
      expect(await result(node.url, 'eth_getLogs', [{ ...above, topics: [topic] }])).to.deep.equal([]);
      // The block's own logs are served as before.
      const own = { fromBlock: quantity(logsHeight), toBlock: quantity(logsHeight) };
      expect(await result(node.url, 'eth_getLogs', [{ ...own, address: emitter }])).to.deep.equal(logs);
      expect(await result(node.url, 'eth_getLogs', [{ fromBlock: own.fromBlock, address: emitter }])).to.deep.equal(
        logs,
      );
    } finally {
      await node.stop();
    }
  });
});
