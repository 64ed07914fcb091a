import { defineMethod, definePlugin, string, type PluginSetup } from '@evmnode/core';
import { Greeter } from './shared.js';

const deps = { greeter: Greeter };

const setup: PluginSetup<typeof deps> = ({ deps: { greeter }, rpc }) =>
  rpc.register([defineMethod({ name: 'fixture_greet', params: [string], handler: ([name]) => greeter.greet(name) })]);

/** Needs the provider's service and names no plugin in dependsOn: the order follows from `deps`. */
export default definePlugin({
  id: 'greeting-consumer',
  coreApi: '^2.0.0',
  deps,
  setup: () => Promise.resolve({ default: setup }),
});
