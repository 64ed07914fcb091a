import { definePlugin, type PluginSetup } from '@evmnode/core';
import { EventLog } from './shared.js';

const deps = { log: EventLog };

const setup: PluginSetup<typeof deps> = ({ deps: { log } }) => {
  log.push('consumer:setup');
  return { start: () => void log.push('consumer:start'), stop: () => void log.push('consumer:stop') };
};

export default definePlugin({
  id: 'consumer',
  coreApi: '^2.0.0',
  dependsOn: ['recorder'],
  deps,
  setup: () => Promise.resolve({ default: setup }),
});
