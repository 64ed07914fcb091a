import { definePlugin } from '@evmnode/core';
import { deps, type Deps, type HelloWorldConfig } from './deps.js';

// The manifest: importing it has no side effects; the implementation loads only when the plugin is set up.
export default definePlugin<Deps, HelloWorldConfig>({
  id: 'hello-world',
  coreApi: '^2.0.0',
  tags: ['example'],
  config: {
    greeting: { doc: 'The word hello_world greets with.', format: String, default: 'Hello' },
  },
  deps,
  setup: () => import('./setup.js'),
});
