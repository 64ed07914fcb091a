import { definePlugin } from '@evmnode/core';
import { deps } from './deps.js';

/** The `txpool` namespace, HTTP-only (decisions.md D2): `txpool_content`. */
export default definePlugin({
  id: 'txpool',
  coreApi: '^2.2.0',
  deps,
  setup: () => import('./setup.js'),
});
