import { definePlugin } from '@evmnode/core';
import { deps } from './deps.js';

export type { SubscriptionHub } from './subscription-hub.js';

/** `eth_subscribe` / `eth_unsubscribe` over WebSocket: newHeads and logs, pushed at block commit. */
export default definePlugin({
  id: 'subscriptions',
  coreApi: '^2.0.0',
  deps,
  setup: () => import('./setup.js'),
});
