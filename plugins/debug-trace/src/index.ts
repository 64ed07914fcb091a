import { definePlugin } from '@evmnode/core';

/** The `debug` namespace, HTTP-only (decisions.md D2). Tag `trace`: `disable_tags = ["trace"]` switches it off. */
export default definePlugin({
  id: 'debug-trace',
  coreApi: '^2.0.0',
  tags: ['trace'],
  setup: () => import('./setup.js'),
});
