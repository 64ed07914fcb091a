import { definePlugin } from '@evmnode/core';
import { Unprovided } from './shared.js';

export default definePlugin({
  id: 'needs-unprovided',
  coreApi: '^2.0.0',
  deps: { missing: Unprovided },
  setup: () => Promise.resolve({ default: () => undefined }),
});
