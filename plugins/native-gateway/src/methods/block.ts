import { wrapEvmTransaction, type BlockRecord, type ChainReader, type NativeLayer } from '@evmnode/core';
import { base64, hex } from '@scure/base';
import { rfc3339Nano, upperHexOf } from '../comet-json.js';
import { intArg, optional } from '../server/args.js';
import { defineGatewayMethod, type GatewayMethod } from '../server/gateway-method.js';
import { CometRpcError } from '../server/rpc-error.js';

/**
 * CometBFT's `BlockID`. Blocks travel whole here, never split into gossip parts, so the part set
 * is one part named by the block's own hash (clients such as cosmjs require a count and a hash).
 */
function blockId(hash: string): object {
  return { hash: upperHexOf(hash), parts: { total: 1, hash: upperHexOf(hash) } };
}

/**
 * The block's transactions as its `data_hash` covers them: the native ones in order, then each
 * EVM one wrapped in the native transaction it travels in (decisions.md D4).
 */
async function transactionsOf(block: BlockRecord, native: NativeLayer, chain: ChainReader): Promise<Uint8Array[]> {
  const natives = await Promise.all(
    block.nativeTransactions.map(async (hash) => {
      const record = await native.txByHash(hex.decode(hash.slice(2)));
      if (record === undefined)
        throw CometRpcError.internal(`native transaction ${hash} of block ${block.height} is missing`);
      return record.tx;
    }),
  );
  const evm = await Promise.all(
    block.transactions.map(async (hash, index) => {
      const raw = await chain.rawTransactionAt({ height: block.height, index });
      if (raw === undefined) throw CometRpcError.internal(`transaction ${hash} of block ${block.height} is missing`);
      return wrapEvmTransaction(raw);
    }),
  );
  return [...natives, ...evm];
}

/** CometBFT 0.38's `ResultBlock`: the fields a single producer has, the others empty. */
function blockJson(block: BlockRecord, transactions: readonly Uint8Array[], nativeChainId: string): object {
  const { header } = block;
  const parent = blockId(header.parentHash);
  return {
    block_id: blockId(block.hash),
    block: {
      header: {
        version: { block: '11', app: '0' },
        chain_id: nativeChainId,
        height: block.height.toString(),
        time: rfc3339Nano(Number(header.timeMs)),
        last_block_id: parent,
        last_commit_hash: '',
        data_hash: upperHexOf(header.dataHash),
        validators_hash: '',
        next_validators_hash: '',
        consensus_hash: '',
        app_hash: upperHexOf(header.appHash),
        last_results_hash: '',
        evidence_hash: '',
        proposer_address: upperHexOf(header.proposer),
      },
      data: { txs: transactions.map((tx) => base64.encode(tx)) },
      evidence: { evidence: [] },
      // Blocks are final when committed, by the one producer: there are no votes to show.
      last_commit: { height: Math.max(0, block.height - 1).toString(), round: 0, block_id: parent, signatures: [] },
    },
  };
}

/** CometBFT's `EventDataNewBlock` of a committed block, as `subscribe` to `tm.event='NewBlock'` pushes it. */
export async function newBlockEvent(block: BlockRecord, native: NativeLayer, chain: ChainReader): Promise<object> {
  const { block_id, block: body } = blockJson(block, await transactionsOf(block, native, chain), native.chainId) as {
    block_id: object;
    block: object;
  };
  return {
    type: 'tendermint/event/NewBlock',
    value: { block: body, block_id, result_finalize_block: { app_hash: upperHexOf(block.stateRoot) } },
  };
}

/** `block`: a committed block with its transactions, the latest when `height` is left out (CometBFT's errors otherwise). */
export function blockMethod(native: NativeLayer, chain: ChainReader): GatewayMethod {
  return defineGatewayMethod('block', { height: optional(intArg, undefined) }, async ({ height }) => {
    const latest = chain.head().height;
    if (height !== undefined && height <= 0) {
      throw CometRpcError.internal(`height must be greater than 0, but got ${height}`);
    }
    if (height !== undefined && height > latest) {
      throw CometRpcError.internal(
        `height ${height} must be less than or equal to the current blockchain height ${latest}`,
      );
    }
    const block = height === undefined ? chain.head() : await chain.blockAt(height);
    if (block === undefined) throw CometRpcError.internal(`height ${height} is not available`);
    return blockJson(block, await transactionsOf(block, native, chain), native.chainId);
  });
}
