import { definePlugin } from '@evmnode/core';

export default definePlugin({
  id: 'broken-setup',
  coreApi: '^2.0.0',
  setup: () => Promise.reject<never>(new Error('cannot reach the archive')),
});
