import { definePlugin, type PluginSetup } from '@evmnode/core';
import { EventLog } from './shared.js';

const setup: PluginSetup = ({ provide }) => provide(EventLog, []);

export default definePlugin({
  id: 'undeclared-provide',
  coreApi: '^2.0.0',
  setup: () => Promise.resolve({ default: setup }),
});
