import { blockViewMethods, type ChainViews } from '@evmnode/core';

/** §4.4: blocks by number or hash, their transaction counts and receipts; unknown blocks read as null. */
export function blockMethods(views: ChainViews) {
  return blockViewMethods(views, { prefix: 'eth', view: 'eth' });
}
