import {
  blockViewMethods,
  nonceAndErrorMethods,
  personalSignMethod,
  transactionViewMethods,
  type PluginSetup,
} from '@evmnode/core';
import type { Deps } from './deps.js';
import { addressMethods } from './methods/addresses.js';
import { associateMethod } from './methods/associate.js';
import { nativeTransactionMethods } from './methods/native-transactions.js';
import { extLogMethods } from './methods/logs.js';
import { queryMethods } from './methods/queries.js';

const ext = { prefix: 'ext', view: 'ext' } as const;

const setup: PluginSetup<Deps> = ({ deps, rpc }) => {
  const logs = extLogMethods(deps);
  rpc.register([...blockViewMethods(deps.views, ext), ...transactionViewMethods(deps.views, ext)], {
    transports: ['http'],
  });
  rpc.register(
    [
      ...addressMethods(deps.chain),
      associateMethod(deps.native),
      ...nativeTransactionMethods(deps.chain, deps.native),
      ...nonceAndErrorMethods(deps.chain, deps.pool, 'ext'),
      personalSignMethod(deps.keys, 'ext'),
    ],
    { transports: ['http'] },
  );
  rpc.register(logs.methods, { transports: ['http'] });
  rpc.register(queryMethods(deps), { transports: ['http'] });
  return { start: logs.start, stop: logs.stop };
};

export default setup;
