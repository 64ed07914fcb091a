import { expect } from 'chai';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { rpc } from '../support/rpc-client.js';

const BLAKE2F = '0x0000000000000000000000000000000000000009';
const PAIRING = '0x0000000000000000000000000000000000000008';
const BLOCK_TIME_MS = 400;

/** EIP-152's test vector 5 (message "abc"), with `rounds` in place of its 12. */
function blake2fInput(rounds: number): string {
  const h =
    '48c9bdf267e6096a3ba7ca8485ae67bb2bf894fe72f36e3cf1361d5f3af54fa5d182e6ad7f520e511f6c3e2b8c68059b6bbd41fbabd9831f79217e1319cde05b';
  const m = `6162630000000000${'00'.repeat(120)}`;
  const t = `0300000000000000${'00'.repeat(8)}`;
  return `0x${rounds.toString(16).padStart(8, '0')}${h}${m}${t}01`;
}

const VECTOR_5 =
  '0xba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923';

/** The generator of G1, its negation and the generator of G2 (EIP-197's encoding). */
const G1 = `${'00'.repeat(31)}01${'00'.repeat(31)}02`;
const MINUS_G1 = `${'00'.repeat(31)}01${'30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd45'}`;
const G2 =
  '198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2' +
  '1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed' +
  '090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b' +
  '12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa';
/** e(G1, G2) * e(-G1, G2) = 1, repeated: `2 * repeats` pairs whose check succeeds. */
const pairingInput = (repeats: number): string => `0x${`${G1}${G2}${MINUS_G1}${G2}`.repeat(repeats)}`;
const TRUE_WORD = `0x${'00'.repeat(31)}01`;

/** Runtime code without a JUMPDEST that calls itself twice (PUSH0 x5, ADDRESS, GAS, CALL, POP), then stops. */
const SELF_CALLER = `0x${'5f5f5f5f5f305af150'.repeat(2)}00`;
const SELF_CALLER_ADDRESS = '0x00000000000000000000000000000000000c0de5';

interface Liveness {
  readonly slowestMs: number;
  readonly blocksProduced: number;
  readonly elapsedMs: number;
}

/** Polls eth_blockNumber every 50 ms while `call` runs; the slowest answer and the blocks made meanwhile. */
async function whileRunning<T>(url: string, call: Promise<T>): Promise<{ result: T; liveness: Liveness }> {
  let done = false;
  const result = call.finally(() => (done = true));
  const started = performance.now();
  const first = Number((await rpc(url, 'eth_blockNumber')).result);
  let slowestMs = 0;
  let last = first;
  while (!done) {
    const asked = performance.now();
    last = Number((await rpc(url, 'eth_blockNumber')).result);
    slowestMs = Math.max(slowestMs, performance.now() - asked);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    result: await result,
    liveness: { slowestMs, blocksProduced: last - first, elapsedMs: performance.now() - started },
  };
}

describe('CPU isolation of simulated calls', function () {
  this.timeout(60_000);

  describe('with the default time-out', () => {
    let node: TestNode;
    before(async () => {
      node = await startTestNode({ config: { consensus: { block_time: BLOCK_TIME_MS } } });
    });
    after(() => node.stop());

    it('computes BLAKE2 F off the event loop with EIP-152 vector 5 result', async () => {
      const answer = await rpc(node.url, 'eth_call', [{ to: BLAKE2F, data: blake2fInput(12) }, 'latest']);
      expect(answer.result).to.equal(VECTOR_5);
    });

    it('answers eth_blockNumber within 250 ms and keeps producing blocks during 9.9M BLAKE2 rounds', async () => {
      const call = rpc(node.url, 'eth_call', [{ to: BLAKE2F, data: blake2fInput(9_900_000) }, 'latest']);
      const { result, liveness } = await whileRunning(node.url, call);
      expect(result.error, JSON.stringify(result.error)).to.equal(undefined);
      expect(result.result).to.match(/^0x[0-9a-f]{128}$/);
      expect(liveness.slowestMs).to.be.below(250);
      // Half the slots at least: the load of a shared machine may delay some.
      expect(liveness.blocksProduced).to.be.at.least(Math.floor(liveness.elapsedMs / BLOCK_TIME_MS / 2));
    });

    it('answers eth_blockNumber within 250 ms and keeps producing blocks during a 260-pair ecPairing (all the gas cap buys)', async () => {
      const call = rpc(node.url, 'eth_call', [{ to: PAIRING, data: pairingInput(130) }, 'latest']);
      const { result, liveness } = await whileRunning(node.url, call);
      expect(result.result).to.equal(TRUE_WORD);
      expect(liveness.slowestMs).to.be.below(250);
      expect(liveness.blocksProduced).to.be.at.least(Math.floor(liveness.elapsedMs / BLOCK_TIME_MS / 2));
    });

    it('estimates a pairing call through the worker with the precompile price', async () => {
      // 45,000 + 2 x 34,000 for the pairs, 21,000 for the transaction and its calldata.
      const data = pairingInput(1);
      const calldata = (data.length - 2) / 2;
      const answer = await rpc(node.url, 'eth_estimateGas', [{ to: PAIRING, data }, 'latest']);
      const zeros = [...Buffer.from(data.slice(2), 'hex')].filter((byte) => byte === 0).length;
      const expected = 21_000 + 113_000 + zeros * 4 + (calldata - zeros) * 16;
      expect(Number(answer.result)).to.be.within(expected, expected + 2_000);
    });
  });

  describe('with a one-second simulation_evm_timeout', () => {
    let node: TestNode;
    before(async () => {
      node = await startTestNode({ config: { evm: { simulation_evm_timeout: 1_000 } } });
    });
    after(() => node.stop());

    it('stops a precompile-bound call at the time-out, and the next call computes again', async () => {
      const started = performance.now();
      const answer = await rpc(node.url, 'eth_call', [{ to: BLAKE2F, data: blake2fInput(9_900_000) }, 'latest']);
      expect(answer.error).to.deep.equal({ code: -32000, message: 'execution aborted (timeout = 1s)' });
      expect(performance.now() - started).to.be.below(2_500);
      const next = await rpc(node.url, 'eth_call', [{ to: BLAKE2F, data: blake2fInput(12) }, 'latest']);
      expect(next.result, JSON.stringify(next.error)).to.equal(VECTOR_5);
    });

    it('stops code without loops that calls itself until its gas runs out', async () => {
      const started = performance.now();
      const answer = await rpc(node.url, 'eth_call', [
        { to: SELF_CALLER_ADDRESS },
        'latest',
        { [SELF_CALLER_ADDRESS]: { code: SELF_CALLER } },
      ]);
      expect(answer.error).to.deep.equal({ code: -32000, message: 'execution aborted (timeout = 1s)' });
      expect(performance.now() - started).to.be.below(2_500);
    });
  });
});
