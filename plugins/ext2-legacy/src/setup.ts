import { blockViewMethods, type PluginSetup } from '@evmnode/core';
import type { Deps } from './deps.js';

const setup: PluginSetup<Deps> = ({ deps, rpc }) => {
  rpc.register(blockViewMethods(deps.views, { prefix: 'ext2', view: 'ext2' }), { transports: ['http'] });
};

export default setup;
