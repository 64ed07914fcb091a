import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { Interface } from 'ethers';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { devWallet, quantity, sign, submit, waitForReceipt } from '../support/chain-kit.js';
import { errorOf, overHttp, resultOf } from '../support/rpc-answers.js';
import { compileContract } from '../support/solidity.js';

const POINT_EVALUATION = '0x000000000000000000000000000000000000000a';

/**
 * An opening that verifies under the mainnet trusted setup: c-kzg-4844's test vector
 * `verify_kzg_proof/kzg-mainnet/verify_kzg_proof_case_correct_proof_31ebd010e6098750`.
 */
const COMMITMENT = '8f59a8d2a1a625a17f3fea0fe5eb8c896db3764f3185481bc22f91b4aaffcca25f26936857bc3a7c2539ea8ec3a952b7';
const Z = '73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000';
const Y = '1522a4a7f34e1ea350ae07c29c96c7e79655aa926122e95fe69fcbd932ca49e9';
const PROOF = 'a62ad71d14c5719385c0686f1871430475bf3a00f0aa3f7b8dd99a9abc2160744faf0070725e00b60ad9a026a15b1a8c';

/** The precompile's input (EIP-4844): versioned hash (0x01, then sha256 of the commitment but its first byte), z, y, commitment, proof. */
function pointEvaluationInput(y: string): string {
  const versionedHash = `01${createHash('sha256').update(Buffer.from(COMMITMENT, 'hex')).digest('hex').slice(2)}`;
  return `0x${versionedHash}${Z}${y}${COMMITMENT}${PROOF}`;
}

const VALID_INPUT = pointEvaluationInput(Y);
/** The same with y = 1: the proof does not open the commitment at z to it. */
const INVALID_INPUT = pointEvaluationInput(`${'00'.repeat(31)}01`);

/** FIELD_ELEMENTS_PER_BLOB (4096) and BLS_MODULUS, each as a 32-byte word (EIP-4844). */
const EXPECTED_OUTPUT =
  '0x0000000000000000000000000000000000000000000000000000000000001000' +
  '73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001';

/** What the precompile charges, whatever its answer. */
const POINT_EVALUATION_GAS = 50_000n;

/** The intrinsic gas of a call with `data`: 21,000 plus 16 per non-zero byte and 4 per zero byte. */
function intrinsicGas(data: string): bigint {
  const bytes = Buffer.from(data.slice(2), 'hex');
  return 21_000n + bytes.reduce((gas, byte) => gas + (byte === 0 ? 4n : 16n), 0n);
}

const caller = compileContract('PointEvaluation');
const callerAbi = new Interface(caller.abi);

describe('KZG point-evaluation precompile (0x0a)', () => {
  let node: TestNode;
  let nonce = 0;
  let callerAddress: string;
  const call = () => overHttp(node.url);
  const send = async (fields: { to: string; data: string; gasLimit: bigint }) =>
    waitForReceipt(node.url, await submit(node.url, await sign(devWallet(0), { nonce: nonce++, ...fields })));

  before(async () => {
    node = await startTestNode({ config: { consensus: { block_time: 100 } } });
    const deployed = await waitForReceipt(
      node.url,
      await submit(node.url, await sign(devWallet(0), { nonce: nonce++, data: caller.bytecode, gasLimit: 1_000_000n })),
    );
    callerAddress = deployed.contractAddress;
  });
  after(() => node.stop());

  it('answers a contract in a transaction with FIELD_ELEMENTS_PER_BLOB and BLS_MODULUS', async () => {
    const receipt = await send({
      to: callerAddress,
      data: callerAbi.encodeFunctionData('evaluate', [VALID_INPUT]),
      gasLimit: 200_000n,
    });
    expect(receipt.status).to.equal('0x1');
    expect(receipt.logs).to.have.length(1);
    expect(callerAbi.parseLog(receipt.logs[0])!.args[0]).to.equal(EXPECTED_OUTPUT);
  });

  it('charges a transaction sent to it its fixed price', async () => {
    const receipt = await send({ to: POINT_EVALUATION, data: VALID_INPUT, gasLimit: 100_000n });
    expect(receipt.status).to.equal('0x1');
    expect(receipt.gasUsed).to.equal(quantity(intrinsicGas(VALID_INPUT) + POINT_EVALUATION_GAS));
  });

  it('fails a transaction whose proof does not verify, and takes all its gas', async () => {
    const direct = await send({ to: POINT_EVALUATION, data: INVALID_INPUT, gasLimit: 100_000n });
    expect(direct.status).to.equal('0x0');
    expect(direct.gasUsed).to.equal(quantity(100_000));
    const throughContract = await send({
      to: callerAddress,
      data: callerAbi.encodeFunctionData('evaluate', [INVALID_INPUT]),
      gasLimit: 200_000n,
    });
    expect(throughContract.status).to.equal('0x0');
    expect(throughContract.logs).to.deep.equal([]);
  });

  it('answers eth_call with the output, and a failed verification in geth words', async () => {
    expect(await resultOf(call(), 'eth_call', [{ to: POINT_EVALUATION, data: VALID_INPUT }, 'latest'])).to.equal(
      EXPECTED_OUTPUT,
    );
    expect(await errorOf(call(), 'eth_call', [{ to: POINT_EVALUATION, data: INVALID_INPUT }, 'latest'])).to.deep.equal({
      code: -32000,
      message: 'error verifying kzg proof',
    });
  });
});
