import { defineToken } from '@evmnode/core';
import type { FilterManager } from './filter-manager.js';

/** The services the filters plugin provides to plugins set up after it (the legacy `ext_` filters). */
export const FiltersTokens = {
  FilterManager: defineToken<FilterManager>('FilterManager'),
} as const;
