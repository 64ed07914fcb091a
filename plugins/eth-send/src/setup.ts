import { personalSignMethod, type PluginSetup } from '@evmnode/core';
import type { Deps } from './deps.js';
import { accounts } from './methods/accounts.js';
import { fillTransaction } from './methods/fill-transaction.js';
import { sendRawTransaction } from './methods/send-raw-transaction.js';
import { sendTransaction } from './methods/send-transaction.js';
import { signTransaction } from './methods/sign-transaction.js';

const setup: PluginSetup<Deps> = ({ deps, rpc }) => {
  const { chain, submitter, pool, config, keys, simulator } = deps;
  const services = { chain, pool, simulator, minGasPrice: BigInt(config.mempool.min_gas_price) };
  rpc.register([
    sendRawTransaction(submitter, config.evm.slow),
    sendTransaction(keys, { ...services, submitter }, config.evm.slow),
    signTransaction(keys, services),
    personalSignMethod(keys, 'eth'),
    accounts(keys),
    fillTransaction(services),
  ]);
};

export default setup;
