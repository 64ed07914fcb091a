import { defineToken } from '../di/service-token.js';
import type { MethodRegistry } from '../rpc/method-registry.js';
import type { Dispatcher } from '../rpc/dispatcher.js';

/** Services of core that plugins do not see. */
export const InternalTokens = {
  MethodRegistry: defineToken<MethodRegistry>('MethodRegistry'),
  Dispatcher: defineToken<Dispatcher>('Dispatcher'),
} as const;
