import type { Logger } from 'pino';
import { defineToken } from '../di/service-token.js';
import type { ChainInfo } from './chain-info.js';
import type { ChainReader } from '../api/chain-reader.js';
import type { ChainViews } from '../api/chain-views.js';
import type { LogQuery } from '../api/log-query.js';
import type { NativeLayer } from '../api/native-layer.js';
import type { Replayer } from '../api/replayer.js';
import type { Simulator } from '../api/simulator.js';
import type { TxPoolReader } from '../api/tx-pool-reader.js';
import type { TxSubmitter } from '../api/tx-submitter.js';
import type { KeyRing } from '../keys/key-ring.js';
import type { CoreConfig } from '../config/core-schema.js';
import type { Database } from '../storage/database.js';
import type { Metrics } from '../metrics/metrics.js';
import type { RequestHooks } from '../rpc/request-hooks.js';
import type { HeldAnswers } from '../transport/held-answers.js';
import type { UnfinishedRequests } from '../transport/unfinished-requests.js';

/** The services core provides to every plugin, each typed by its interface (docs/plugins.md). */
export const CoreTokens = {
  /** The node's validated configuration (core sections; plugins get their own section in setup). */
  Config: defineToken<CoreConfig>('Config'),
  /** Chain identity: chain ID and network. */
  ChainInfo: defineToken<ChainInfo>('ChainInfo'),
  /** The committed chain: head, blocks, receipts, state at a height, the block event bus. */
  ChainReader: defineToken<ChainReader>('ChainReader'),
  /** Submission of signed EVM transactions. */
  TxSubmitter: defineToken<TxSubmitter>('TxSubmitter'),
  /** The EVM transaction pool, read-only: pending and queued transactions by sender and nonce. */
  TxPoolReader: defineToken<TxPoolReader>('TxPoolReader'),
  /** Committed blocks and transactions replayed on their parent's state with an EVM tracer attached. */
  Replayer: defineToken<Replayer>('Replayer'),
  /** Blocks, transactions and receipts in their JSON-RPC shapes. */
  ChainViews: defineToken<ChainViews>('ChainViews'),
  /** Log queries with the reference node's checks and limits: `eth_getLogs` and the filters. */
  LogQuery: defineToken<LogQuery>('LogQuery'),
  /** Simulated calls on any block's state: `eth_call`, gas estimates, access lists. */
  Simulator: defineToken<Simulator>('Simulator'),
  /** The native side: native transaction admission and results, native accounts and balances. */
  NativeLayer: defineToken<NativeLayer>('NativeLayer'),
  /** The keys the node signs with: empty unless a plugin (`hosted-keys`) adds some. */
  KeyRing: defineToken<KeyRing>('KeyRing'),
  /** The node's key-value database. */
  Database: defineToken<Database>('Database'),
  /** Prometheus metrics, or null when `[metrics] enabled = false`. */
  Metrics: defineToken<Metrics | null>('Metrics'),
  /** Request hooks run by the dispatcher around every call (limits, metrics, gates). */
  RequestHooks: defineToken<RequestHooks>('RequestHooks'),
  /** The answers the node holds for its clients (gathered by batches, or unread), bounded as a whole (`[evm] max_held_answer_bytes`). */
  HeldAnswers: defineToken<HeldAnswers>('HeldAnswers'),
  /** The requests the node has received part of, bounded as a whole (`[evm] max_unfinished_request_bytes`). */
  UnfinishedRequests: defineToken<UnfinishedRequests>('UnfinishedRequests'),
  /** The root logger; plugins receive a child logger in setup instead. */
  Logger: defineToken<Logger>('Logger'),
} as const;
