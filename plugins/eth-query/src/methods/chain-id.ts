import { defineMethod, type ChainInfo, type MethodDefinition } from '@evmnode/core';

/** `eth_chainId` (hex quantity) and `net_version` (the same ID in decimal). */
export function chainIdMethods(chain: ChainInfo): MethodDefinition[] {
  const hex = `0x${chain.chainId.toString(16)}`;
  const decimal = chain.chainId.toString(10);
  return [
    defineMethod({ name: 'eth_chainId', params: [], handler: () => hex }),
    defineMethod({ name: 'net_version', params: [], handler: () => decimal }),
  ];
}
