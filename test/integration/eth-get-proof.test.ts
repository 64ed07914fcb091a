import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { AbiCoder, ContractFactory, Interface, decodeRlp, encodeRlp, getCreateAddress, keccak256 } from 'ethers';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { testToken } from '@evmnode/tools/contracts/test-token';
import { InvalidProofError, verifyProofResult, type ProofResult } from '@evmnode/tools/proof/verify-proof';
import { ETHER, GWEI, devWallet, lower, quantity, sign, submit, waitForReceipt } from '../support/chain-kit.js';
import { rpc } from '../support/rpc-client.js';

// eth_getProof answers in the chain's own form (interface.md §2.7: address, hexValues, storageProof
// operations), not EIP-1186's account proof: a documented chain difference, so its results are
// not validated against the execution-apis schema, which describes the EIP-1186 shape.

const PROOF_TYPE = 'evmnode:mpt-storage';
/** TestToken's storage layout: name, symbol, totalSupply, balanceOf, allowance. */
const NAME_SLOT = `0x${'00'.repeat(32)}`;
const TOTAL_SUPPLY_SLOT = `0x${'00'.repeat(31)}02`;
const BALANCE_OF_SLOT = 3;
const NOBODY = '0x00000000000000000000000000000000000000ee';
const CLI = fileURLToPath(new URL('../../../tools/dist/proof/verify-proof-cli.js', import.meta.url));

/** The storage slot of `balanceOf[owner]`. */
const balanceSlot = (owner: string): string =>
  keccak256(AbiCoder.defaultAbiCoder().encode(['address', 'uint256'], [owner, BALANCE_OF_SLOT]));

/** A stored word as hexValues writes it: 64 hex digits without 0x. */
const word = (value: bigint): string => value.toString(16).padStart(64, '0');

/** The 32-byte value, as the verifier returns it. */
const bytes32 = (value: bigint): Uint8Array => Uint8Array.from(Buffer.from(word(value), 'hex'));

