import { parentPort } from 'node:worker_threads';
import { createCustomCommon, Mainnet } from '@ethereumjs/common';
import { createEVM, getActivePrecompiles, type ExecResult, type PrecompileFunc } from '@ethereumjs/evm';
import { kzg, loadKzg } from './kzg.js';
import type { PrecompileJob, PrecompileReply } from './precompile-threads.js';

/** Point evaluation, the one offloaded precompile that needs the KZG trusted setup, loaded on its first call. */
const KZG_POINT_EVALUATION = '0a'.padStart(40, '0');

interface HardforkPrecompiles {
  readonly precompiles: Map<string, PrecompileFunc>;
  readonly input: Pick<Parameters<PrecompileFunc>[0], 'common' | '_EVM'>;
}

// The offloaded precompiles are pure functions of their input and the hardfork's gas parameters:
// a Common of the same hardfork (with the KZG point evaluation verifies with) is all they need of
// the chain.
const byHardfork = new Map<string, Promise<HardforkPrecompiles>>();

async function precompilesOf(hardfork: string): Promise<HardforkPrecompiles> {
  const common = createCustomCommon({}, Mainnet, { hardfork, customCrypto: { kzg } });
  const evm = await createEVM({ common });
  return { precompiles: getActivePrecompiles(common), input: { common, _EVM: evm } };
}

function reply(result: ExecResult): PrecompileReply {
  return {
    executionGasUsed: result.executionGasUsed,
    returnValue: result.returnValue,
    error: result.exceptionError?.error,
  };
}

async function run(job: PrecompileJob): Promise<ExecResult> {
  let loading = byHardfork.get(job.hardfork);
  if (loading === undefined) byHardfork.set(job.hardfork, (loading = precompilesOf(job.hardfork)));
  const { precompiles, input } = await loading;
  const precompile = precompiles.get(job.address);
  if (precompile === undefined) throw new Error(`no precompile at ${job.address} in ${job.hardfork}`);
  if (job.address === KZG_POINT_EVALUATION) await loadKzg();
  return precompile({ ...input, data: job.data, gasLimit: job.gasLimit });
}

parentPort?.on('message', (job: PrecompileJob) => {
  run(job).then(
    (result) => parentPort?.postMessage(reply(result)),
    (error: unknown) => parentPort?.postMessage({ failure: String(error) } satisfies PrecompileReply),
  );
});
