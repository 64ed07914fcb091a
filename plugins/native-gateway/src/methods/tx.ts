import type { NativeLayer } from '@evmnode/core';
import { hex } from '@scure/base';
import { txJson, upperHex } from '../comet-json.js';
import { boolArg, intArg, optional, stringArg, txHashArg } from '../server/args.js';
import { defineGatewayMethod, type GatewayMethod } from '../server/gateway-method.js';
import { CometRpcError } from '../server/rpc-error.js';

/** The one `tx_search` query served: what cosmjs' `getTx` and `broadcastTx` poll with. */
const HASH_QUERY = /^\s*tx\.hash\s*=\s*'([0-9A-Fa-f]{64})'\s*$/;

/** CometBFT's page sizes: 30 unless asked, at most 100. */
const DEFAULT_PER_PAGE = 30;
const MAX_PER_PAGE = 100;

function refuseProofs(prove: boolean): void {
  // Blocks commit to native transactions by a plain hash list (decisions.md D4), not a Merkle tree.
  if (prove) throw CometRpcError.internal('transaction proofs are not available on this node');
}

/** CometBFT's page check: pages count from 1, and an empty result still has page 1. */
function pageOf<T>(items: readonly T[], page: number, perPage: number): readonly T[] {
  const size = perPage < 1 ? DEFAULT_PER_PAGE : Math.min(perPage, MAX_PER_PAGE);
  const pages = Math.max(1, Math.ceil(items.length / size));
  if (page < 1 || page > pages) {
    throw CometRpcError.internal(`page should be within expected range: [1, ${pages}], given ${page}`);
  }
  return items.slice((page - 1) * size, page * size);
}

/** `tx` (by hash: base64 as CometBFT, or hex) and `tx_search` for `tx.hash='<hex>'`: committed native transactions. */
export function txMethods(native: NativeLayer): GatewayMethod[] {
  return [
    defineGatewayMethod('tx', { hash: txHashArg, prove: optional(boolArg, false) }, async ({ hash, prove }) => {
      refuseProofs(prove);
      const record = await native.txByHash(hash);
      if (record === undefined) throw CometRpcError.internal(`tx (${upperHex(hash)}) not found`);
      return txJson(record);
    }),
    defineGatewayMethod(
      'tx_search',
      {
        query: stringArg,
        prove: optional(boolArg, false),
        page: optional(intArg, 1),
        per_page: optional(intArg, DEFAULT_PER_PAGE),
        order_by: optional(stringArg, ''),
      },
      async ({ query, prove, page, per_page, order_by }) => {
        refuseProofs(prove);
        if (order_by !== '' && order_by !== 'asc' && order_by !== 'desc') {
          throw CometRpcError.internal('expected order_by to be either `asc` or `desc` or empty');
        }
        const hashText = HASH_QUERY.exec(query)?.[1];
        if (hashText === undefined) {
          throw CometRpcError.internal(
            `this node's tx_search takes only the query tx.hash='<hex hash>', got ${JSON.stringify(query)}`,
          );
        }
        const record = await native.txByHash(hex.decode(hashText.toLowerCase()));
        const found = record === undefined ? [] : [record];
        return { txs: pageOf(found, page, per_page).map(txJson), total_count: found.length.toString() };
      },
    ),
  ];
}
