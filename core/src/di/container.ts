import './decorators.js';
import { container, type DependencyContainer } from 'tsyringe';

/**
 * The only place that touches tsyringe's global container: each node gets a child of it, so two
 * nodes in one process (as in tests) never share a registration.
 */
export function createNodeContainer(): DependencyContainer {
  return container.createChildContainer();
}

export type { DependencyContainer };
