import { expect } from 'chai';
import { logRecordOfJson } from '@evmnode/core/internal';
import { Bucket, bucketRange, Database } from '@evmnode/core';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { devWallet, manyLogsInit, sign, submit, submitTogether, waitForReceipt } from '../support/chain-kit.js';
import { rpc } from '../support/rpc-client.js';
import { temporaryDir } from '../support/temp-dirs.js';

const PLUGINS = ['eth-query', 'eth-send', 'filters', 'ext-legacy'];
const CONFIG = { evm: { enabled_legacy_ext_apis: ['ext_getTransactionReceipt', 'ext_getBlockReceipts'] } };

async function result(node: TestNode, method: string, params: unknown[]): Promise<any> {
  const answer = await rpc(node.url, method, params);
  expect(answer.error, `${method}: ${JSON.stringify(answer.error)}`).to.equal(undefined);
  return answer.result;
}

/** Every way the node serves the transactions' receipts and logs, in both views, and their block with them. */
async function servedReceipts(node: TestNode, hashes: readonly string[]) {
  const receipts = [];
  for (const hash of hashes) {
    receipts.push({
      eth: await result(node, 'eth_getTransactionReceipt', [hash]),
      ext: await result(node, 'ext_getTransactionReceipt', [hash]),
    });
  }
  const block = receipts[0]!.eth.blockNumber;
  return {
    receipts,
    blockReceipts: {
      eth: await result(node, 'eth_getBlockReceipts', [block]),
      ext: await result(node, 'ext_getBlockReceipts', [block]),
    },
    logs: await result(node, 'eth_getLogs', [{ fromBlock: block, toBlock: block }]),
    // Its transactions' senders are their receipts'.
    block: await result(node, 'eth_getBlockByNumber', [block, true]),
  };
}

/** A receipt record as schema version 3 stored it: with its logs, as records. */
function inlineRecord(stored: Record<string, unknown>, served: { logs: any[] }): Record<string, unknown> {
  const { firstLogIndex, logCount, ...fields } = stored;
  expect(served.logs).to.have.length(logCount as number);
  if (served.logs.length > 0) expect(Number(served.logs[0].logIndex)).to.equal(firstLogIndex);
  return { ...fields, logs: served.logs.map(logRecordOfJson) };
}

/** What a node started anew on `home` serves of the transactions' receipts. */
async function servedAfterRestart(home: string, hashes: readonly string[]): ReturnType<typeof servedReceipts> {
  const node = await startTestNode({ home, plugins: PLUGINS, config: CONFIG });
  try {
    return await servedReceipts(node, hashes);
  } finally {
    await node.stop();
  }
}

describe('receipts on disk', function () {
  this.timeout(120_000);

  it('serves the same receipts after a restart, whether their logs are stored once or inline as in version 3', async () => {
    const home = temporaryDir('receipts');
    const node = await startTestNode({ home, plugins: PLUGINS, config: CONFIG });
    let hashes: string[];
    let before: Awaited<ReturnType<typeof servedReceipts>>;
    try {
      // One block: 5 logs, none, then 3,000 (more than one read of the Log bucket takes), numbered from 5.
      const wallet = devWallet(7);
      const raws = await Promise.all([
        sign(wallet, { nonce: 0, data: manyLogsInit(5), gasLimit: 200_000n }),
        sign(wallet, { nonce: 1, to: devWallet(6).address, value: 1n, gasLimit: 21_000n }),
        sign(wallet, { nonce: 2, data: manyLogsInit(3_000), gasLimit: 2_000_000n }),
      ]);
      hashes = await submitTogether(node.url, raws);
      const mined = await Promise.all(hashes.map((hash) => waitForReceipt(node.url, hash)));
      expect(new Set(mined.map((receipt) => receipt.blockNumber)).size).to.equal(1);
      before = await servedReceipts(node, hashes);
    } finally {
      await node.stop();
    }
    expect(before.receipts.map(({ eth }) => eth.logs.length)).to.deep.equal([5, 0, 3_000]);
    expect(before.receipts.flatMap(({ eth }) => eth.logs)).to.deep.equal(before.logs);
    expect(before.blockReceipts.eth).to.deep.equal(before.receipts.map(({ eth }) => eth));

    // Restarted, the node has no receipt in memory: each is read from disk, its logs from the Log bucket.
    expect(await servedAfterRestart(home, hashes)).to.deep.equal(before);

    // The same records as version 3 wrote them, in a database of version 3.
    const database = await Database.openInHome(home);
    try {
      const batch = database.batch();
      const range = bucketRange(Bucket.Receipt);
      let rewritten = 0;
      for await (const [key, value] of database.store.iterate(range)) {
        const stored = JSON.parse(Buffer.from(value).toString('utf8')) as Record<string, unknown>;
        const served = before.receipts.find(({ eth }) => eth.transactionHash === stored.transactionHash);
        if (served === undefined) continue;
        // What the node wrote: the record without its logs, which it names in the Log bucket.
        expect(stored).to.not.have.property('logs');
        batch.put(key, Buffer.from(JSON.stringify(inlineRecord(stored, served.eth))));
        rewritten += 1;
      }
      expect(rewritten).to.equal(3);
      database.meta.put(batch, 'schema-version', 3n);
      await batch.write();
    } finally {
      await database.close();
    }
    expect(await servedAfterRestart(home, hashes)).to.deep.equal(before);
    const reopened = await Database.openInHome(home);
    try {
      expect(await reopened.meta.get('schema-version')).to.equal(4n);
    } finally {
      await reopened.close();
    }
  });
});

