import { blockRef, defineMethod, hash, InvalidInputError, type ParamCodec } from '@evmnode/core';

function notSupported(name: string, params: readonly ParamCodec<unknown>[]) {
  return defineMethod({
    name,
    params,
    handler: () => {
      throw new InvalidInputError(`${name} is not supported on this node`);
    },
  });
}

/**
 * The `debug_getRaw*` methods: registered but unsupported (decisions.md D3, -32000), with geth's
 * parameters, so that a well-formed call gets the "not supported" answer.
 */
export function rawDataMethods() {
  return [
    notSupported('debug_getRawHeader', [blockRef]),
    notSupported('debug_getRawBlock', [blockRef]),
    notSupported('debug_getRawReceipts', [blockRef]),
    notSupported('debug_getRawTransaction', [hash]),
  ];
}
