import { defineMethod } from '@evmnode/core';

/**
 * `web3_clientVersion` in the synthetic `Geth/<os>-<arch>/node-<version>` form (decisions.md D8):
 * clients parse the `Geth/` prefix; it does not reflect the evmnode release.
 */
export const clientVersion = defineMethod({
  name: 'web3_clientVersion',
  params: [],
  handler: () => `Geth/${process.platform}-${process.arch}/node-${process.versions.node}`,
});
