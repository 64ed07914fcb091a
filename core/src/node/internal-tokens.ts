import { defineToken } from '../di/service-token.js';
import type { MethodRegistry } from '../rpc/method-registry.js';
import type { Dispatcher } from '../rpc/dispatcher.js';
import type { HealthCheck } from './health.js';

/** Services of core that plugins do not see. */
export const InternalTokens = {
  MethodRegistry: defineToken<MethodRegistry>('MethodRegistry'),
  Dispatcher: defineToken<Dispatcher>('Dispatcher'),
  Health: defineToken<HealthCheck>('Health'),
} as const;
