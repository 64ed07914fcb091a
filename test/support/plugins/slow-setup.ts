import { definePlugin } from '@evmnode/core';

export default definePlugin({ id: 'slow-setup', coreApi: '^1.0.0', setup: () => new Promise<never>(() => undefined) });
