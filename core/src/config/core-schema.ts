import { DEFAULT_PLUGINS, NETWORKS, type NetworkName } from './profiles.js';

/** The validated core sections of the configuration. Plugins' sections live under `plugins.<id>`. */
export interface CoreConfig {
  readonly node: {
    readonly network: NetworkName;
    readonly role: 'producer' | 'follower';
    readonly chain_id: number;
    readonly plugins: readonly string[];
    readonly disable_tags: readonly string[];
    readonly plugin_setup_timeout: number;
    readonly shutdown_timeout: number;
  };
  readonly evm: {
    readonly http_enabled: boolean;
    readonly http_port: number;
    readonly ws_enabled: boolean;
    readonly ws_port: number;
    readonly listen_address: string;
    readonly read_timeout: number;
    readonly write_timeout: number;
    readonly idle_timeout: number;
    readonly simulation_gas_limit: number;
    readonly simulation_evm_timeout: number;
    readonly cors_origins: readonly string[];
    readonly ws_origins: readonly string[];
    readonly filter_timeout: number;
    readonly max_filters: number;
    readonly max_tx_pool_txs: number;
    readonly slow: boolean;
    readonly deny_list: readonly string[];
    readonly enabled_legacy_ext_apis: readonly string[];
    readonly max_log_no_block: number;
    readonly max_blocks_for_log: number;
    readonly max_subscriptions_new_head: number;
    readonly max_proof_keys: number;
    readonly max_concurrent_trace_calls: number;
    readonly max_concurrent_simulation_calls: number;
    readonly max_trace_lookback_blocks: number;
    readonly trace_timeout: number;
    readonly trace_allow_js_tracers: boolean;
    readonly batch_request_limit: number;
    readonly batch_response_max_size: number;
    readonly max_request_body_bytes: number;
    readonly signing_origins: readonly string[];
    readonly vhosts: readonly string[];
    readonly allow_insecure_unlock: boolean;
    readonly max_subscriptions_logs: number;
    readonly max_subscriptions_per_connection: number;
    readonly max_client_share: number;
    readonly max_open_connections: number;
    readonly max_connections_per_ip: number;
    readonly max_held_answer_bytes: number;
    readonly max_unfinished_request_bytes: number;
  };
  readonly consensus: {
    readonly block_time: number;
    readonly create_empty_blocks: boolean;
    readonly proposer: string;
  };
  readonly follower: {
    readonly upstream: string;
    readonly upstream_rpc: string;
    readonly poll_interval: number;
    readonly max_lag_blocks: number;
  };
  readonly native: {
    readonly chain_id: string;
    readonly rpc_port: number;
  };
  readonly mempool: {
    readonly size: number;
    readonly min_gas_price: number;
    readonly account_slots: number;
    readonly account_queue: number;
    readonly global_queue: number;
    readonly lifetime: number;
  };
  readonly state: {
    readonly keep_recent: number;
    readonly accept_rollback: boolean;
  };
  readonly logging: {
    readonly level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
    readonly format: 'auto' | 'json' | 'pretty';
  };
  readonly metrics: {
    readonly enabled: boolean;
  };
}

/**
 * The convict schema of the core sections. `[evm]` keys keep the reference node's names and
 * defaults (decisions.md D8).
 */
