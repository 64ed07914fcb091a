import { blockViewMethods, transactionViewMethods, type PluginSetup } from '@evmnode/core';
import type { Deps } from './deps.js';
import { queryMethods } from './methods/queries.js';

const ext = { prefix: 'ext', view: 'ext' } as const;

const setup: PluginSetup<Deps> = ({ deps, rpc }) => {
  rpc.register([...blockViewMethods(deps.views, ext), ...transactionViewMethods(deps.views, ext)], {
    transports: ['http'],
  });
  rpc.register(queryMethods(deps), { transports: ['http'] });
};

export default setup;
