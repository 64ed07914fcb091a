import { expect } from 'chai';
import { getCreateAddress, Interface } from 'ethers';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { without, withoutCodeHash, withoutEmpty, type StateMap } from '../support/anvil-differences.js';
import { mineOnBoth, startAnvil, type AnvilPeer } from '../support/anvil-peer.js';
import { devWallet, ETHER, FEE_COLLECTOR, lower, quantity, sign, type TxFields } from '../support/chain-kit.js';
import { rpc } from '../support/rpc-client.js';
import { compileContract } from '../support/solidity.js';

const token = compileContract('PrestateToken');
const probe = compileContract('PrestateProbe');
const tokenAbi = new Interface(token.abi);
const probeAbi = new Interface(probe.abi);

const ZERO_WORD = `0x${'0'.repeat(64)}`;

type Diff = { post: StateMap; pre: StateMap };

/** The trace of `hash` on the node at `url`, which must succeed. */
async function prestateOf(url: string, hash: string, tracerConfig: object = {}): Promise<any> {
  const answer = await rpc(url, 'debug_traceTransaction', [hash, { tracer: 'prestateTracer', tracerConfig }]);
  expect(answer.error, JSON.stringify(answer.error)).to.equal(undefined);
  return answer.result;
}

describe('debug_traceTransaction with prestateTracer', function () {
  this.timeout(120_000);
  let node: TestNode;
  let anvil: AnvilPeer;
  const sender = devWallet(5);
  const from = lower(sender.address);
  const tokenAt = lower(getCreateAddress({ from, nonce: 0 }));
  const probeAt = lower(getCreateAddress({ from, nonce: 1 }));
  // The probe's nonce is 1 once deployed (EIP-161): its first creation gets nonce 1.
  const doomedAt = lower(getCreateAddress({ from: probeAt, nonce: 1 }));
  const recipient = '0x1111111111111111111111111111111111111111';
  const beneficiary = '0x2222222222222222222222222222222222222222';
  /** Each transaction's hash, the same on both nodes: the same signed bytes go to both. */
  const hashes: Record<string, string> = {};
  let nonce = 0;

  /** Signs a legacy transaction (the same gas price on both nodes) and has both nodes mine it. */
  async function send(name: string, fields: Omit<TxFields, 'nonce'>): Promise<void> {
    const raw = await sign(sender, { type: 0, gasLimit: 1_000_000n, ...fields, nonce: nonce++ });
    hashes[name] = await mineOnBoth(node.url, anvil, raw);
  }

  /** The COINBASE anvil mined `hash` with. */
  async function anvilCoinbase(hash: string): Promise<string> {
    const receipt = (await rpc(anvil.url, 'eth_getTransactionReceipt', [hash])).result;
    return (await rpc(anvil.url, 'eth_getBlockByHash', [receipt.blockHash, false])).result.miner;
  }

  /** evmnode's balance of `address` before `hash` ran: at its parent block, as each block here holds one transaction. */
  async function balanceBefore(address: string, hash: string): Promise<bigint> {
    const receipt = (await rpc(node.url, 'eth_getTransactionReceipt', [hash])).result;
    const parent = quantity(BigInt(receipt.blockNumber) - 1n);
    return BigInt((await rpc(node.url, 'eth_getBalance', [address, parent])).result);
  }

  /**
   * Both nodes' default traces of `hash`, normalised. The coinbase differs: evmnode's is the fee
   * collector, which gets the whole fee (decisions.md D4), anvil's another account that gets the tip
   * only. So evmnode's coinbase entry is checked here to be its balance before the transaction, then
   * both coinbases are left out; the fee collector shows no code, nonce or storage to compare.
   */
  async function bothPrestates(name: string, tracerConfig: object = {}): Promise<[StateMap, StateMap]> {
    const hash = hashes[name]!;
    const ours = (await prestateOf(node.url, hash, tracerConfig)) as StateMap;
    const theirs = (await prestateOf(anvil.url, hash, tracerConfig)) as StateMap;
    expect(ours[FEE_COLLECTOR]).to.deep.equal({ balance: quantity(await balanceBefore(FEE_COLLECTOR, hash)) });
    return [withoutCodeHash(without(ours, FEE_COLLECTOR)), without(theirs, await anvilCoinbase(hash))];
  }

  /** Both nodes' diffs of `hash`, normalised as {@link bothPrestates}; evmnode's fee collector gains the whole fee. */
  async function bothDiffs(name: string): Promise<[Diff, Diff]> {
    const hash = hashes[name]!;
    const ours = (await prestateOf(node.url, hash, { diffMode: true })) as Diff;
    const theirs = (await prestateOf(anvil.url, hash, { diffMode: true })) as Diff;
    const receipt = (await rpc(node.url, 'eth_getTransactionReceipt', [hash])).result;
    const before = await balanceBefore(FEE_COLLECTOR, hash);
    const fee = BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice);
    expect(ours.pre[FEE_COLLECTOR]).to.deep.equal({ balance: quantity(before) });
    expect(ours.post[FEE_COLLECTOR]).to.deep.equal({ balance: quantity(before + fee) });
    const coinbase = await anvilCoinbase(hash);
    return [
      {
        post: withoutCodeHash(without(ours.post, FEE_COLLECTOR)),
        pre: withoutCodeHash(without(ours.pre, FEE_COLLECTOR)),
      },
      { post: without(theirs.post, coinbase), pre: withoutEmpty(without(theirs.pre, coinbase)) },
    ];
  }

  before(async () => {
    [node, anvil] = await Promise.all([startTestNode(), startAnvil()]);
    await send('deployToken', { data: token.bytecode + tokenAbi.encodeDeploy([1000n]).slice(2) });
    await send('deployProbe', { data: probe.bytecode });
    await send('fundProbe', { to: tokenAt, data: tokenAbi.encodeFunctionData('transfer', [probeAt, 100n]) });
    await send('transfer', { to: recipient, value: ETHER, gasLimit: 21_000n });
    await send('erc20', { to: tokenAt, data: tokenAbi.encodeFunctionData('transfer', [recipient, 10n]) });
    await send('relay', { to: probeAt, data: probeAbi.encodeFunctionData('relay', [tokenAt, recipient, 5n]) });
    await send('create', { to: probeAt, value: ETHER, data: probeAbi.encodeFunctionData('create') });
    await send('destroy', {
      to: doomedAt,
      data: new Interface(['function destroy(address)']).encodeFunctionData('destroy', [beneficiary]),
    });
    await send('clear', { to: probeAt, data: probeAbi.encodeFunctionData('clear') });
  });

  after(async () => {
    await Promise.all([node?.stop(), anvil?.stop()]);
  });

  it('reads the sender before it buys its gas', async () => {
    const hash = hashes['transfer']!;
    const ours = await prestateOf(node.url, hash);
    expect(ours[from]).to.deep.equal({ balance: quantity(await balanceBefore(from, hash)), nonce: 3 });
  });

  // anvil keeps the accounts that were empty before the transaction, as geth did before `includeEmpty`:
  // evmnode's are compared with `includeEmpty`, and its default checked to leave exactly those out.
  for (const name of ['transfer', 'erc20', 'relay', 'deployProbe', 'create', 'destroy']) {
    it(`gives anvil's prestate for ${name}`, async () => {
      const [ours, theirs] = await bothPrestates(name, { includeEmpty: true });
      expect(ours).to.deep.equal(theirs);
    });
  }

  for (const [name, empty] of [
    ['transfer', recipient],
    ['deployProbe', probeAt],
    ['create', doomedAt],
    ['destroy', beneficiary],
  ] as const) {
    it(`leaves out the account empty before ${name} unless includeEmpty`, async () => {
      const withEmpty = await prestateOf(node.url, hashes[name]!, { includeEmpty: true });
      expect(withEmpty).to.have.property(empty);
      expect(await prestateOf(node.url, hashes[name]!)).to.deep.equal(without(withEmpty, empty));
    });
  }

  for (const tracerConfig of [{ disableCode: true }, { disableStorage: true }]) {
    it(`gives anvil's prestate with ${JSON.stringify(tracerConfig)}`, async () => {
      const [ours, theirs] = await bothPrestates('relay', { ...tracerConfig, includeEmpty: true });
      expect(ours).to.deep.equal(theirs);
    });
  }

  it("gives anvil's prestate for debug_traceCall", async () => {
    const call = { from, to: tokenAt, data: tokenAbi.encodeFunctionData('transfer', [beneficiary, 1n]) };
    const config = { tracer: 'prestateTracer', tracerConfig: { includeEmpty: true } };
    const [ours, theirs] = await Promise.all(
      [node.url, anvil.url].map(async (url) => (await rpc(url, 'debug_traceCall', [call, 'latest', config])).result),
    );
    const coinbase = (await rpc(anvil.url, 'eth_getBlockByNumber', ['latest', false])).result.miner;
    expect(withoutCodeHash(without(ours, FEE_COLLECTOR))).to.deep.equal(without(theirs, coinbase));
  });

  it('refuses diffMode with includeEmpty', async () => {
    const answer = await rpc(node.url, 'debug_traceTransaction', [
      hashes['erc20'],
      { tracer: 'prestateTracer', tracerConfig: { diffMode: true, includeEmpty: true } },
    ]);
    expect(answer.error).to.deep.equal({ code: -32000, message: 'cannot use diffMode with includeEmpty' });
  });

  it("gives anvil's diff for a SELFDESTRUCT, the destroyed account in pre only", async () => {
    const [ours, theirs] = await bothDiffs('destroy');
    // anvil applies EIP-6780 (a contract not created in the transaction survives its SELFDESTRUCT)
    // and shows it in post; geth (tracers.md) keeps a self-destructed account in pre only.
    expect(theirs.post[doomedAt]).to.deep.equal({ balance: '0x0' });
    expect(ours).to.deep.equal({ post: without(theirs.post, doomedAt), pre: theirs.pre });
    expect(ours.pre[doomedAt]!['balance']).to.equal(quantity(ETHER));
    expect(ours.post[beneficiary]).to.deep.equal({ balance: quantity(ETHER) });
  });

  for (const name of ['transfer', 'relay', 'deployProbe', 'create']) {
    it(`gives anvil's diff for ${name}`, async () => {
      const [ours, theirs] = await bothDiffs(name);
      expect(ours).to.deep.equal(theirs);
    });
  }

  it("gives anvil's diff for an ERC-20 transfer", async () => {
    const [ours, theirs] = await bothDiffs('erc20');
    expect(ours).to.deep.equal(theirs);
    expect(Object.keys(ours.post).sort()).to.deep.equal([from, tokenAt].sort());
  });

  it("gives anvil's diff for a deleted slot: in pre only", async () => {
    const [ours, theirs] = await bothDiffs('clear');
    expect(ours).to.deep.equal(theirs);
    expect(ours.pre[probeAt]!['storage']).to.deep.equal({ [ZERO_WORD]: `0x${'1'.padStart(64, '0')}` });
    // Changed, so in post, but with nothing to show: the slot is zero now.
    expect(ours.post[probeAt]).to.deep.equal({});
  });
});
