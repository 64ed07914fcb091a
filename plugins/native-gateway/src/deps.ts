import { CoreTokens } from '@evmnode/core';

/** The services native-gateway's setup receives. */
export const deps = {
  native: CoreTokens.NativeLayer,
  chain: CoreTokens.ChainReader,
  config: CoreTokens.Config,
  heldAnswers: CoreTokens.HeldAnswers,
  unfinishedRequests: CoreTokens.UnfinishedRequests,
};

export type Deps = typeof deps;

/** `[plugins.native-gateway]`. */
export interface NativeGatewayConfig {
  readonly broadcast_commit_timeout: number;
  readonly max_body_bytes: number;
  readonly max_request_batch_size: number;
  readonly max_open_connections: number;
  readonly max_connections_per_ip: number;
}
