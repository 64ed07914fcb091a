import { definePlugin } from '@evmnode/core';
import { deps, type DebugTraceConfig, type Deps } from './deps.js';
import { DebugTraceTokens } from './trace-service.js';

export { blockTraceJson } from './block-trace-json.js';
export { DebugTraceTokens } from './trace-service.js';
export { traceConfig, type TraceConfig } from './trace-config.js';
export type { BlockTraceEntry, TraceRequest, TraceService } from './trace-service.js';

/**
 * The `debug` namespace, HTTP-only (decisions.md D2): geth's tracers over committed blocks and
 * simulated calls. Tag `trace`: `disable_tags = ["trace"]` switches it off.
 */
export default definePlugin<Deps, DebugTraceConfig>({
  id: 'debug-trace',
  coreApi: '^2.16.0',
  tags: ['trace'],
  config: {
    trace_bake_enabled: {
      doc:
        'Compute callTracer, prestateTracer and flatCallTracer traces of each block in the background ' +
        'as it commits, and serve them from storage.',
      format: Boolean,
      default: true,
    },
  },
  deps,
  provides: [DebugTraceTokens.TraceService],
  setup: () => import('./setup.js'),
});
