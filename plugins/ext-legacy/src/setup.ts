import { blockViewMethods, transactionViewMethods, type PluginSetup } from '@evmnode/core';
import type { Deps } from './deps.js';
import { excludeTraceFailBlockMethods, excludeTraceFailTraceMethods } from './methods/exclude-trace-fail.js';
import { extLogMethods } from './methods/logs.js';

const ext = { prefix: 'ext', view: 'ext' } as const;

const setup: PluginSetup<Deps> = ({ deps, rpc }) => {
  const logs = extLogMethods(deps);
  rpc.register([...blockViewMethods(deps.views, ext), ...transactionViewMethods(deps.views, ext)], {
    transports: ['http'],
  });
  rpc.register(logs.methods, { transports: ['http'] });
  rpc.register(
    [
      ...excludeTraceFailBlockMethods(deps.views, deps.traces, { prefix: 'ext', view: 'eth' }),
      ...excludeTraceFailTraceMethods(deps.views, deps.traces),
    ],
    { transports: ['http'] },
  );
  return { start: logs.start, stop: logs.stop };
};

export default setup;
