import type { PluginSetup } from '@evmnode/core';
import type { DebugTraceConfig, Deps } from './deps.js';
import { rawDataMethods } from './raw-data.js';
import { CachedTraces } from './trace-cache/cached-traces.js';
import { TraceBaker } from './trace-cache/trace-baker.js';
import { TraceStore } from './trace-cache/trace-store.js';
import { traceMethods } from './trace-methods.js';
import { DebugTraceTokens, TraceService } from './trace-service.js';

const setup: PluginSetup<Deps, DebugTraceConfig> = ({ config, deps, logger, rpc, provide }) => {
  const { evm } = deps.config;
  const store = new TraceStore(deps.database);
  const traces = new TraceService(
    deps.replayer,
    deps.chain,
    {
      concurrency: evm.max_concurrent_trace_calls,
      clientShare: evm.max_client_share,
      timeoutMs: evm.trace_timeout,
      lookbackBlocks: evm.max_trace_lookback_blocks,
      jsTracers: evm.trace_allow_js_tracers,
    },
    new CachedTraces(store),
    logger,
    deps.heldAnswers,
  );
  provide(DebugTraceTokens.TraceService, traces);
  rpc.register([...traceMethods(traces), ...rawDataMethods()], { transports: ['http'] });
  if (!config.trace_bake_enabled) return;
  const baker = new TraceBaker(deps.replayer, deps.chain, store, logger, evm.max_trace_lookback_blocks);
  return { start: () => baker.start(), stop: () => baker.stop() };
};

export default setup;