/** The error a promise rejects with. */
async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('eth_getProof', () => {
  const deployer = devWallet(7);
  const recipient = lower(devWallet(8).address);
  const supply = 1_000_000n * ETHER;
  const sent = 250n * ETHER;
  let node: TestNode;
  let token: string;
  let deployHeight: number;
  let transferHeight: number;

  const getProof = async (params: unknown[]): Promise<ProofResult> => {
    const answer = await rpc(node.url, 'eth_getProof', params);
    expect(answer.error, `eth_getProof: ${JSON.stringify(answer.error)}`).to.equal(undefined);
    return answer.result;
  };
  const blockAt = async (height: number): Promise<{ hash: string; stateRoot: `0x${string}` }> =>
    (await rpc(node.url, 'eth_getBlockByNumber', [quantity(height), false])).result;
  const stateRootAt = async (height: number): Promise<`0x${string}`> => (await blockAt(height)).stateRoot;

  before(async () => {
    // Blocks only when transactions arrive, so that `latest` stays at the last transfer.
    node = await startTestNode({ config: { consensus: { block_time: 50, create_empty_blocks: false } } });
    const { abi, bytecode } = testToken();
    const fees = { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI };
    const { data } = await new ContractFactory(abi, bytecode).getDeployTransaction('Test', 'TST', supply);
    const deployment = await sign(deployer, { nonce: 0, to: null, data, gasLimit: 2_000_000n, ...fees });
    deployHeight = Number((await waitForReceipt(node.url, await submit(node.url, deployment))).blockNumber);
    token = lower(getCreateAddress({ from: deployer.address, nonce: 0 }));
    const transfer = await sign(deployer, {
      nonce: 1,
      to: token,
      data: new Interface(abi).encodeFunctionData('transfer', [recipient, sent]),
      gasLimit: 100_000n,
      ...fees,
    });
    transferHeight = Number((await waitForReceipt(node.url, await submit(node.url, transfer))).blockNumber);
  });
  after(() => node.stop());

  it('proves balance slots at latest: one {type, key, data} operation per key, which the verifier accepts', async () => {
    const keys = [balanceSlot(deployer.address), balanceSlot(recipient)];
    const result = await getProof([token, keys, 'latest']);
    expect(Object.keys(result)).to.deep.equal(['address', 'hexValues', 'storageProof']);
    expect(result.address).to.equal(token);
    expect(result.hexValues).to.deep.equal([word(supply - sent), word(sent)]);
    expect(result.storageProof).to.have.length(2);
    result.storageProof.forEach((op, index) => {
      expect(Object.keys(op)).to.deep.equal(['type', 'key', 'data']);
      expect(op.type).to.equal(PROOF_TYPE);
      expect(op.key).to.equal(keys[index]);
      // data is the RLP list [account proof nodes, storage proof nodes].
      const [accountNodes, storageNodes] = decodeRlp(op.data) as string[][];
      expect(accountNodes!.length).to.be.at.least(1);
      expect(storageNodes!.length).to.be.at.least(1);
    });
    expect(node.node.chain.head().height).to.equal(transferHeight);
    expect(await verifyProofResult(result, await stateRootAt(transferHeight))).to.deep.equal([
      bytes32(supply - sent),
      bytes32(sent),
    ]);
  });

  it('proves the value at a past height, by number, hash and EIP-1898 object', async () => {
    const keys = [balanceSlot(deployer.address), balanceSlot(recipient)];
    const deployBlock = await blockAt(deployHeight);
    const past = await getProof([token, keys, quantity(deployHeight)]);
    expect(past.hexValues).to.deep.equal([word(supply), '']);
    expect(await verifyProofResult(past, deployBlock.stateRoot)).to.deep.equal([bytes32(supply), bytes32(0n)]);
    for (const ref of [deployBlock.hash, { blockHash: deployBlock.hash }, { blockNumber: quantity(deployHeight) }]) {
      expect(await getProof([token, keys, ref]), JSON.stringify(ref)).to.deep.equal(past);
    }
    const later = await getProof([token, keys, quantity(transferHeight)]);
    expect(later.hexValues).to.deep.equal([word(supply - sent), word(sent)]);
    // A proof holds for its own block only.
    const error = await rejectionOf(verifyProofResult(past, await stateRootAt(transferHeight)));
    expect(error).to.be.instanceOf(InvalidProofError);
    expect(error.message).to.equal(`the account proof does not match its root ${await stateRootAt(transferHeight)}`);
  });

  it('proves unset slots, accounts without storage and missing accounts as empty values', async () => {
    const unset = balanceSlot(NOBODY);
    for (const [owner, height] of [
      [token, transferHeight],
      [token, deployHeight - 1], // before the contract existed
      [lower(devWallet(0).address), 0], // genesis account, no storage
      [NOBODY, transferHeight], // no account at all
    ] as const) {
      const result = await getProof([owner, [unset, TOTAL_SUPPLY_SLOT], quantity(height)]);
      const expected = owner === token && height === transferHeight ? word(supply) : '';
      expect(result.hexValues, `${owner} at ${height}`).to.deep.equal(['', expected]);
      expect(await verifyProofResult(result, await stateRootAt(height))).to.deep.equal([
        bytes32(0n),
        expected === '' ? bytes32(0n) : bytes32(supply),
      ]);
    }
  });

  it("reads keys as geth's decodeHash does: 0x optional, odd length padded, at most 32 bytes", async () => {
    const forms = ['0x2', '2', '0X02', '0x0000000000000000000000000000000000000000000000000000000000000002'];
    const result = await getProof([token, forms, quantity(transferHeight)]);
    expect(result.hexValues).to.deep.equal(forms.map(() => word(supply)));
    expect(result.storageProof.map((op) => op.key)).to.deep.equal(forms.map(() => TOTAL_SUPPLY_SLOT));
    // `name` ("Test") is stored inline in slot 0: the bytes, then twice the length.
    const name = await getProof([token, ['0x', '', '0x0'], quantity(transferHeight)]);
    expect(name.hexValues).to.deep.equal(Array(3).fill(`54657374${'00'.repeat(27)}08`));
    expect(name.storageProof.map((op) => op.key)).to.deep.equal(Array(3).fill(NAME_SLOT));
    // An explicit null is no keys, as Go decodes it.
    expect(await getProof([token, null])).to.deep.equal({ address: token, hexValues: [], storageProof: [] });
  });

  it('rejects tampered proofs', async () => {
    const key = balanceSlot(deployer.address);
    const stateRoot = await stateRootAt(transferHeight);
    const proof = await getProof([token, [key], quantity(transferHeight)]);
    const op = proof.storageProof[0]!;
    const [accountNodes, storageNodes] = decodeRlp(op.data) as string[][];
    const flipLastByte = (node: string): string => `${node.slice(0, -2)}${node.endsWith('00') ? '01' : '00'}`;
    const withData = (account: string[], storage: string[]) => ({
      ...proof,
      storageProof: [{ ...op, data: encodeRlp([account, storage]) }],
    });
    const leafTampered = withData(accountNodes!, [...storageNodes!.slice(0, -1), flipLastByte(storageNodes!.at(-1)!)]);
    const rootTampered = withData([flipLastByte(accountNodes![0]!), ...accountNodes!.slice(1)], storageNodes!);
    const cases: [unknown, string | RegExp][] = [
      [leafTampered, /^the storage proof does not match its root 0x[0-9a-f]{64}$/],
      [rootTampered, `the account proof does not match its root ${stateRoot}`],
      [withData(accountNodes!, []), /^the storage proof does not match its root 0x[0-9a-f]{64}$/],
      [
        { ...proof, hexValues: [word(supply)] },
        `hexValues[0] is "${word(supply)}"; the proof shows "${word(supply - sent)}"`,
      ],
      [{ ...proof, storageProof: [{ ...op, type: 'ics23:iavl' }] }, 'unknown proof operation type "ics23:iavl"'],
      [{ ...proof, storageProof: [{ ...op, key: '0x02' }] }, 'proof key 0x02 is not 32 bytes of hex'],
      [{ ...proof, storageProof: [{ ...op, data: '0x1234' }] }, 'proof data is not RLP'],
      [
        { ...proof, storageProof: [{ ...op, data: encodeRlp([accountNodes!]) }] },
        'proof data is not an RLP list [accountProof, storageProof]',
      ],
      [
        { ...proof, storageProof: [{ ...op, key: TOTAL_SUPPLY_SLOT }] },
        /the storage proof does not match|hexValues\[0\]/,
      ],
    ];
    for (const [tampered, message] of cases) {
      const error = await rejectionOf(verifyProofResult(tampered as any, stateRoot));
      expect(error, JSON.stringify(tampered)).to.be.instanceOf(InvalidProofError);
      if (typeof message === 'string') expect(error.message).to.equal(message);
      else expect(error.message).to.match(message);
    }
    expect(await verifyProofResult(proof, stateRoot)).to.deep.equal([bytes32(supply - sent)]);
  });

  it('verifies with the verify-proof command against the block it names', async () => {
    // Asynchronously: the node answers from this process.
    const run = async (...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> => {
      try {
        return { status: 0, ...(await promisify(execFile)(process.execPath, [CLI, node.url, ...args])) };
      } catch (error) {
        const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
        return { status: code, stdout, stderr };
      }
    };
    const key = balanceSlot(recipient);
    const ok = await run(token, key, quantity(transferHeight));
    expect(ok.stderr).to.equal('');
    expect(ok.status).to.equal(0);
    expect(JSON.parse(ok.stdout)).to.deep.equal({
      block: transferHeight,
      stateRoot: await stateRootAt(transferHeight),
      address: token,
      key,
      value: `0x${word(sent)}`,
    });
    const past = await run(token, key, quantity(deployHeight));
    expect(JSON.parse(past.stdout).value).to.equal(`0x${'00'.repeat(32)}`);
    const future = quantity(transferHeight + 1000);
    const missing = await run(token, key, future);
    expect([missing.status, missing.stdout, missing.stderr]).to.deep.equal([1, '', `no block ${future}\n`]);
  });

  it('refuses more keys than [evm] max_proof_keys with -32000, before reading any key', async () => {
    const keys = Array.from({ length: 100 }, (_, index) => quantity(index));
    expect((await getProof([token, keys])).hexValues).to.have.length(100);
    expect((await rpc(node.url, 'eth_getProof', [token, [...keys, '0x64']])).error).to.deep.equal({
      code: -32000,
      message: 'too many storage keys: got 101, max 100',
    });
    expect((await rpc(node.url, 'eth_getProof', [token, [...keys, 'not hex']])).error.message).to.equal(
      'too many storage keys: got 101, max 100',
    );
    const small = await startTestNode({ config: { evm: { max_proof_keys: 2 } } });
    try {
      expect((await rpc(small.url, 'eth_getProof', [token, ['0x0', '0x1']])).result.hexValues).to.have.length(2);
      expect((await rpc(small.url, 'eth_getProof', [token, ['0x0', '0x1', '0x2']])).error).to.deep.equal({
        code: -32000,
        message: 'too many storage keys: got 3, max 2',
      });
    } finally {
      await small.stop();
    }
  });

  it('answers bad arguments as geth does', async () => {
    const cases: [unknown[], { code: number; message: string }][] = [
      // The execution-apis fixtures' keys (get-storage-invalid-key*.io), with geth 1.16's wording.
      [
        [token, [`0x${'0'.repeat(65)}`]],
        { code: -32000, message: 'unable to decode storage key: hex string too long, want at most 32 bytes' },
      ],
      [[token, ['0xasdf']], { code: -32000, message: 'unable to decode storage key: hex string invalid' }],
      [
        [token, ['0x0', 5]],
        { code: -32602, message: 'invalid argument 1: json: cannot unmarshal number into Go value of type string' },
      ],
      [
        [token, '0x0'],
        { code: -32602, message: 'invalid argument 1: json: cannot unmarshal string into Go value of type []string' },
      ],
      [
        [token.slice(0, -2), []],
        { code: -32602, message: 'invalid argument 0: hex string has length 38, want 40 for common.Address' },
      ],
      [[token], { code: -32602, message: 'missing value for required argument 1' }],
      [[token, [], 'latest', 1], { code: -32602, message: 'too many arguments, want at most 3' }],
      [[token, [], `0x${'ab'.repeat(32)}`], { code: -32001, message: 'block not found by hash' }],
      [[token, [], { blockHash: `0x${'ab'.repeat(32)}` }], { code: -32001, message: 'block not found by hash' }],
    ];
    for (const [params, error] of cases) {
      expect((await rpc(node.url, 'eth_getProof', params)).error, JSON.stringify(params)).to.deep.equal(error);
    }
    const future = await rpc(node.url, 'eth_getProof', [token, [], '0xffffff']);
    expect(future.error).to.deep.equal({
      code: -32000,
      message: `requested height 16777215 is not yet available; safe latest is ${transferHeight}`,
    });
  });
});
