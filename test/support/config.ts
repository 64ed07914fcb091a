import type { CoreConfig } from '@evmnode/core';
import { loadNodeConfig, readConfigLayers } from '@evmnode/core/internal';

/** The core configuration with defaults plus `overrides`, reading no file, environment or flags. */
export function coreConfigWith(overrides: Record<string, unknown> = {}): CoreConfig {
  const layers = readConfigLayers({ home: '/nonexistent', env: {}, flags: [], skipFile: true, overrides });
  return loadNodeConfig(layers, new Map()).core;
}
