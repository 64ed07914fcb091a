import { definePlugin } from '@evmnode/core';
import { deps } from './deps.js';
import { DebugTraceTokens } from './trace-service.js';

export { DebugTraceTokens } from './trace-service.js';
export type { BlockTraceEntry, TraceRequest, TraceService } from './trace-service.js';

/**
 * The `debug` namespace, HTTP-only (decisions.md D2): geth's tracers over committed blocks and
 * simulated calls. Tag `trace`: `disable_tags = ["trace"]` switches it off.
 */
export default definePlugin({
  id: 'debug-trace',
  coreApi: '^2.0.0',
  tags: ['trace'],
  deps,
  provides: [DebugTraceTokens.TraceService],
  setup: () => import('./setup.js'),
});
