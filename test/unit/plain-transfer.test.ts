import { expect } from 'chai';
import { createAccessList2930Tx, createFeeMarket1559Tx, createLegacyTx, type TypedTransaction } from '@ethereumjs/tx';
import { Account, Address, hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import { ChainParams, Database, MemoryStore, type DevAccount } from '@evmnode/core';
import {
  ChainStore,
  createBlockVM,
  devAccounts,
  evmCommon,
  executionBlock,
  fastBlockOptions,
  NativeEffects,
  runBlockTransaction,
  runPlainTransfer,
  stateManagerAt,
  TrieNodeStore,
} from '@evmnode/core/internal';

const common = evmCommon(713715n);
const people = devAccounts(3);
const [alice, bob, carol] = people as [DevAccount, DevAccount, DevAccount];
const contract = new Address(hexToBytes('0x00000000000000000000000000000000000000c0'));
const fresh = (n: number): PrefixedHexString => `0x${n.toString(16).padStart(40, '0')}`;
const BASE_FEE = 7n;
const GAS_LIMIT = 12_500_000n;

/** The block every transaction runs in: a small odd base fee, so that fee arithmetic shows in the balances. */
function blockWith(baseFee: bigint) {
  return executionBlock(
    { number: 1n, timestamp: 1n, gasLimit: GAS_LIMIT, baseFee, prevRandao: new Uint8Array(32) },
    fastBlockOptions(common),
  );
}

interface Fees {
  readonly type?: 0 | 1 | 2;
  readonly value?: bigint;
  readonly gasLimit?: bigint;
  readonly data?: PrefixedHexString;
  readonly maxFeePerGas?: bigint;
  readonly tip?: bigint;
}

function transfer(from: { privateKey: PrefixedHexString }, to: PrefixedHexString, nonce: bigint, fees: Fees = {}) {
  const base = {
    to,
    nonce,
    value: fees.value ?? 1_000n,
    gasLimit: fees.gasLimit ?? 21_000n,
    data: fees.data ?? '0x',
    chainId: common.chainId(),
  };
  const key = hexToBytes(from.privateKey);
  const gasPrice = fees.maxFeePerGas ?? 100n;
  if (fees.type === 0) return createLegacyTx({ ...base, gasPrice }, { common }).sign(key);
  if (fees.type === 1) return createAccessList2930Tx({ ...base, gasPrice, accessList: [] }, { common }).sign(key);
  return createFeeMarket1559Tx(
    { ...base, maxFeePerGas: gasPrice, maxPriorityFeePerGas: fees.tip ?? 3n },
    { common },
  ).sign(key);
}

/** Alice, Bob and Carol funded, a contract with code, and an empty account; the root every run starts from. */
async function genesis(nodes: TrieNodeStore): Promise<Uint8Array> {
  const state = stateManagerAt(nodes, common);
  for (const { address } of [alice, bob, carol])
    await state.putAccount(new Address(hexToBytes(address)), new Account(0n, 10n ** 20n));
  await state.putAccount(contract, new Account(1n, 0n));
  await state.putCode(contract, hexToBytes('0x00'));
  await state.putAccount(new Address(hexToBytes(fresh(0xe0))), new Account());
  return state.getStateRoot();
}

/** What one transaction left: its result, or the error its checks threw. */
type Outcome = { gasUsed: bigint; error: string | undefined; logs: number } | { thrown: string };

/**
 * Runs `txs` as the block producer does, within one block checkpoint, with the plain-transfer
 * path or (traced) always through ethereumjs' runTx; resolves to each outcome, the state root
 * and which transactions the plain-transfer path takes.
 */
async function runBlock(txs: readonly TypedTransaction[], traced: boolean, baseFee = BASE_FEE) {
  const nodes = new TrieNodeStore(new MemoryStore());
  const root = await genesis(nodes);
  const state = stateManagerAt(nodes, common, root, { trieNodes: 0, entries: 1_000 });
  const store = new ChainStore(await Database.inMemory());
  const vm = await createBlockVM(
    { common, store, denoms: { base: 'usei', metadata: new Map() } },
    state,
    new NativeEffects(),
  );
  const block = blockWith(baseFee);
  const outcomes: Outcome[] = [];
  const fastPath: boolean[] = [];
  let gasUsed = 0n;
  await state.checkpoint();
  for (const tx of txs) {
    // Whether the plain-transfer path takes it here, its writes then undone.
    await state.checkpoint();
    fastPath.push((await runPlainTransfer(vm, tx, block)) !== undefined);
    await state.revert();
    try {
      const result = await runBlockTransaction(vm, tx, block, gasUsed, traced);
      gasUsed += result.gasUsed;
      outcomes.push({ gasUsed: result.gasUsed, error: result.error, logs: result.logs.length });
    } catch (error) {
      while (state.openCheckpoints > 1) await state.revert();
      outcomes.push({ thrown: (error as Error).message });
    }
  }
  await state.commit();
  return { outcomes, root: await state.getStateRoot(), fastPath };
}

/** The same transactions through both paths: the same outcomes and the same state root. */
async function expectSameAsRunTx(txs: readonly TypedTransaction[], baseFee = BASE_FEE): Promise<boolean[]> {
  const fast = await runBlock(txs, false, baseFee);
  const evm = await runBlock(txs, true, baseFee);
  expect(fast.outcomes).to.deep.equal(evm.outcomes);
  expect(Buffer.from(fast.root).toString('hex')).to.equal(Buffer.from(evm.root).toString('hex'));
  return fast.fastPath;
}

describe('plain transfers without the EVM', () => {
  it('leave the state runTx leaves for each transaction type, to new and existing accounts', async () => {
    const txs = [
      transfer(alice, fresh(0xa1), 0n),
      transfer(alice, bob.address, 1n, { type: 0, value: 5n }),
      transfer(alice, fresh(0xa2), 2n, { type: 1, gasLimit: 50_000n }),
      transfer(bob, alice.address, 0n, { maxFeePerGas: 9n, tip: 5n }),
      transfer(carol, fresh(0xa1), 0n, { value: 0n, gasLimit: 30_000n, maxFeePerGas: 7n }),
    ];
    const taken = await expectSameAsRunTx(txs);
    expect(taken).to.deep.equal([true, true, true, true, true]);
  });

  it('remove an empty recipient of nothing (EIP-161), and pay the fee collector alike', async () => {
    const txs = [
      transfer(alice, fresh(0xa3), 0n, { value: 0n }),
      transfer(alice, fresh(0xe0), 1n, { value: 0n }),
      transfer(alice, ChainParams.feeCollector, 2n, { value: 9n }),
      transfer(alice, alice.address, 3n, { value: 4n }),
    ];
    const taken = await expectSameAsRunTx(txs);
    expect(taken).to.deep.equal([true, true, true, true]);
  });

  it('leave to runTx what the EVM runs, and give its result', async () => {
    const txs = [
      transfer(alice, contract.toString(), 0n, { gasLimit: 60_000n }),
      transfer(alice, '0x0000000000000000000000000000000000000004', 1n, { gasLimit: 60_000n }),
      transfer(alice, bob.address, 2n, { data: '0x01', gasLimit: 60_000n }),
    ];
    const taken = await expectSameAsRunTx(txs);
    expect(taken).to.deep.equal([false, false, false]);
  });

  it('leave to runTx the transactions that fail its checks, which it throws', async () => {
    const txs = [
      transfer(alice, bob.address, 5n),
      transfer(alice, bob.address, 0n, { value: 10n ** 21n }),
      transfer(alice, bob.address, 0n, { maxFeePerGas: 6n }),
      transfer(alice, bob.address, 0n, { gasLimit: GAS_LIMIT + 1n }),
      transfer(alice, bob.address, 0n, { gasLimit: 20_999n }),
      transfer(alice, bob.address, 0n),
    ];
    const fast = await runBlock(txs, false);
    const evm = await runBlock(txs, true);
    expect(fast.outcomes).to.deep.equal(evm.outcomes);
    expect(fast.root).to.deep.equal(evm.root);
    expect(fast.outcomes.slice(0, 5).every((outcome) => 'thrown' in outcome)).to.equal(true);
    expect(fast.outcomes[5]).to.deep.equal({ gasUsed: 21_000n, error: undefined, logs: 0 });
    expect(fast.fastPath).to.deep.equal([false, false, false, false, false, true]);
  });

  it('match runTx over a run of random transfers between a few accounts', async () => {
    let seed = 17;
    const next = (n: number) => (seed = (seed * 48_271) % 2_147_483_647) % n;
    const pick = <T>(items: readonly T[]): T => items[next(items.length)] as T;
    const senders = people.map((account) => ({ account, nonce: 0n }));
    const recipients = [...people.map(({ address }) => address), ...[0, 1, 2, 3].map((n) => fresh(0xb0 + n))];
    const txs: TypedTransaction[] = [];
    for (let i = 0; i < 120; i++) {
      const sender = pick(senders);
      const maxFeePerGas = 7n + BigInt(next(50));
      txs.push(
        transfer(sender.account, pick(recipients), sender.nonce++, {
          type: pick([0, 1, 2] as const),
          value: next(4) === 0 ? 0n : BigInt(next(10 ** 6)),
          gasLimit: 21_000n + BigInt(next(3) * 5_000),
          maxFeePerGas,
          tip: BigInt(next(Number(maxFeePerGas) + 1)),
        }),
      );
    }
    const taken = await expectSameAsRunTx(txs);
    expect(taken.filter(Boolean).length).to.be.greaterThan(0);
    const noBaseFee = await expectSameAsRunTx(txs.slice(0, 30), 0n);
    expect(noBaseFee.filter(Boolean).length).to.be.greaterThan(0);
  });
});
