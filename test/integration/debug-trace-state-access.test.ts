import { expect } from 'chai';
import { hexlify, Interface, keccak256 } from 'ethers';
import { RLP } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes, bytesToBigInt, bytesToHex, hexToBytes } from '@ethereumjs/util';
import { pointerAddressOf } from '@evmnode/core';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import {
  devWallet,
  FEE_COLLECTOR,
  lower,
  quantity,
  sign,
  submit,
  submitTogether,
  waitForReceipt,
} from '../support/chain-kit.js';
import { nativeSigner, registerPointer } from '../support/native-kit.js';
import { rpc } from '../support/rpc-client.js';

const RECIPIENT = '0x00000000000000000000000000000000000000ee';
const BANK = '0x0000000000000000000000000000000000001001';
const erc20 = new Interface(['function transfer(address to, uint256 value) returns (bool)']);

type Modules = Record<string, { reads: Record<string, string>; writes: Record<string, string> }>;

/** Record key of an account (decisions.md D7's app traces: 0x01 ‖ address). */
const accountKey = (address: string): string => `0x01${lower(address).slice(2)}`;

/**
 * The record `key` names as the node's own state methods answer for it at `height`: an account's
 * nonce, balance and code hash (its storage root has no method), code, or a slot's value without
 * leading zeros.
 */
async function recordAt(node: TestNode, key: string, height: number): Promise<string | string[]> {
  const kind = key.slice(2, 4);
  const address = `0x${key.slice(4, 44)}`;
  const call = async (method: string, params: unknown[]): Promise<string> => {
    const answer = await rpc(node.url, method, params);
    expect(answer.error, `${method} ${JSON.stringify(params)}`).to.equal(undefined);
    return answer.result;
  };
  const block = quantity(height);
  const code = () => call('eth_getCode', [address, block]);
  if (kind === '01') {
    const [nonce, balance] = [
      BigInt(await call('eth_getTransactionCount', [address, block])),
      BigInt(await call('eth_getBalance', [address, block])),
    ];
    const codeHash = keccak256(await code());
    return nonce === 0n && balance === 0n && codeHash === EMPTY_CODE_HASH
      ? '0x'
      : [quantity(nonce), quantity(balance), codeHash];
  }
  if (kind === '02') return code();
  const value = BigInt(await call('eth_getStorageAt', [address, `0x${key.slice(44)}`, block]));
  return value === 0n ? '0x' : bytesToHex(bigIntToUnpaddedBytes(value));
}

/** An access's value as {@link recordAt} gives it: an account's RLP decoded to nonce, balance and code hash. */
function recordOf(key: string, value: string): string | string[] {
  if (!key.startsWith('0x01') || value === '0x') return value;
  const [nonce, balance, , codeHash] = RLP.decode(hexToBytes(value as `0x${string}`)) as Uint8Array[];
  return [quantity(bytesToBigInt(nonce!)), quantity(bytesToBigInt(balance!)), bytesToHex(codeHash!)];
}

const EMPTY_CODE_HASH = keccak256('0x');

/** Every read equals the record before the block, every write the record after it (one transaction per block). */
async function expectAccessesMatchState(node: TestNode, modules: Modules, height: number): Promise<void> {
  for (const [module, { reads, writes }] of Object.entries(modules)) {
    for (const [key, value] of Object.entries(reads)) {
      expect(recordOf(key, value), `${module} read ${key}`).to.deep.equal(await recordAt(node, key, height - 1));
    }
    for (const [key, value] of Object.entries(writes)) {
      expect(recordOf(key, value), `${module} write ${key}`).to.deep.equal(await recordAt(node, key, height));
    }
  }
}

