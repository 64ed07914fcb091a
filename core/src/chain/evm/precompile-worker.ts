import { parentPort } from 'node:worker_threads';
import { createEVM, getActivePrecompiles, type ExecResult } from '@ethereumjs/evm';
import { evmCommon } from './evm-common.js';
import type { PrecompileJob, PrecompileReply } from './precompile-threads.js';

// The offloaded precompiles are pure functions of their input and the hardfork's gas parameters:
// the chain id does not matter here.
const common = evmCommon(1n);
const evm = await createEVM({ common });
const precompiles = getActivePrecompiles(common);

function reply(job: PrecompileJob, result: ExecResult): PrecompileReply {
  return {
    executionGasUsed: result.executionGasUsed,
    returnValue: result.returnValue,
    error: result.exceptionError?.error,
  };
}

parentPort?.on('message', (job: PrecompileJob) => {
  const precompile = precompiles.get(job.address);
  if (precompile === undefined) {
    parentPort?.postMessage({ failure: `no precompile at ${job.address}` } satisfies PrecompileReply);
    return;
  }
  Promise.resolve(precompile({ data: job.data, gasLimit: job.gasLimit, common, _EVM: evm }))
    .then((result) => parentPort?.postMessage(reply(job, result)))
    .catch((error: unknown) => parentPort?.postMessage({ failure: String(error) } satisfies PrecompileReply));
});
