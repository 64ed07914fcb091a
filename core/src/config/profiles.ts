/** The networks evmnode knows; each has a profile of defaults. */
export const NETWORKS = ['local', 'testnet', 'mainnet'] as const;

export type NetworkName = (typeof NETWORKS)[number];

/**
 * Per-network defaults, applied above the schema defaults and below the config file, environment
 * and flags. Keys are dotted config paths.
 */
/** The plugins every network loads unless `[node] plugins` says otherwise; `local` adds the native gateway. */
export const DEFAULT_PLUGINS: readonly string[] = [
  'eth-query',
  'eth-send',
  'filters',
  'subscriptions',
  'hosted-keys',
  'debug-trace',
  'txpool',
  'ext-legacy',
  'ext2-legacy',
  'legacy-trace',
];

export const NETWORK_PROFILES: Readonly<Record<NetworkName, Readonly<Record<string, unknown>>>> = {
  local: {
    'node.chain_id': 713714,
    'native.chain_id': 'sei-chain',
    'mempool.min_gas_price': 1_000_000_000,
    // A development node has one client, which may use all of it.
    'evm.max_client_share': 1,
    'node.plugins': [...DEFAULT_PLUGINS, 'native-gateway'],
    // Dapps under development are served from localhost on any port.
    'evm.signing_origins': ['http://localhost:*', 'http://127.0.0.1:*'],
    // A development node runs its developer's own tracer code.
    'evm.trace_allow_js_tracers': true,
  },
  testnet: { 'node.chain_id': 1328, 'native.chain_id': 'atlantic-2' },
  mainnet: { 'node.chain_id': 1329, 'native.chain_id': 'pacific-1' },
};
