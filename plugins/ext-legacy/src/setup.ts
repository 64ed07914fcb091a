import { blockViewMethods, transactionViewMethods, type PluginSetup } from '@evmnode/core';
import type { Deps } from './deps.js';
import { extLogMethods } from './methods/logs.js';

const ext = { prefix: 'ext', view: 'ext' } as const;

const setup: PluginSetup<Deps> = ({ deps, rpc }) => {
  const logs = extLogMethods(deps);
  rpc.register([...blockViewMethods(deps.views, ext), ...transactionViewMethods(deps.views, ext)], {
    transports: ['http'],
  });
  rpc.register(logs.methods, { transports: ['http'] });
  return { start: logs.start, stop: logs.stop };
};

export default setup;
