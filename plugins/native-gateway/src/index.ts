import { definePlugin } from '@evmnode/core';
import { deps, type Deps, type NativeGatewayConfig } from './deps.js';

/**
 * The native gateway: a CometBFT-RPC-compatible subset on `[native] rpc_port`, so that Cosmos
 * tooling (cosmjs' `SigningStargateClient`) can send native transactions and query accounts and
 * balances.
 */
export default definePlugin<Deps, NativeGatewayConfig>({
  id: 'native-gateway',
  coreApi: '^2.17.0',
  config: {
    broadcast_commit_timeout: {
      doc: "How long broadcast_tx_commit waits for the transaction's block (CometBFT's timeout_broadcast_tx_commit).",
      format: 'duration',
      default: 10_000,
    },
    max_body_bytes: {
      doc: 'Largest request body, in bytes (CometBFT max_body_bytes).',
      format: 'nat',
      default: 1_000_000,
    },
    max_request_batch_size: {
      doc: "Most calls in one batch; a larger batch is refused (CometBFT's default; 0: no limit).",
      format: 'nat',
      default: 10,
    },
    max_open_connections: {
      doc: 'Most connections the gateway holds open at once; more are closed as they arrive (CometBFT default).',
      format: 'nat',
      default: 900,
    },
    max_connections_per_ip: {
      doc: 'Most connections the gateway holds open at once from one remote address; more are closed as they arrive.',
      format: 'nat',
      default: 100,
    },
  },
  deps,
  setup: () => import('./setup.js'),
});
