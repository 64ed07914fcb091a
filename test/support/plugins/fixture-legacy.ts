import { defineMethod, definePlugin, type MethodDefinition, type PluginSetup, string } from '@evmnode/core';

const nativeAddress = defineMethod({ name: 'ext_getNativeAddress', params: [string], handler: () => 'sei1fixture' });
const callNative = (name: string): MethodDefinition =>
  defineMethod({ name, params: [], handler: () => 'native answer' });

/**
 * Stands in for a legacy plugin: a few `ext_` methods on both transports, so that the gate, not
 * the transport policy of a registration, is what refuses them.
 */
const setup: PluginSetup = ({ rpc }) => {
  rpc.register([
    nativeAddress,
    defineMethod({ name: 'ext_getEvmTx', params: [string], handler: () => `0x${'ab'.repeat(32)}` }),
    callNative('ext_callNative'),
    callNative('ext_callCosmos'),
    // Large enough answers, in a batch, to be worth compressing.
    defineMethod({ name: 'ext_queryState', params: [], handler: () => 'x'.repeat(4096) }),
  ]);
};

export default definePlugin({
  id: 'fixture-legacy',
  coreApi: '^2.0.0',
  setup: () => Promise.resolve({ default: setup }),
});
