import { blockViewMethods, transactionViewMethods, type PluginSetup } from '@evmnode/core';
import type { Deps } from './deps.js';

const ext = { prefix: 'ext', view: 'ext' } as const;

const setup: PluginSetup<Deps> = ({ deps, rpc }) => {
  rpc.register([...blockViewMethods(deps.views, ext), ...transactionViewMethods(deps.views, ext)], {
    transports: ['http'],
  });
};

export default setup;
