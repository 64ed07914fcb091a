import { definePlugin } from '@evmnode/core';
import { deps } from './deps.js';

/**
 * The deprecated `ext2_` namespace, HTTP-only (decisions.md D1, D2): blocks, their counts and
 * receipts in the `ext2` view, which adds native bank sends as synthetic transactions. Tag `legacy`.
 */
export default definePlugin({
  id: 'ext2-legacy',
  coreApi: '^2.2.0',
  tags: ['legacy'],
  deps,
  setup: () => import('./setup.js'),
});
