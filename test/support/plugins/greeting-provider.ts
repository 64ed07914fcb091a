import { definePlugin, type PluginSetup } from '@evmnode/core';
import { Greeter } from './shared.js';

const setup: PluginSetup = ({ provide }) => provide(Greeter, { greet: (name) => `gm, ${name}` });

export default definePlugin({
  id: 'greeting-provider',
  coreApi: '^2.0.0',
  provides: [Greeter],
  setup: () => Promise.resolve({ default: setup }),
});
