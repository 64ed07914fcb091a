import type { PluginSetup } from '@evmnode/core';
import type { Deps } from './deps.js';
import { subscriptionMethods } from './methods.js';
import { SubscriptionHub } from './subscription-hub.js';

const setup: PluginSetup<Deps> = ({ deps, rpc }) => {
  const hub = new SubscriptionHub(deps.chain, deps.config.evm.max_subscriptions_new_head);
  rpc.register(subscriptionMethods(hub));
  return {
    start: () => hub.start(),
    stop: () => hub.stop(),
  };
};

export default setup;
