import { boolean, defineMethod, InvalidInputError, type ParamCodec } from '@evmnode/core';

function unsupported(
  name: string,
  params: readonly ParamCodec<unknown>[],
  message = `${name} is not supported on this node`,
) {
  return defineMethod({
    name,
    params,
    handler: () => {
      throw new InvalidInputError(message);
    },
  });
}

/**
 * Registered methods the chain does not support (interface.md §4.9, decisions.md D3): -32000,
 * not -32601. Each keeps geth's parameters, so a well-formed call gets the "not supported" answer.
 */
export function unsupportedMethods() {
  return [
    unsupported('eth_syncing', []),
    unsupported('eth_blobBaseFee', [], 'blobs not supported on this chain'),
    unsupported('eth_newPendingTransactionFilter', [boolean.optional()]),
  ];
}
