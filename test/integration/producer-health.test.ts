import { expect } from 'chai';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { untilHeight } from '../support/chain-kit.js';

interface Health {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

async function health(node: TestNode): Promise<Health> {
  const response = await fetch(`${node.url}/health`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The node's health once it answers `status`, polled for up to `ms`. */
async function healthOnce(node: TestNode, status: number, ms: number): Promise<Health> {
  const deadline = Date.now() + ms;
  for (;;) {
    const answer = await health(node);
    if (answer.status === status || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('GET /health of a producer', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ plugins: ['eth-query'] });
    await untilHeight(node.node.chain, 2);
  });
  after(() => node.stop());

  it('answers 503 "failing", with the store\'s error and since when, once blocks can no longer be written', async () => {
    expect(await health(node)).to.deep.include({ status: 200 });
    // RocksDB refuses every write after a background error (no descriptor for its next log, a
    // full disk) until the node restarts; a closed store refuses them as well.
    const closedAt = Date.now();
    await (node.node as unknown as { database: { close(): Promise<void> } }).database.close();
    const height = node.node.chain.head().height;

    const failing = await healthOnce(node, 503, 5_000);
    expect(failing).to.deep.equal({
      status: 503,
      body: {
        status: 'failing',
        role: 'producer',
        height,
        error: 'the database is closed',
        failingSince: failing.body.failingSince,
      },
    });
    const since = Date.parse(failing.body.failingSince as string);
    expect(since).to.be.within(closedAt, Date.now());
    expect(
      node.logs.some((line) => line.level === 50 && String(line.msg).startsWith('block production failed')),
    ).to.equal(true);

    // Every later block fails too: the report stays, dated from the first failure.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await health(node)).to.deep.equal(failing);
    expect(node.node.chain.head().height).to.equal(height);
  });
});
