import type { PluginSetup } from '@evmnode/core';
import type { Deps } from './deps.js';
import { excludeTraceFailBlockMethods, excludeTraceFailTraceMethods } from './exclude-trace-fail.js';

const setup: PluginSetup<Deps> = ({ deps, rpc }) => {
  rpc.register(
    [
      // ext_'s blocks without synthetic transactions; ext2_'s keep its bank sends.
      ...excludeTraceFailBlockMethods(deps.views, deps.traces, { prefix: 'ext', view: 'eth' }),
      ...excludeTraceFailBlockMethods(deps.views, deps.traces, { prefix: 'ext2', view: 'ext2' }),
      ...excludeTraceFailTraceMethods(deps.views, deps.traces),
    ],
    { transports: ['http'] },
  );
};

export default setup;
