import { definePlugin } from '@evmnode/core';
import { deps } from './deps.js';

/**
 * The deprecated ExcludeTraceFail methods of `ext_` and `ext2_` (decisions.md D1), HTTP-only. A
 * plugin of their own, tagged `legacy` and `trace`: they need debug-trace's tracing service, so a
 * node without traces (`disable_tags = ["trace"]`) still runs the other legacy plugins.
 */
export default definePlugin({
  id: 'legacy-trace',
  coreApi: '^2.3.0',
  tags: ['legacy', 'trace'],
  deps,
  setup: () => import('./setup.js'),
});
