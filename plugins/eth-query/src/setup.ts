import { availableParallelism } from 'node:os';
import type { PluginSetup } from '@evmnode/core';
import type { Deps } from './deps.js';
import { accountMethods } from './methods/accounts.js';
import { blockMethods } from './methods/blocks.js';
import { chainInfoMethods } from './methods/chain-info.js';
import { feeHistoryMethod } from './methods/fee-history.js';
import { proofMethod } from './methods/proof.js';
import { simulationMethods } from './methods/simulation.js';
import { transactionMethods } from './methods/transactions.js';
import { unsupportedMethods } from './methods/unsupported.js';

const setup: PluginSetup<Deps> = ({ deps, rpc }) => {
  const { chain, views, config } = deps;
  rpc.register([
    ...chainInfoMethods(deps.info, chain),
    feeHistoryMethod(chain, config.evm.max_blocks_for_log),
    ...blockMethods(views),
    ...transactionMethods(chain, deps.pool, views),
    ...accountMethods(chain),
    proofMethod(chain, config.evm.max_proof_keys),
    ...simulationMethods(
      deps.simulator,
      config.evm.max_concurrent_simulation_calls || availableParallelism(),
      config.evm.max_client_share,
    ),
    ...unsupportedMethods(),
  ]);
};

export default setup;
