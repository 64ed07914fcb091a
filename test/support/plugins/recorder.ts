import { definePlugin, type PluginSetup } from '@evmnode/core';
import { EventLog, fixtureEvents } from './shared.js';

const setup: PluginSetup = ({ provide }) => {
  fixtureEvents.push('recorder:setup');
  provide(EventLog, fixtureEvents);
  return {
    start: () => void fixtureEvents.push('recorder:start'),
    stop: () => void fixtureEvents.push('recorder:stop'),
  };
};

export default definePlugin({
  id: 'recorder',
  coreApi: '^2.0.0',
  provides: [EventLog],
  setup: () => Promise.resolve({ default: setup }),
});
