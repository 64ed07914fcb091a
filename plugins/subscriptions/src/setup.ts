import type { PluginSetup } from '@evmnode/core';
import type { Deps, SubscriptionsConfig } from './deps.js';
import { subscriptionMethods } from './methods.js';
import { SubscriptionHub } from './subscription-hub.js';

const setup: PluginSetup<Deps, SubscriptionsConfig> = ({ config, deps, logger, rpc }) => {
  const { evm } = deps.config;
  const hub = new SubscriptionHub(
    deps.chain,
    {
      maxNewHeads: evm.max_subscriptions_new_head,
      maxLogs: evm.max_subscriptions_logs,
      maxPerConnection: evm.max_subscriptions_per_connection,
      clientShare: evm.max_client_share,
      maxUnpushedLogs: config.max_unpushed_logs,
    },
    logger,
  );
  rpc.register(subscriptionMethods(hub));
  return {
    start: () => hub.start(),
    stop: () => hub.stop(),
  };
};

export default setup;
