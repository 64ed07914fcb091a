import {
  CoreTokens,
  defineMethod,
  definePlugin,
  hash,
  toQuantity,
  type EvmTracer,
  type PluginSetup,
} from '@evmnode/core';

// A third-party plugin that traces through the Replayer alone, as the debug-trace plugin does.
const deps = { replayer: CoreTokens.Replayer, chain: CoreTokens.ChainReader };

const setup: PluginSetup<typeof deps> = ({ deps: { replayer, chain }, rpc }) => {
  rpc.register([
    defineMethod({
      name: 'test_traceFrames',
      params: [hash],
      handler: async ([txHash]) => {
        const frames: string[] = [];
        const opcodes: string[] = [];
        const tracer: EvmTracer = {
          enter: (message, type) => void frames.push(`${message.depth}:${type}`),
          step: (step) => void opcodes.push(step.opcode.name),
        };
        const replayed = await replayer.replayTransaction(txHash, () => tracer);
        // A second replay that steps at SSTORE (0x55) only.
        const sstores: string[] = [];
        const stepOpcodes = new Set([0x55]);
        await replayer.replayTransaction(txHash, () => ({
          step: (step) => void sstores.push(step.opcode.name),
          stepOpcodes,
        }));
        const location = await chain.locationOf(txHash);
        const receipt = location === undefined ? undefined : await chain.receiptFieldsAt(location);
        return {
          frames,
          opcodes,
          sstores,
          gasUsed: toQuantity(replayed.gasUsed),
          receiptGasUsed: receipt?.gasUsed,
        };
      },
    }),
  ]);
};

export default definePlugin({
  id: 'trace-inspector',
  coreApi: '^2.16.0',
  deps,
  setup: () => Promise.resolve({ default: setup }),
});
