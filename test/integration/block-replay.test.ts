import { expect } from 'chai';
import { Address, hexToBytes } from '@ethereumjs/util';
import { getCreateAddress, hexlify, Interface, keccak256, randomBytes, toUtf8Bytes } from 'ethers';
import type { BlockRecord } from '@evmnode/core';
import { BlockReplayer, ChainSimulator, type Chain } from '@evmnode/core/internal';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import {
  devWallet,
  ETHER,
  FEE_COLLECTOR,
  lower,
  nextBlocks,
  receiptOf,
  sign,
  submit,
  submitTogether,
  waitForReceipt,
} from '../support/chain-kit.js';
import { nativeSigner, registerPointer, signNative } from '../support/native-kit.js';
import { rpc } from '../support/rpc-client.js';
import { compileContract } from '../support/solidity.js';

const emitter = compileContract('LogEmitter');
const probe = compileContract('SimulationProbe');
const emitterAbi = new Interface(emitter.abi);
const probeAbi = new Interface(probe.abi);
const erc20 = new Interface(['function transfer(address to, uint256 value) returns (bool)']);
const BANK = '0x0000000000000000000000000000000000001001';
const POINTER = `0x${keccak256(toUtf8Bytes('evmnode/erc20-pointer/utest')).slice(26)}`;

/** What the tracer tests record of a traced transaction. */
interface Recorded {
  readonly frames: { depth: number; type: string; to: string | undefined }[];
  readonly exits: (string | undefined)[];
  readonly logs: string[];
  readonly ops: Set<string>;
  readonly transfers: unknown[];
}

/** A tracer recording frames, logs, opcode names and bank transfers. */
function recordingTracer(recorded: Recorded, withSteps = true) {
  return {
    enter(message: { depth: number; to?: { toString(): string } }, type: string) {
      recorded.frames.push({ depth: message.depth, type, to: message.to?.toString() });
    },
    exit(result: { execResult: { exceptionError?: { error: string } } }) {
      recorded.exits.push(result.execResult.exceptionError?.error);
    },
    log(log: { address: string }) {
      recorded.logs.push(log.address);
    },
    nativeTransfer(transfer: unknown) {
      recorded.transfers.push(transfer);
    },
    ...(withSteps
      ? {
          step(step: { opcode: { name: string } }) {
            recorded.ops.add(step.opcode.name);
          },
        }
      : {}),
  };
}

