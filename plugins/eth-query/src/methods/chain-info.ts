import {
  ChainParams,
  defineMethod,
  suggestedGasPrice,
  suggestedTip,
  toQuantity,
  type ChainReader,
  type ChainInfo,
} from '@evmnode/core';

/**
 * §4.5: chain identity and fee suggestions. `web3_clientVersion` has the synthetic
 * `Geth/<os>-<arch>/node-<version>` form (decisions.md D8): clients parse the `Geth/` prefix.
 */
export function chainInfoMethods(info: ChainInfo, chain: ChainReader) {
  const chainIdHex = toQuantity(info.chainId);
  const chainIdDecimal = info.chainId.toString(10);
  const clientVersion = `Geth/${process.platform}-${process.arch}/node-${process.versions.node}`;
  return [
    defineMethod({ name: 'eth_chainId', params: [], handler: () => chainIdHex }),
    defineMethod({ name: 'net_version', params: [], handler: () => chainIdDecimal }),
    defineMethod({ name: 'web3_clientVersion', params: [], handler: () => clientVersion }),
    defineMethod({ name: 'eth_blockNumber', params: [], handler: () => toQuantity(chain.head().height) }),
    defineMethod({ name: 'eth_coinbase', params: [], handler: () => ChainParams.feeCollector }),
    defineMethod({ name: 'eth_gasPrice', params: [], handler: () => toQuantity(suggestedGasPrice(chain)) }),
    defineMethod({ name: 'eth_maxPriorityFeePerGas', params: [], handler: () => toQuantity(suggestedTip(chain)) }),
  ];
}
