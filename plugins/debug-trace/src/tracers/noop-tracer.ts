import type { TracerFactory } from './tracer.js';

/** geth's `noopTracer`: runs the transaction and reports nothing. */
export const noopTracer: TracerFactory = () => ({ hooks: {}, result: () => ({}) });
