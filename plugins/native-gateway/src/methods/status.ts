import type { BlockRecord, ChainReader, NativeLayer } from '@evmnode/core';
import { base64 } from '@scure/base';
import { rfc3339Nano, upperHexOf } from '../comet-json.js';
import { defineGatewayMethod, type GatewayMethod } from '../server/gateway-method.js';

/**
 * The CometBFT version whose RPC shapes the gateway serves. cosmjs picks its client by the
 * `0.38.` prefix (`tx_result`, not `deliver_tx`).
 */
const COMET_RPC_VERSION = '0.38.0';

/** CometBFT 0.38's protocol versions: peer-to-peer 8, block 11. */
const PROTOCOL_VERSION = { p2p: '8', block: '11', app: '0' };

/**
 * The node signs no consensus votes, so it has no consensus key; CometBFT clients require one in
 * `validator_info`, so it shows 32 zero bytes, with the proposer's address.
 */
const NO_CONSENSUS_KEY = { type: 'tendermint/PubKeyEd25519', value: base64.encode(new Uint8Array(32)) };

function blockSummary(block: BlockRecord): { hash: string; appHash: string; height: string; time: string } {
  return {
    hash: upperHexOf(block.hash),
    appHash: upperHexOf(block.header.appHash),
    height: block.height.toString(),
    time: rfc3339Nano(Number(block.header.timeMs)),
  };
}

/** `status`: the node, its head and earliest block; `node_info.network` is the native chain ID clients sign for. */
export function statusMethod(native: NativeLayer, chain: ChainReader, rpcAddress: () => string): GatewayMethod {
  return defineGatewayMethod('status', {}, async () => {
    const head = chain.head();
    // Blocks are kept forever (only state is pruned): the earliest is the first.
    const earliestHeight = Math.min(1, head.height);
    const latest = blockSummary(head);
    const earliest = blockSummary(
      earliestHeight === head.height ? head : ((await chain.blockAt(earliestHeight)) ?? head),
    );
    return {
      node_info: {
        protocol_version: PROTOCOL_VERSION,
        id: chain.proposer.slice(2),
        listen_addr: rpcAddress(),
        network: native.chainId,
        version: COMET_RPC_VERSION,
        channels: '',
        moniker: 'evmnode',
        other: { tx_index: 'on', rpc_address: rpcAddress() },
      },
      sync_info: {
        latest_block_hash: latest.hash,
        latest_app_hash: latest.appHash,
        latest_block_height: latest.height,
        latest_block_time: latest.time,
        earliest_block_hash: earliest.hash,
        earliest_app_hash: earliest.appHash,
        earliest_block_height: earliest.height,
        earliest_block_time: earliest.time,
        catching_up: false,
      },
      validator_info: {
        address: upperHexOf(chain.proposer),
        pub_key: NO_CONSENSUS_KEY,
        // The one block producer.
        voting_power: '1',
      },
    };
  });
}