describe('debug-trace: debug_traceStateAccess', function () {
  this.timeout(60_000);
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ config: { consensus: { block_time: 300 } } });
  });
  after(() => node.stop());

  async function traceOf(hash: string) {
    const answer = await rpc(node.url, 'debug_traceStateAccess', [hash]);
    expect(answer.error).to.equal(undefined);
    return answer.result as {
      app: { modules: Modules };
      consensus: { traces: { endpoint: string; arguments: string[]; response: any }[] };
      receipt: { traces: any[] };
    };
  }

  it("lists a transfer's reads and writes of accounts under evm and of its association under addr, as the state before and after its block holds them", async () => {
    const sender = devWallet(3);
    const hash = await submit(node.url, await sign(sender, { nonce: 0, to: RECIPIENT, value: 1000n }));
    const receipt = await waitForReceipt(node.url, hash);
    const height = Number(receipt.blockNumber);
    const { app } = await traceOf(hash);

    // The sender's association record (addr module) is read to know its native address.
    expect(app.modules).to.have.keys('addr', 'evm');
    expect(Object.keys(app.modules.addr!.reads)).to.have.length(1);
    expect(app.modules.addr!.writes).to.deep.equal({});
    const { reads, writes } = app.modules.evm!;
    expect(Object.keys(writes)).to.have.members([
      accountKey(sender.address),
      accountKey(RECIPIENT),
      accountKey(FEE_COLLECTOR),
    ]);
    expect(reads).to.include.keys(accountKey(sender.address), accountKey(RECIPIENT));
    expect(reads[accountKey(RECIPIENT)], 'a new account').to.equal('0x');
    await expectAccessesMatchState(node, app.modules, height);
  });

  it("lists the bank module's records a pointer transfer reads and writes", async () => {
    const registered = await registerPointer(node.node.native, await nativeSigner(devWallet(9).privateKey), 'utest');
    expect(registered.code, registered.log).to.equal(0);
    const data = erc20.encodeFunctionData('transfer', [RECIPIENT, 5n]);
    const hash = await submit(
      node.url,
      await sign(devWallet(0), { nonce: 0, to: hexlify(pointerAddressOf('utest')), data, gasLimit: 200_000n }),
    );
    const receipt = await waitForReceipt(node.url, hash);
    expect(receipt.status).to.equal('0x1');
    const { app } = await traceOf(hash);

    expect(app.modules).to.have.keys('addr', 'bank', 'evm');
    const bankKeys = [...Object.keys(app.modules.bank!.reads), ...Object.keys(app.modules.bank!.writes)];
    // The bank precompile's account holds the module's records: every key names it.
    for (const key of bankKeys) expect(`0x${key.slice(4, 44)}`).to.equal(BANK);
    const balanceWrites = Object.keys(app.modules.bank!.writes).filter((key) => key.startsWith('0x03'));
    expect(balanceWrites, "the sender's and the recipient's utest balances").to.have.length(2);
    await expectAccessesMatchState(node, app.modules, Number(receipt.blockNumber));
  });

  it('names the block and its parent under consensus, and the receipts of the transactions replayed under receipt', async () => {
    const sender = devWallet(5);
    const raws = await Promise.all([0, 1, 2].map((nonce) => sign(sender, { nonce, to: RECIPIENT, value: 1n })));
    const hashes = await submitTogether(node.url, raws);
    const receipts = await Promise.all(hashes.map((hash) => waitForReceipt(node.url, hash)));
    expect(new Set(receipts.map((receipt) => receipt.blockNumber)).size, 'one block').to.equal(1);
    const height = Number(receipts[0].blockNumber);
    const last = receipts.find((receipt) => receipt.transactionIndex === '0x2');
    const { consensus, receipt } = await traceOf(last.transactionHash);

    const block = (await rpc(node.url, 'eth_getBlockByNumber', [quantity(height), false])).result;
    const parent = (await rpc(node.url, 'eth_getBlockByNumber', [quantity(height - 1), false])).result;
    expect(consensus.traces.map(({ endpoint, arguments: args }) => [endpoint, args])).to.deep.equal([
      ['block', [String(height)]],
      ['block', [String(height - 1)]],
    ]);
    expect(consensus.traces.map(({ response }) => [response.hash, response.height, response.stateRoot])).to.deep.equal([
      [block.hash, height, block.stateRoot],
      [parent.hash, height - 1, parent.stateRoot],
    ]);
    const ordered = [...receipts].sort((a, b) => Number(a.transactionIndex) - Number(b.transactionIndex));
    expect(receipt.traces).to.deep.equal(
      ordered.map((stored) => ({
        blockNumber: stored.blockNumber,
        contractAddress: null,
        cumulativeGasUsed: stored.cumulativeGasUsed,
        effectiveGasPrice: stored.effectiveGasPrice,
        from: stored.from,
        to: stored.to,
        gasUsed: stored.gasUsed,
        status: '0x1',
        type: stored.type,
        transactionHash: stored.transactionHash,
        transactionIndex: stored.transactionIndex,
      })),
    );
  });

  it("answers geth's errors for an unknown transaction and a malformed hash", async () => {
    expect((await rpc(node.url, 'debug_traceStateAccess', [`0x${'12'.repeat(32)}`])).error).to.deep.equal({
      code: -32000,
      message: 'transaction not found',
    });
    expect((await rpc(node.url, 'debug_traceStateAccess', ['0x12'])).error?.code).to.equal(-32602);
  });
});