/** The error `promise` rejects with; fails when it resolves. */
async function rejection(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

const emptyRecord = (): Recorded => ({ frames: [], exits: [], logs: [], ops: new Set(), transfers: [] });

describe('block replayer', function () {
  this.timeout(90_000);
  let node: TestNode;
  let chain: Chain;
  let replayer: BlockReplayer;
  const emitterA = getCreateAddress({ from: devWallet(1).address, nonce: 0 }).toLowerCase();
  const emitterB = getCreateAddress({ from: devWallet(1).address, nonce: 1 }).toLowerCase();
  const probeAt = getCreateAddress({ from: devWallet(1).address, nonce: 2 }).toLowerCase();
  const recipient = lower(hexlify(randomBytes(20)));
  /** The block with several EVM transactions and a native one, and its EVM transactions' hashes. */
  let mixed: BlockRecord;
  let hashes: { transfer: string; deploy: string; nested: string; reverting: string; peek: string };

  before(async () => {
    node = await startTestNode({ config: { consensus: { block_time: 1000 } } });
    chain = node.node.chain;
    const core = node.node.config.core;
    replayer = new BlockReplayer(
      chain,
      new ChainSimulator(chain, { gasCap: BigInt(core.evm.simulation_gas_limit), evmTimeoutMs: 5_000 }),
      { chainId: core.native.chain_id, minGasPrice: BigInt(core.mempool.min_gas_price) },
    );
    const deployer = devWallet(1);
    const probeInit = probe.bytecode + probeAbi.encodeDeploy([5n, 6n]).slice(2);
    const deployed = await submitTogether(node.url, [
      await sign(deployer, { nonce: 0, data: emitter.bytecode, gasLimit: 1_000_000n }),
      await sign(deployer, { nonce: 1, data: emitter.bytecode, gasLimit: 1_000_000n }),
      await sign(deployer, { nonce: 2, data: probeInit, gasLimit: 1_000_000n }),
    ]);
    for (const hash of deployed) expect((await waitForReceipt(node.url, hash)).status).to.equal('0x1');

    // Everything signed first, then sent at once just after a block, so that one block takes it all.
    const sender = await nativeSigner(devWallet(7).privateKey);
    const account = (await node.node.native.account(sender.address))!;
    const nativeSend = await signNative(sender, {
      messages: [
        {
          typeUrl: '/cosmos.bank.v1beta1.MsgSend',
          value: {
            fromAddress: sender.address,
            toAddress: (await nativeSigner(devWallet(8).privateKey)).address,
            amount: [{ denom: 'usei', amount: '1000' }],
          },
        },
      ],
      sequence: account.sequence,
      accountNumber: account.accountNumber,
    });
    const raws = {
      transfer: await sign(devWallet(2), { nonce: 0, to: recipient, value: ETHER }),
      deploy: await sign(devWallet(3), { nonce: 0, data: emitter.bytecode, gasLimit: 1_000_000n }),
      nested: await sign(devWallet(4), {
        nonce: 0,
        to: emitterA,
        data: emitterAbi.encodeFunctionData('notesWith', [emitterB, 7n, 2n, 3n]),
        gasLimit: 300_000n,
      }),
      reverting: await sign(devWallet(5), { nonce: 0, to: emitterA, data: '0xdeadbeef', gasLimit: 100_000n }),
      peek: await sign(devWallet(6), {
        nonce: 0,
        to: probeAt,
        data: probeAbi.encodeFunctionData('peek', [probeAt]),
        gasLimit: 100_000n,
      }),
    };
    await nextBlocks(chain);
    const [transfer, deploy, nested, reverting, peek, checked] = await Promise.all([
      submit(node.url, raws.transfer),
      submit(node.url, raws.deploy),
      submit(node.url, raws.nested),
      submit(node.url, raws.reverting),
      submit(node.url, raws.peek),
      node.node.native.submit(nativeSend),
    ]);
    expect(checked.code, checked.log).to.equal(0);
    hashes = { transfer, deploy, nested, reverting, peek };
    const receipts = await Promise.all(Object.values(hashes).map((hash) => waitForReceipt(node.url, hash)));
    const height = Number(receipts[0].blockNumber);
    expect(receipts.map((receipt) => Number(receipt.blockNumber))).to.deep.equal(receipts.map(() => height));
    const block = (await chain.store.blockAt(height))!;
    expect(block.nativeTransactions).to.have.length(1);
    mixed = block;
  });
  after(() => node.stop());

  /** The stored receipts of block `height`, as replay results. */
  async function storedResults(height: number) {
    const block = (await chain.store.blockAt(height))!;
    return Promise.all(
      block.transactions.map(async (hash, index) => {
        const receipt = await receiptOf(node.url, hash);
        return {
          hash,
          index,
          gasUsed: BigInt(receipt.gasUsed),
          failed: receipt.status === '0x0',
          createdAddress: receipt.contractAddress ?? undefined,
        };
      }),
    );
  }

  it('replays every transaction of a block with a native transaction to its stored receipt', async () => {
    const replayed = await replayer.replayBlock(mixed.height, () => undefined);
    expect(
      replayed.map(({ hash, index, gasUsed, error, createdAddress }) => ({
        hash,
        index,
        gasUsed,
        failed: error !== undefined,
        createdAddress,
      })),
    ).to.deep.equal(await storedResults(mixed.height));
    expect(replayed.map(({ hash }) => hash)).to.have.members(Object.values(hashes));
    const reverting = replayed.find(({ hash }) => hash === hashes.reverting)!;
    expect(reverting.error).to.equal('execution reverted');
    const deploy = replayed.find(({ hash }) => hash === hashes.deploy)!;
    expect(deploy.createdAddress).to.equal(lower(getCreateAddress({ from: devWallet(3).address, nonce: 0 })));
  });

  it('leaves the state the block left, and the head state untouched', async () => {
    const watched = [FEE_COLLECTOR, recipient, lower(devWallet(2).address), emitterA];
    const balances = () =>
      Promise.all(watched.map(async (address) => (await rpc(node.url, 'eth_getBalance', [address, 'latest'])).result));
    const before = await balances();
    let root: string | undefined;
    const last = mixed.transactions.length - 1;
    await replayer.replayBlock(mixed.height, (subject) =>
      subject.index === last
        ? {
            async finish() {
              root = hexlify(await subject.state.getStateRoot());
            },
          }
        : undefined,
    );
    expect(root).to.equal(mixed.stateRoot);
    expect(await balances()).to.deep.equal(before);
  });

  it('shows a tracer nested frames with their depths and types, logs and opcode names', async () => {
    const recorded = emptyRecord();
    const subjects: unknown[] = [];
    const finished: unknown[] = [];
    const replayed = await replayer.replayBlock(mixed.height, (subject) => {
      if (subject.hash !== hashes.nested) return undefined;
      subjects.push({ from: subject.from, to: subject.to, gasLimit: subject.gasLimit, value: subject.value });
      return { ...recordingTracer(recorded), finish: (outcome: unknown) => void finished.push(outcome) };
    });
    expect(subjects).to.deep.equal([
      { from: lower(devWallet(4).address), to: emitterA, gasLimit: 300_000n, value: 0n },
    ]);
    expect(recorded.frames).to.deep.equal([
      { depth: 0, type: 'CALL', to: emitterA },
      { depth: 1, type: 'CALL', to: emitterB },
    ]);
    expect(recorded.exits).to.deep.equal([undefined, undefined]);
    expect(recorded.logs).to.deep.equal([emitterA, emitterA, emitterB, emitterB, emitterB]);
    for (const op of ['PUSH1', 'CALL', 'LOG2']) expect(recorded.ops).to.include(op);
    const { gasUsed, returnValue, error, createdAddress } = replayed.find(({ hash }) => hash === hashes.nested)!;
    expect(finished).to.deep.equal([{ gasUsed, returnValue, error, createdAddress }]);
  });

  it('names a STATICCALL frame', async () => {
    const recorded = emptyRecord();
    await replayer.replayBlock(mixed.height, (subject) =>
      subject.hash === hashes.peek ? recordingTracer(recorded, false) : undefined,
    );
    expect(recorded.frames).to.deep.equal([
      { depth: 0, type: 'CALL', to: probeAt },
      { depth: 1, type: 'STATICCALL', to: probeAt },
    ]);
    expect(recorded.ops.size).to.equal(0);
  });

  it('replays one transaction as the block replay does', async () => {
    const all = await replayer.replayBlock(mixed.height, () => undefined);
    for (const [index, hash] of mixed.transactions.entries()) {
      const traced: (number | undefined)[] = [];
      const one = await replayer.replayTransaction(hash, (subject) => {
        traced.push(subject.index);
        return undefined;
      });
      expect(one).to.deep.equal(all[index]);
      expect(traced).to.deep.equal([index]);
    }
  });

  it('traces the transactions of a block in any order, again and again, as its replay ran them', async () => {
    const all = await replayer.replayBlock(mixed.height, () => undefined);
    const prestates: Record<number, bigint> = {};
    // Again (from where the last trace stopped), back (from the block's start) and forward.
    for (const index of [2, 2, 0, 3, 1, 3, 1]) {
      const hash = mixed.transactions[index]!;
      const one = await replayer.replayTransaction(hash, (subject) => ({
        start: async () => {
          // The fee collector's balance before it runs: the fees of the transactions before it, never of a trace of it.
          const balance = (await subject.state.getAccount(new Address(hexToBytes(subject.coinbase))))?.balance ?? 0n;
          prestates[index] ??= balance;
          expect(balance, `the balance transaction ${index} starts from`).to.equal(prestates[index]);
        },
      }));
      expect(one, `transaction ${index}`).to.deep.equal(all[index]);
    }
    expect(new Set(Object.values(prestates)).size, 'each starts from a different balance').to.equal(4);
  });

  it("leaves none of the VMs it builds to the chain's Common", async () => {
    // ethereumjs' EVM subscribes to the Common it is built with for good: a shared one would keep every replay's VM.
    const subscribers = () => chain.common.events.listenerCount('hardforkChanged');
    const before = subscribers();
    for (let height = 1; height <= mixed.height; height++) await replayer.replayBlock(height, () => undefined);
    expect(subscribers()).to.equal(before);
  });

  it('shows the bank transfer a pointer makes through the bank precompile', async () => {
    const registrar = await nativeSigner(devWallet(9).privateKey);
    const registered = await registerPointer(node.node.native, registrar, 'utest');
    expect(registered.code, registered.log).to.equal(0);
    const hash = await submit(
      node.url,
      await sign(devWallet(0), {
        nonce: 0,
        to: POINTER,
        data: erc20.encodeFunctionData('transfer', [recipient, 5n]),
        gasLimit: 200_000n,
      }),
    );
    expect((await waitForReceipt(node.url, hash)).status).to.equal('0x1');
    const recorded = emptyRecord();
    await replayer.replayTransaction(hash as `0x${string}`, () => recordingTracer(recorded, false));
    expect(recorded.transfers).to.deep.equal([
      { from: lower(devWallet(0).address), to: recipient, denom: 'utest', amount: 5n },
    ]);
    expect(recorded.frames).to.deep.include({ depth: 1, type: 'CALL', to: BANK });
  });

  it("stops with the signal's reason when aborted mid-replay", async () => {
    const controller = new AbortController();
    const reason = new Error('trace timed out');
    let steps = 0;
    const replay = replayer.replayBlock(
      mixed.height,
      () => ({
        step() {
          if (++steps === 3) controller.abort(reason);
        },
      }),
      { signal: controller.signal },
    );
    expect(await rejection(replay)).to.equal(reason);
    expect(steps).to.equal(3);
    const aborted = replayer.replayBlock(mixed.height, () => undefined, { signal: AbortSignal.abort(reason) });
    expect(await rejection(aborted)).to.equal(reason);
  });

  it('runs a background replay only while no block is being executed', async () => {
    const built = chain.beginBuilding();
    let started = 0;
    const replay = replayer.replayBlock(
      mixed.height,
      () => {
        started++;
        return undefined;
      },
      { background: true },
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(started).to.equal(0);
    built();
    const replayed = await replay;
    expect(replayed.map(({ hash }) => hash)).to.deep.equal(mixed.transactions);
    expect(started).to.equal(mixed.transactions.length);
  });

  it('refuses the genesis block, heights above the head and unknown transactions', async () => {
    expect(await rejection(replayer.replayBlock(0, () => undefined))).to.include({
      code: -32000,
      message: 'genesis is not traceable',
    });
    const above = chain.head().height + 1000;
    const future = await rejection(replayer.replayBlock(above, () => undefined));
    expect(future.code).to.equal(-32000);
    expect(future.message).to.match(
      new RegExp(`^requested height ${above} is not yet available; safe latest is \\d+$`),
    );
    expect(await rejection(replayer.replayTransaction(`0x${'ab'.repeat(32)}`, () => undefined))).to.include({
      code: -32000,
      message: 'transaction not found',
    });
  });

  it('traces a call as eth_call runs it', async () => {
    const call = {
      from: lower(devWallet(6).address),
      to: probeAt,
      input: probeAbi.encodeFunctionData('peek', [probeAt]),
    };
    const answer = await rpc(node.url, 'eth_call', [{ ...call, data: call.input, input: undefined }, 'latest']);
    const recorded = emptyRecord();
    const outcome = await replayer.traceCall(
      { from: call.from, to: call.to, input: Buffer.from(call.input.slice(2), 'hex') } as never,
      { kind: 'tag', tag: 'latest' },
      () => recordingTracer(recorded, false),
    );
    expect(hexlify(outcome.returnValue)).to.equal(answer.result);
    expect(outcome.error).to.equal(undefined);
    expect(recorded.frames).to.deep.equal([
      { depth: 0, type: 'CALL', to: probeAt },
      { depth: 1, type: 'STATICCALL', to: probeAt },
    ]);
    const reverted = await replayer.traceCall(
      { from: call.from, to: emitterA, input: Uint8Array.of(0xde, 0xad, 0xbe, 0xef) } as never,
      { kind: 'tag', tag: 'latest' },
      () => undefined,
    );
    expect(reverted.error).to.equal('execution reverted');
  });
});

describe('block replayer on a pruning node', function () {
  this.timeout(30_000);

  it('refuses a block whose parent state is pruned with the pruned-height error', async () => {
    const node = await startTestNode({ config: { consensus: { block_time: 30 }, state: { keep_recent: 2 } } });
    try {
      const chain = node.node.chain;
      while (chain.head().height < 6) await new Promise((resolve) => setTimeout(resolve, 20));
      const replayer = new BlockReplayer(
        chain,
        new ChainSimulator(chain, { gasCap: 10_000_000n, evmTimeoutMs: 5_000 }),
        {
          chainId: 'sei-chain',
          minGasPrice: 1n,
        },
      );
      const pruned = await rejection(replayer.replayBlock(2, () => undefined));
      expect(pruned.code).to.equal(-32000);
      expect(pruned.message).to.match(/^requested height 1 has been pruned; earliest available is \d+$/);
    } finally {
      await node.stop();
    }
  });
});
