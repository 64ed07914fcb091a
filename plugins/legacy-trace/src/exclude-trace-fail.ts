import {
  blockNumberOrTag,
  blockRefOf,
  blockRefOfHash,
  boolean,
  defineMethod,
  hash,
  type BlockRef,
  type BlockView,
  type ChainViews,
  type JsonObject,
  type RequestContext,
} from '@evmnode/core';
import {
  blockTraceJson,
  traceConfig,
  type TraceConfig,
  type TraceRequest,
  type TraceService,
} from '@evmnode/plugin-debug-trace';

/*
 * "A transaction whose trace fails" is one whose entry in a block trace is `{txHash, error}`. On this
 * chain none can be committed: checks that fail before execution (the ante checks) keep a
 * transaction out of the block, and one whose execution throws is dropped before commit
 * (test/integration/chain-thrown-execution.test.ts); a revert is a successful trace. These methods
 * still ask the trace service, so that they keep their meaning should that change.
 */

const traceRequestOf = ({ clientId, signal }: RequestContext): TraceRequest => ({ clientId, signal });

/** A block of a view without the transactions whose trace fails (hashes or full objects). */
async function blockExcludingTraceFail(
  views: ChainViews,
  traces: TraceService,
  ref: BlockRef,
  fullTransactions: boolean,
  view: BlockView,
  request: RequestContext,
): Promise<JsonObject | null> {
  const block = await views.block(ref, fullTransactions, view);
  if (block === null) return null;
  // By the block's hash: a tag read again could name a newer block.
  const failed = await traces.failedTransactions(blockRefOfHash(block.hash as `0x${string}`), traceRequestOf(request));
  if (failed.size === 0) return block;
  const transactions = block.transactions as readonly (string | { hash: string })[];
  return {
    ...block,
    transactions: transactions.filter((tx) => !failed.has(typeof tx === 'string' ? tx : tx.hash)),
  };
}

/**
 * `<prefix>_getBlockByNumberExcludeTraceFail` and `...ByHash` (interface.md §4.11): the blocks of
 * `view` without the transactions whose trace fails; `ext_` serves the `eth` view (no synthetic
 * transactions), `ext2_` its own.
 */
export function excludeTraceFailBlockMethods(
  views: ChainViews,
  traces: TraceService,
  { prefix, view }: { readonly prefix: 'ext' | 'ext2'; readonly view: BlockView },
) {
  return [
    defineMethod({
      name: `${prefix}_getBlockByNumberExcludeTraceFail`,
      params: [blockNumberOrTag, boolean],
      handler: ([number, full], request) =>
        blockExcludingTraceFail(views, traces, blockRefOf(number), full, view, request),
    }),
    defineMethod({
      name: `${prefix}_getBlockByHashExcludeTraceFail`,
      params: [hash, boolean],
      handler: ([blockHash, full], request) =>
        blockExcludingTraceFail(views, traces, blockRefOfHash(blockHash), full, view, request),
    }),
  ];
}

/** The receipt and block-trace `ExcludeTraceFail` methods of the `ext_` namespace. */
export function excludeTraceFailTraceMethods(views: ChainViews, traces: TraceService) {
  const successfulTraces = async (ref: BlockRef, config: TraceConfig, request: RequestContext) => {
    const entries = await traces.traceBlock(ref, config, traceRequestOf(request));
    // Traces served from storage are all successes.
    return Array.isArray(entries) ? blockTraceJson(entries.filter((entry) => 'result' in entry)) : entries;
  };
  return [
    defineMethod({
      name: 'ext_getTransactionReceiptExcludeTraceFail',
      params: [hash],
      handler: async ([txHash], request) => {
        // As JSON text: a receipt of 140,000 logs is made in turns, within the room for answers held.
        const receipt = await views.receiptJson(txHash);
        if (receipt === null) return null;
        const { blockHash } = (await views.transactionByHash(txHash))!;
        const failed = await traces.failedTransactions(
          blockRefOfHash(blockHash as `0x${string}`),
          traceRequestOf(request),
        );
        return failed.has(txHash) ? null : receipt;
      },
    }),
    defineMethod({
      name: 'ext_traceBlockByNumberExcludeTraceFail',
      params: [blockNumberOrTag, traceConfig.optional({})],
      handler: ([number, config], request) => successfulTraces(blockRefOf(number), config, request),
    }),
    defineMethod({
      name: 'ext_traceBlockByHashExcludeTraceFail',
      params: [hash, traceConfig.optional({})],
      handler: ([blockHash, config], request) => successfulTraces(blockRefOfHash(blockHash), config, request),
    }),
  ];
}