describe('receipts read without their logs', function () {
  this.timeout(60_000);

  it('answers VM errors from the receipt alone, with its logs gone from disk', async () => {
    const home = temporaryDir('receipt-fields');
    const node = await startTestNode({ home, plugins: PLUGINS, config: CONFIG });
    let hash: string;
    try {
      hash = await submit(
        node.url,
        await sign(devWallet(9), { nonce: 0, data: manyLogsInit(2_000), gasLimit: 2_000_000n }),
      );
      expect((await waitForReceipt(node.url, hash)).logs).to.have.length(2_000);
    } finally {
      await node.stop();
    }
    const database = await Database.openInHome(home);
    try {
      const batch = database.batch();
      for await (const [key] of database.store.iterate(bucketRange(Bucket.Log))) batch.del(key);
      expect(batch.length).to.equal(2_000);
      await batch.write();
    } finally {
      await database.close();
    }
    const restarted = await startTestNode({ home, plugins: PLUGINS, config: CONFIG });
    try {
      expect(await result(restarted, 'eth_getVMError', [hash])).to.equal('');
      expect(await result(restarted, 'eth_getTransactionErrorByHash', [hash])).to.equal('');
    } finally {
      await restarted.stop();
    }
  });
});

describe('receipts whose logs pass the room for answers held', function () {
  this.timeout(60_000);
  /** `[evm] max_held_answer_bytes`: room for 3,000 logs' JSON (about 1 MB), not for 10,000. */
  const ROOM = 2 * 1024 * 1024;
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ plugins: PLUGINS, config: { evm: { ...CONFIG.evm, max_held_answer_bytes: ROOM } } });
  });
  after(() => node.stop());

  it('refuses them with -32005, and answers receipts within it after', async () => {
    const wallet = devWallet(8);
    const raws = await Promise.all([
      sign(wallet, { nonce: 0, data: manyLogsInit(10_000), gasLimit: 5_000_000n }),
      sign(wallet, { nonce: 1, data: manyLogsInit(3_000), gasLimit: 2_000_000n }),
    ]);
    const [large, small] = await submitTogether(node.url, raws);
    const { blockNumber } = await waitForReceipt(node.url, small!);
    const tooLarge = { code: -32005, message: 'receipts too large: their logs pass 2 MiB (max_held_answer_bytes)' };
    for (const [method, params] of [
      ['eth_getTransactionReceipt', [large]],
      ['ext_getTransactionReceipt', [large]],
      ['eth_getBlockReceipts', [blockNumber]],
    ] as const) {
      expect((await rpc(node.url, method, [...params])).error, method).to.deep.equal(tooLarge);
    }
    // The room each refusal took is given back: the smaller receipt, asked again and again, fits.
    for (let time = 0; time < 5; time++) {
      expect((await result(node, 'eth_getTransactionReceipt', [small])).logs).to.have.length(3_000);
    }
  });
});