export const coreSchema = {
  node: {
    network: {
      doc: 'Network profile: local (chain ID 713714), testnet (1328) or mainnet (1329).',
      format: [...NETWORKS],
      default: 'local',
    },
    role: {
      doc:
        'producer: takes transactions and produces blocks. follower: produces none; it replicates the blocks of ' +
        '[follower] upstream, executing each again and checking that it comes to the same block.',
      format: ['producer', 'follower'],
      default: 'producer',
    },
    chain_id: {
      doc: "EVM chain ID; the network profile's ID unless set.",
      format: 'nat',
      default: 713714,
    },
    plugins: {
      doc: 'Plugins to load, in order: built-in names, npm package names or paths to a plugin folder.',
      format: 'string-list',
      default: [...DEFAULT_PLUGINS],
    },
    disable_tags: {
      doc: 'Plugins carrying any of these tags are not loaded (e.g. ["hosted-key"] on public nodes).',
      format: 'string-list',
      default: [],
    },
    plugin_setup_timeout: {
      doc: "How long one plugin's setup may take before the node refuses to start.",
      format: 'duration',
      default: 10_000,
    },
    shutdown_timeout: {
      doc: 'How long a graceful shutdown waits for in-flight requests.',
      format: 'duration',
      default: 10_000,
    },
  },
  evm: {
    http_enabled: { doc: 'Serve JSON-RPC over HTTP.', format: Boolean, default: true },
    http_port: { doc: 'HTTP JSON-RPC port (0 picks a free port).', format: 'port', default: 8545 },
    ws_enabled: { doc: 'Serve JSON-RPC over WebSocket.', format: Boolean, default: true },
    ws_port: { doc: 'WebSocket JSON-RPC port (0 picks a free port).', format: 'port', default: 8546 },
    listen_address: {
      doc: 'Interface the HTTP and WebSocket servers bind to; "0.0.0.0" serves every interface.',
      format: String,
      default: '127.0.0.1',
    },
    read_timeout: { doc: 'Time allowed to receive a whole HTTP request.', format: 'duration', default: 30_000 },
    write_timeout: {
      doc: 'Time allowed to answer; a call still running 100ms before it gets "request timed out".',
      format: 'duration',
      default: 30_000,
    },
    idle_timeout: { doc: 'How long an idle keep-alive connection stays open.', format: 'duration', default: 120_000 },
    simulation_gas_limit: {
      doc: 'Gas cap of eth_call, eth_estimateGas and eth_createAccessList.',
      format: 'nat',
      default: 10_000_000,
    },
    simulation_evm_timeout: { doc: 'Time limit of one simulated call.', format: 'duration', default: 60_000 },
    cors_origins: { doc: 'Origins allowed by CORS on HTTP ("*" for any).', format: 'string-list', default: ['*'] },
    ws_origins: { doc: 'Origins allowed to open a WebSocket ("*" for any).', format: 'string-list', default: ['*'] },
    filter_timeout: { doc: 'A filter not polled for this long is removed.', format: 'duration', default: 120_000 },
    max_filters: {
      doc: 'Most filters installed on this node at once; more are refused.',
      format: 'nat',
      default: 10_000,
    },
    max_tx_pool_txs: { doc: 'Most transactions txpool_content lists.', format: 'nat', default: 1000 },
    slow: { doc: 'eth_sendRawTransaction waits until the transaction is committed.', format: Boolean, default: false },
    deny_list: { doc: 'Methods this node refuses as if they did not exist.', format: 'string-list', default: [] },
    enabled_legacy_ext_apis: {
      doc: 'Deprecated ext_*/ext2_* methods this node serves; every other one is refused.',
      format: 'string-list',
      default: ['ext_getNativeAddress', 'ext_getEVMAddress', 'ext_getNativeTx'],
    },
    max_log_no_block: { doc: 'Most logs an open-ended log query returns.', format: 'nat', default: 10_000 },
    max_blocks_for_log: { doc: 'Most blocks a closed log query may span.', format: 'nat', default: 2000 },
    max_subscriptions_new_head: { doc: 'Most newHeads subscriptions on this node.', format: 'nat', default: 10_000 },
    max_proof_keys: { doc: 'Most storage keys one eth_getProof call may ask for.', format: 'nat', default: 100 },
    max_concurrent_trace_calls: { doc: 'Trace calls run at once; more are refused.', format: 'nat', default: 10 },
    max_concurrent_simulation_calls: {
      doc: 'Simulation calls run at once; more are refused as busy (0: the CPU count).',
      format: 'nat',
      default: 0,
    },
    max_trace_lookback_blocks: {
      doc: 'How far back tracing may reach, in blocks (-1: unlimited).',
      format: 'int',
      default: 10_000,
    },
    trace_timeout: { doc: 'Time limit of one trace.', format: 'duration', default: 30_000 },
    trace_allow_js_tracers: {
      doc: 'Whether debug_trace* accepts JavaScript tracers (run sandboxed on threads of their own, within trace_timeout and 96 MiB of memory each).',
      format: Boolean,
      default: false,
    },
    batch_request_limit: { doc: 'Most calls in one batch.', format: 'nat', default: 1000 },
    batch_response_max_size: {
      doc: "Bytes of results after which a batch's remaining calls get 'response too large'.",
      format: 'nat',
      default: 25_000_000,
    },
    max_request_body_bytes: {
      doc: 'Largest HTTP request body and WebSocket message.',
      format: 'nat',
      default: 5 * 1024 * 1024,
    },
    signing_origins: {
      doc:
        'With hosted keys: browser origins (the Origin header) that may call eth_sign, eth_signTransaction and ' +
        'eth_sendTransaction, as "scheme://host[:port]"; "scheme://host:*" allows any port, "*" every origin. ' +
        'Requests without an Origin (curl, scripts) are not from a browser and may always sign.',
      format: 'string-list',
      default: [],
    },
    vhosts: {
      doc:
        'With hosted keys: host names the Host header of HTTP and WebSocket requests may carry (geth --http.vhosts); ' +
        'IP addresses are always accepted, "*" accepts any; others get 403.',
      format: 'string-list',
      default: ['localhost'],
    },
    allow_insecure_unlock: {
      doc: 'Start with hosted keys although listen_address is not a loopback address (geth --allow-insecure-unlock).',
      format: Boolean,
      default: false,
    },
    max_subscriptions_logs: { doc: 'Most logs subscriptions on this node.', format: 'nat', default: 10_000 },
    max_subscriptions_per_connection: {
      doc: 'Most subscriptions (newHeads and logs) one WebSocket connection may hold.',
      format: 'nat',
      default: 1000,
    },
    max_client_share: {
      doc:
        'Share (0 to 1) of max_filters, max_concurrent_simulation_calls, max_concurrent_trace_calls, ' +
        'max_subscriptions_new_head, max_subscriptions_logs, the 32 batches under way, the 30 log queries over 100 ' +
        'blocks a second, the 128 transactions a follower forwards at once and the 1,000 native transactions ' +
        'waiting for their admission check that one client (an IPv4 address or an IPv6 /64, over all its HTTP and WebSocket ' +
        'connections) may hold, rounded up.',
      format: 'fraction',
      default: 0.25,
    },
    max_open_connections: {
      doc: 'Most connections each port (HTTP, WebSocket) holds open at once; more are closed as they arrive.',
      format: 'nat',
      default: 10_000,
    },
    max_connections_per_ip: {
      doc:
        'Most connections each port holds open at once from one client (an IPv4 address, or an IPv6 /64); more are ' +
        'closed as they arrive.',
      format: 'nat',
      default: 1000,
    },
    max_held_answer_bytes: {
      doc:
        'Bytes of answers the node holds for all clients together: gathered by batches, traces, log queries, receipts and ' +
        'txpool_content, or written and not yet read. Past it, the connections that left the most unread for a ' +
        'second are closed, then those get "server busy"; a log query whose logs alone pass it, "log response ' +
        'too large". At least the largest answer (a block trace\'s 128 MiB).',
      format: 'nat',
      default: 256 * 1024 * 1024,
    },
    max_unfinished_request_bytes: {
      doc:
        'Bytes of requests the node has received part of (HTTP bodies, WebSocket messages), for all clients ' +
        'together. Past it, the connections whose requests have waited longest are closed (HTTP: 503, "server busy"). ' +
        'At least max_request_body_bytes.',
      format: 'nat',
      default: 256 * 1024 * 1024,
    },
  },
  consensus: {
    block_time: {
      doc: 'Time between blocks; "0s": a block as soon as transactions are ready (on demand, never empty).',
      format: 'duration',
      default: 400,
    },
    create_empty_blocks: {
      doc: 'Produce blocks without transactions too (not with block_time "0s").',
      format: Boolean,
      default: true,
    },
    proposer: {
      doc: "The block proposer's address, shown as the block's miner (empty: derived from the chain ID).",
      format: String,
      default: '',
    },
  },
  follower: {
    upstream: {
      doc: 'With role = "follower": the producer\'s native gateway (http://host:26657), where blocks come from.',
      format: String,
      default: '',
    },
    upstream_rpc: {
      doc:
        'With role = "follower": the producer\'s JSON-RPC endpoint (http://host:8545), where eth_sendRawTransaction ' +
        'is forwarded (empty: the follower refuses transactions). Native broadcasts go to upstream.',
      format: String,
      default: '',
    },
    poll_interval: {
      doc: 'With role = "follower": how often the producer is asked for blocks after the last one when none is pushed.',
      format: 'duration',
      default: 100,
    },
    max_lag_blocks: {
      doc: 'With role = "follower": how many blocks behind the producer GET /health still answers 200 (503 beyond).',
      format: 'nat',
      default: 10,
    },
  },
  native: {
    chain_id: {
      doc: "Native (Cosmos) chain ID that native transactions are signed for; the network profile's unless set.",
      format: String,
      default: 'sei-chain',
    },
    rpc_port: {
      doc: 'Port of the native gateway (Tendermint RPC subset) when the native-gateway plugin is loaded (0 picks a free port).',
      format: 'port',
      default: 26657,
    },
  },
  mempool: {
    size: {
      doc: "Room of the pool, in geth's slots of 32 KB: a transaction takes one for each 32 KB of its encoding begun (a transfer one, a 128 KB transaction four). When full, a better-paying transaction evicts the cheapest, else it gets 'transaction underpriced'.",
      format: 'nat',
      default: 5000,
    },
    min_gas_price: {
      doc: 'Lowest gas price, in wei, of legacy (type 0 and 1) transactions.',
      format: 'nat',
      default: 50_000_000_000,
    },
    account_slots: {
      doc: "Transactions per sender kept when the pool is full (geth's AccountSlots): a sender below it evicts from the largest holder.",
      format: 'nat',
      default: 16,
    },
    account_queue: {
      doc: 'Most queued (nonce-gapped) transactions per sender; more get "account limit exceeded" (geth\'s AccountQueue).',
      format: 'nat',
      default: 64,
    },
    global_queue: {
      doc: "Most queued (nonce-gapped) transactions in all (geth's GlobalQueue).",
      format: 'nat',
      default: 1024,
    },
    lifetime: {
      doc: "How long a sender's queued transactions wait without one of its transactions becoming ready (geth's Lifetime).",
      format: 'duration',
      default: 3 * 60 * 60 * 1000,
    },
  },
  state: {
    keep_recent: {
      doc: 'Blocks of history whose state stays queryable (0: every block, an archive node).',
      format: 'nat',
      default: 0,
    },
    accept_rollback: {
      doc:
        'Start even though the database lost blocks this node had acknowledged (its head is below the ' +
        'head marker: a write-ahead log cut short), continuing from its head; otherwise the node refuses to start.',
      format: Boolean,
      default: false,
    },
  },
  logging: {
    level: {
      doc: 'Log level.',
      format: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      default: 'info',
    },
    format: {
      doc: 'Log format: json, pretty, or auto (pretty on a terminal, json otherwise).',
      format: ['auto', 'json', 'pretty'],
      default: 'auto',
    },
  },
  metrics: {
    enabled: { doc: 'Serve Prometheus metrics at /metrics on the HTTP port.', format: Boolean, default: true },
  },
};
