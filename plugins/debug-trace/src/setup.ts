import type { PluginSetup } from '@evmnode/core';
import { rawDataMethods } from './raw-data.js';

const setup: PluginSetup = ({ rpc }) => {
  rpc.register(rawDataMethods(), { transports: ['http'] });
};

export default setup;
