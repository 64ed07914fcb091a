import { definePlugin } from '@evmnode/core';
import { deps, type Deps, type SubscriptionsConfig } from './deps.js';

export type { SubscriptionHub } from './subscription-hub.js';

/** `eth_subscribe` / `eth_unsubscribe` over WebSocket: newHeads and logs, pushed at block commit. */
export default definePlugin<Deps, SubscriptionsConfig>({
  id: 'subscriptions',
  coreApi: '^2.15.0',
  config: {
    max_unpushed_logs: {
      doc:
        'Logs of committed blocks not yet pushed to every subscription, past which a block with logs ' +
        'that grows them closes the connections of the client whose subscriptions cost the push ' +
        'under way the most (1008).',
      format: 'nat',
      default: 100_000,
    },
  },
  deps,
  setup: () => import('./setup.js'),
});
