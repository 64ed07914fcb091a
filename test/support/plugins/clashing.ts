import { defineMethod, definePlugin, type PluginSetup } from '@evmnode/core';

const setup: PluginSetup = ({ rpc }) =>
  rpc.register([defineMethod({ name: 'eth_chainId', params: [], handler: () => '0x1' })]);

export default definePlugin({ id: 'clashing', coreApi: '^2.0.0', setup: () => Promise.resolve({ default: setup }) });
