import type { PluginSetup } from '@evmnode/core';
import type { Deps } from './deps.js';
import { rawDataMethods } from './raw-data.js';
import { traceMethods } from './trace-methods.js';
import { DebugTraceTokens, TraceService } from './trace-service.js';

const setup: PluginSetup<Deps> = ({ deps, rpc, provide }) => {
  const { evm } = deps.config;
  const traces = new TraceService(deps.replayer, deps.chain, {
    concurrency: evm.max_concurrent_trace_calls,
    clientShare: evm.max_client_share,
    timeoutMs: evm.trace_timeout,
    lookbackBlocks: evm.max_trace_lookback_blocks,
    jsTracers: evm.trace_allow_js_tracers,
  });
  provide(DebugTraceTokens.TraceService, traces);
  rpc.register([...traceMethods(traces), ...rawDataMethods()], { transports: ['http'] });
};

export default setup;
