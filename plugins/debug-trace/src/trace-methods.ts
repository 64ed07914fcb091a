import {
  blockNumberOrTag,
  blockRef,
  blockRefOf,
  blockRefOfHash,
  callRequest,
  defineMethod,
  hash,
  LATEST_BLOCK,
  type BlockRef,
  type RequestContext,
} from '@evmnode/core';
import { blockTraceJson } from './block-trace-json.js';
import { traceCallConfig, traceConfig, type TraceConfig } from './trace-config.js';
import type { TraceRequest, TraceService } from './trace-service.js';

const traceRequestOf = ({ clientId, signal }: RequestContext): TraceRequest => ({ clientId, signal });

/** A block's trace as its answer's JSON. */
async function blockTrace(traces: TraceService, ref: BlockRef, config: TraceConfig, request: RequestContext) {
  const entries = await traces.traceBlock(ref, config, traceRequestOf(request));
  return Array.isArray(entries) ? blockTraceJson(entries) : entries;
}

/** The `debug_trace*` methods of interface.md §4.8 (HTTP-only, as the whole namespace). */
export function traceMethods(traces: TraceService) {
  return [
    defineMethod({
      name: 'debug_traceTransaction',
      params: [hash, traceConfig.optional({})],
      handler: ([txHash, config], request) => traces.traceTransaction(txHash, config, traceRequestOf(request)),
    }),
    defineMethod({
      name: 'debug_traceBlockByNumber',
      params: [blockNumberOrTag, traceConfig.optional({})],
      handler: ([number, config], request) => blockTrace(traces, blockRefOf(number), config, request),
    }),
    defineMethod({
      name: 'debug_traceBlockByHash',
      params: [hash, traceConfig.optional({})],
      handler: ([blockHash, config], request) => blockTrace(traces, blockRefOfHash(blockHash), config, request),
    }),
    defineMethod({
      name: 'debug_traceStateAccess',
      params: [hash],
      handler: ([txHash], request) => traces.traceStateAccess(txHash, traceRequestOf(request)),
    }),
    defineMethod({
      name: 'debug_traceCall',
      params: [callRequest, blockRef.optional(LATEST_BLOCK), traceCallConfig.optional({})],
      handler: ([call, block, config], request) => traces.traceCall(call, block, config, traceRequestOf(request)),
    }),
  ];
}
