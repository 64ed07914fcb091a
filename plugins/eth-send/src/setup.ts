import type { PluginSetup } from '@evmnode/core';
import type { Deps } from './deps.js';
import { sendRawTransaction } from './methods/send-raw-transaction.js';

const setup: PluginSetup<Deps> = ({ deps, rpc }) => {
  rpc.register([sendRawTransaction(deps.chain, deps.config.evm.slow)]);
};

export default setup;
