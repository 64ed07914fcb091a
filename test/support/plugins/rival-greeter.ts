import { definePlugin, type PluginSetup } from '@evmnode/core';
import { Greeter } from './shared.js';

const setup: PluginSetup = ({ provide }) => provide(Greeter, { greet: (name) => `hello, ${name}` });

/** Provides the service greeting-provider provides too. */
export default definePlugin({
  id: 'rival-greeter',
  coreApi: '^2.0.0',
  provides: [Greeter],
  setup: () => Promise.resolve({ default: setup }),
});
