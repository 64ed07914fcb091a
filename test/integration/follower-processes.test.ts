import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DirectSecp256k1Wallet } from '@cosmjs/proto-signing';
import { SigningStargateClient } from '@cosmjs/stargate';
import { expect } from 'chai';
import { getBytes, getCreateAddress, Interface, Transaction, Wallet } from 'ethers';
import { devAccounts } from '@evmnode/core';
import { devWallet, quantity, sign, sleep } from '../support/chain-kit.js';
import { killIfRunning, startNodeProcess, type NodeProcess } from '../support/cli.js';
import { freePort } from '../support/ports.js';
import { rpc } from '../support/rpc-client.js';
import { compileContract } from '../support/solidity.js';

const emitter = compileContract('LogEmitter');
const emitterAbi = new Interface(emitter.abi);
const IN_FLIGHT = 32;

/** The native gateway URL of a node process, from its log. */
function gatewayOf(node: NodeProcess): string {
  const line = node.logs.find((entry) => entry.msg === 'native gateway listening');
  if (line === undefined) throw new Error('the node runs no native gateway');
  return `http://127.0.0.1:${String(line.port)}`;
}

async function result(url: string, method: string, params: unknown[] = []): Promise<any> {
  const answer = await rpc(url, method, params);
  if (answer.error !== undefined) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

/**
 * Sends every raw transaction through `url`, `IN_FLIGHT` at a time. A sender's transaction goes
 * only once the one `IN_FLIGHT` nonces before it is in: requests can overtake each other on the
 * way to the producer, and a sender may have only 64 transactions waiting behind a gap there.
 */
async function sendAll(url: string, raws: readonly string[]): Promise<string[]> {
  const answers: Promise<string>[] = [];
  const sentBySender = new Map<string, number[]>();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < raws.length) {
        const index = next++;
        const sender = Transaction.from(raws[index]).from!;
        const sent = sentBySender.get(sender) ?? [];
        sentBySender.set(sender, sent);
        const behind = sent.at(-IN_FLIGHT);
        sent.push(index);
        answers[index] = Promise.resolve(behind === undefined ? undefined : answers[behind]).then(() =>
          result(url, 'eth_sendRawTransaction', [raws[index]]),
        );
        await answers[index];
      }
    }),
  );
  return Promise.all(answers);
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const heightOf = async (url: string) => Number(await result(url, 'eth_blockNumber'));

/** What must be identical on every node up to `height`: blocks, receipts, logs, balances and traces. */
async function chainOf(url: string, height: number, emitterAddress: string): Promise<unknown> {
  const blocks = [];
  const traced = [];
  for (let number = 0; number <= height; number++) {
    const block = await result(url, 'eth_getBlockByNumber', [quantity(number), true]);
    const receipts = await result(url, 'eth_getBlockReceipts', [quantity(number)]);
    blocks.push({ block, receipts });
    if (block.transactions.length > 0 && traced.length < 6)
      traced.push(await result(url, 'debug_traceBlockByNumber', [quantity(number), { tracer: 'callTracer' }]));
  }
  const logs = await result(url, 'eth_getLogs', [
    { fromBlock: '0x0', toBlock: quantity(height), address: emitterAddress },
  ]);
  const balances = await Promise.all(
    devAccounts(10).map(({ address }) => result(url, 'eth_getBalance', [address, quantity(height)])),
  );
  return { blocks, traced, logs, balances };
}

