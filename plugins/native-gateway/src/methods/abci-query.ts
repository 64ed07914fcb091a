import type { ChainReader } from '@evmnode/core';
import { base64 } from '@scure/base';
import { QueryError, type QueryHandler } from '../queries/query-error.js';
import { boolArg, hexBytesArg, intArg, optional, stringArg } from '../server/args.js';
import { defineGatewayMethod, type GatewayMethod } from '../server/gateway-method.js';

/** ABCI `ResponseQuery` as CometBFT writes it; no proofs (gRPC queries carry none on a Cosmos SDK node either). */
function queryResponse(outcome: { value: Uint8Array } | QueryError, height: number): object {
  const failed = outcome instanceof QueryError;
  return {
    response: {
      code: failed ? outcome.code : 0,
      log: failed ? outcome.message : '',
      info: '',
      index: '0',
      key: null,
      value: failed ? null : base64.encode(outcome.value),
      proofOps: null,
      height: height.toString(),
      codespace: failed ? 'sdk' : '',
    },
  };
}

/**
 * `abci_query` for the gRPC query paths of `handlers`, at the latest height, with the codes and
 * logs of a Cosmos SDK node: an unknown path gets code 6, a handler's failure its gRPC status
 * turned into an SDK error.
 */
export function abciQueryMethod(chain: ChainReader, handlers: readonly QueryHandler[]): GatewayMethod {
  const byPath = new Map(handlers.map((handler) => [handler.path, handler]));
  return defineGatewayMethod(
    'abci_query',
    {
      path: stringArg,
      data: optional(hexBytesArg, new Uint8Array()),
      height: optional(intArg, 0),
      prove: optional(boolArg, false),
    },
    async ({ path, data, height }) => {
      const handler = byPath.get(path);
      // The SDK leaves the height at 0 when it refuses a query before running it.
      if (handler === undefined) return queryResponse(QueryError.unknownPath(), 0);
      const latest = chain.head().height;
      if (height < 0) return queryResponse(QueryError.negativeHeight(), 0);
      if (height > latest) return queryResponse(QueryError.futureHeight(), 0);
      if (height !== 0 && height !== latest) return queryResponse(QueryError.pastHeight(height, latest), 0);
      try {
        return queryResponse({ value: await handler.handle(data) }, latest);
      } catch (error) {
        if (error instanceof QueryError) return queryResponse(error, latest);
        throw error;
      }
    },
  );
}
