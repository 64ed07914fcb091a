import { definePlugin } from '@evmnode/core';

export default definePlugin({ id: 'slow-setup', coreApi: '^2.0.0', setup: () => new Promise<never>(() => undefined) });