describe('a producer and two followers as processes', function () {
  this.timeout(240_000);
  const homes = Array.from({ length: 4 }, () => mkdtempSync(path.join(tmpdir(), 'evmnode-roles-')));
  let producer: NodeProcess | undefined;
  const followers: (NodeProcess | undefined)[] = [];
  let producerArgs: string[];
  let followerArgs: (index: number) => string[];

  before(async () => {
    const [http, ws, gateway] = [await freePort(), await freePort(), await freePort()];
    producerArgs = ['--home', homes[0]!, '--evm.http_port', String(http), '--evm.ws_port', String(ws)];
    producerArgs.push('--native.rpc_port', String(gateway), '--consensus.block_time', '200ms');
    producer = await startNodeProcess(producerArgs);
    followerArgs = (index) => [
      '--home',
      homes[index]!,
      '--node.role',
      'follower',
      '--follower.upstream',
      gatewayOf(producer!),
      '--follower.upstream_rpc',
      producer!.url,
      '--follower.poll_interval',
      '20ms',
    ];
    followers[0] = await startNodeProcess(followerArgs(1));
    followers[1] = await startNodeProcess(followerArgs(2));
  });

  after(async () => {
    await Promise.all([producer, ...followers].map((node) => killIfRunning(node)));
    for (const home of homes) rmSync(home, { recursive: true, force: true });
  });

  it('replicate 1,000 EVM and 50 native transactions sent through a follower, across kill -9 and restarts', async () => {
    const entry = followers[0]!.url;
    // dev 5 deploys the log emitter and calls it 100 times; dev 0..4 send 180 transfers each.
    const emitterAddress = getCreateAddress({ from: devWallet(5).address, nonce: 0 }).toLowerCase();
    const calls = await Promise.all(
      Array.from({ length: 100 }, (_, index) =>
        sign(devWallet(5), {
          to: emitterAddress,
          nonce: index + 1,
          gasLimit: 200_000n,
          data: emitterAbi.encodeFunctionData('notes', [BigInt(index), 2n]),
        }),
      ),
    );
    const transfers = await Promise.all(
      Array.from({ length: 900 }, (_, index) =>
        sign(devWallet(index % 5), {
          to: Wallet.createRandom().address,
          value: BigInt(index + 1),
          nonce: Math.floor(index / 5),
        }),
      ),
    );
    const deploy = await sign(devWallet(5), { nonce: 0, data: emitter.bytecode, gasLimit: 1_000_000n });

    // Native sends from dev 6..9 through the first follower's gateway, while the EVM load runs.
    const natives = Promise.all(
      [6, 7, 8, 9].map(async (devIndex, signerIndex) => {
        const wallet = await DirectSecp256k1Wallet.fromKey(getBytes(devAccounts(10)[devIndex]!.privateKey), 'sei');
        const [account] = await wallet.getAccounts();
        const address = account!.address;
        const client = await SigningStargateClient.connectWithSigner(gatewayOf(followers[0]!), wallet, {
          broadcastPollIntervalMs: 50,
        });
        const fee = { amount: [{ denom: 'usei', amount: '4000' }], gas: '200000' };
        for (let send = 0; send < (signerIndex < 2 ? 12 : 13); send++) {
          const sent = await client.sendTokens(address, address, [{ denom: 'usei', amount: '1' }], fee);
          expect(sent.code).to.equal(0);
        }
        client.disconnect();
      }),
    );

    const firstHalf = await sendAll(entry, [deploy, ...calls, ...transfers.slice(0, 450)]);
    // The second follower dies mid-stream.
    followers[1]!.child.kill('SIGKILL');
    await followers[1]!.exited;
    const secondHalf = await sendAll(entry, transfers.slice(450));
    await natives;
    followers[1] = await startNodeProcess(followerArgs(2));
    const hashes = [...firstHalf, ...secondHalf];
    await until('every receipt on the entry follower', async () => {
      const last = await rpc(entry, 'eth_getTransactionReceipt', [hashes.at(-1)]);
      return last.result !== null && last.result !== undefined;
    });

    // The producer stops and comes back on the same home and ports; the followers carry on.
    producer!.child.kill('SIGTERM');
    expect(await producer!.exited, `the producer's exit signal: ${producer!.child.signalCode}`).to.equal(0);
    await sleep(300);
    producer = await startNodeProcess(producerArgs);
    const [after] = await sendAll(entry, [
      await sign(devWallet(0), { to: Wallet.createRandom().address, value: 1n, nonce: 180 }),
    ]);
    await until('the transfer after the restart on both followers', async () => {
      const receipts = await Promise.all(
        followers.map((follower) => rpc(follower!.url, 'eth_getTransactionReceipt', [after])),
      );
      return receipts.every((receipt) => receipt.result !== null && receipt.result !== undefined);
    });

    const height = await heightOf(producer.url);
    for (const follower of followers)
      await until('a follower at the producer height', async () => (await heightOf(follower!.url)) >= height);
    const expected = await chainOf(producer.url, height, emitterAddress);
    const statuses = (expected as { blocks: { receipts: { status: string }[] }[] }).blocks.flatMap(({ receipts }) =>
      receipts.map(({ status }) => status),
    );
    expect(statuses).to.have.length(1_002);
    expect(statuses.every((status) => status === '0x1')).to.equal(true);
    expect((expected as { logs: unknown[] }).logs).to.have.length(200);
    for (const follower of followers)
      expect(await chainOf(follower!.url, height, emitterAddress)).to.deep.equal(expected);
  });

  it('replicate without a gap or a block twice after kill -9 while catching up, blocks written as the next executes', async () => {
    const emitterAddress = getCreateAddress({ from: devWallet(5).address, nonce: 0 }).toLowerCase();
    await until('a chain of 150 blocks', async () => (await heightOf(producer!.url)) >= 150);
    const target = await heightOf(producer!.url);
    let follower = await startNodeProcess(followerArgs(3));
    try {
      // Catching up runs blocks back to back, each executed while the one before it is written.
      await until(
        'a quarter of the chain replicated',
        async () => (await heightOf(follower.url)) >= target / 4,
        30_000,
      );
      const killedAt = await heightOf(follower.url);
      follower.child.kill('SIGKILL');
      await follower.exited;
      expect(killedAt).to.be.below(target);
      follower = await startNodeProcess(followerArgs(3));
      await until('the restarted follower at the target height', async () => (await heightOf(follower.url)) >= target);
      expect(await chainOf(follower.url, target, emitterAddress)).to.deep.equal(
        await chainOf(producer!.url, target, emitterAddress),
      );
    } finally {
      await killIfRunning(follower);
    }
  });
});
