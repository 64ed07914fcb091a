import { blockViewMethods, type PluginSetup } from '@evmnode/core';
import { excludeTraceFailBlockMethods } from '@evmnode/plugin-ext-legacy';
import type { Deps } from './deps.js';

const setup: PluginSetup<Deps> = ({ deps, rpc }) => {
  const ext2 = { prefix: 'ext2', view: 'ext2' } as const;
  rpc.register(
    [...blockViewMethods(deps.views, ext2), ...excludeTraceFailBlockMethods(deps.views, deps.traces, ext2)],
    {
      transports: ['http'],
    },
  );
};

export default setup;
