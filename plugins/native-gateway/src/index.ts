import { definePlugin } from '@evmnode/core';
import { deps, type Deps, type NativeGatewayConfig } from './deps.js';

/**
 * The native gateway: a CometBFT-RPC-compatible subset on `[native] rpc_port`, so that Cosmos
 * tooling (cosmjs' `SigningStargateClient`) can send native transactions and query accounts and
 * balances.
 */
export default definePlugin<Deps, NativeGatewayConfig>({
  id: 'native-gateway',
  coreApi: '^1.0.0',
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
  },
  deps,
  setup: () => import('./setup.js'),
});
