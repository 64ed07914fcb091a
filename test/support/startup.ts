import { expect } from 'chai';
import { isStartupError } from '@evmnode/core';
import { startTestNode, type TestNodeOptions } from '@evmnode/core/testing';

/** Starts a node that must refuse to start, and returns the operator's message. */
export async function refusalOf(options: TestNodeOptions): Promise<string> {
  const outcome = await startTestNode(options).then(
    async (node) => {
      await node.stop();
      return undefined;
    },
    (error: unknown) => error,
  );
  expect(isStartupError(outcome), `expected a refusal to start, got ${String(outcome)}`).to.equal(true);
  return (outcome as Error).message;
}
