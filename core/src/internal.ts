/**
 * Core internals for evmnode's own tests and tools. Plugins must not import this entry: it may
 * change in any release.
 */
export { Dispatcher } from './rpc/dispatcher.js';
export { wsFragments } from './rpc/response-text.js';
export { JsonArrayPacker } from './rpc/raw-json.js';
export { MethodRegistry } from './rpc/method-registry.js';
export { RequestHooks } from './rpc/request-hooks.js';
export { LEGACY_METHODS } from './rpc/legacy-method-names.js';
export { RpcRequest } from './rpc/rpc-request.js';
export { ClientTurns } from './rpc/client-turns.js';
export { chooseEncoding, encodeResponse } from './transport/response-compression.js';
export { isValidTarget } from './transport/http-server.js';
export { WsOutbox } from './transport/ws-outbox.js';
export { destroyWithOneError } from './transport/socket-errors.js';
export { decodeParams } from './rpc/decode-params.js';
export { loadNodeConfig, readConfigLayers } from './config/load-config.js';
export { coreSchema } from './config/core-schema.js';
export { envNameOf, parseFlags } from './config/config-sources.js';
export { profileNames } from './config/operator-profiles.js';
export { parseCliArgs } from './cli/cli-args.js';
export type { ConfigSources } from './config/config-sources.js';
export { renderAppToml } from './config/app-toml.js';
export { initialConfig } from './config/initial-config.js';
export { orderPlugins } from './plugins/plugin-order.js';
export type { LoadedPlugin } from './plugins/plugin-loader.js';
export { RocksDbStore } from './storage/rocksdb-store.js';
export { HeadMarker, HEAD_MARKER_FILE } from './storage/head-marker.js';
export { nextBaseFee } from './chain/base-fee.js';
export { consensusHeaderHash } from './chain/consensus-header.js';
export { devAccounts } from './chain/dev-accounts.js';
export { readGenesisFile } from './chain/genesis.js';
export { ChainStore } from './chain/chain-store.js';
export { logRecordOfJson, storedLogJson, storedLogMatches } from './logs/stored-log.js';
export { TrieNodeStore } from './chain/state/trie-node-store.js';
export { CoalescedReads } from './storage/coalesced-reads.js';
export { BatchPieces } from './storage/batch-pieces.js';
export { updateTrie, type TrieUpdate } from './chain/state/trie-batch-update.js';
export { trieValue } from './chain/state/trie-lookup.js';
export { keccak256 } from './chain/native-crypto.js';
export { storageRange } from './chain/state/storage-range.js';
export { readAccounts } from './chain/state/concurrent-reads.js';
export { readParentHashSlot, storeParentHash } from './chain/evm/block-history.js';
export { castEvmAddress } from './chain/native/addresses.js';
export { getSolidityString, putSolidityString } from './chain/native/solidity-storage.js';
export { POINTER_RUNTIME_CODE } from './chain/native/pointer-code.js';
export { StoredChainViews } from './views/chain-views.js';
export { IndexedLogQuery } from './logs/log-query.js';
export { GatheredLogsRoom } from './logs/gathered-logs-room.js';
export { LargeQueryRate } from './logs/large-query-rate.js';
export { PoolReader } from './chain/pool/pool-reader.js';
export { decodeSignedTransaction, fastTxOptions } from './chain/pool/raw-transaction.js';
export { Metrics } from './metrics/metrics.js';
export type { Chain } from './chain/chain.js';
export { BlockReplayer } from './chain/replay/block-replayer.js';
export { ChainSimulator } from './chain/simulation/simulator.js';
export { stateManagerAt, WorldState } from './chain/state/world-state.js';
export { TrieReads } from './chain/state/trie-reads.js';
export { evmCommon, fastBlockOptions } from './chain/evm/evm-common.js';
export { createBlockVM, executionBlock, runBlockTransaction } from './chain/block-execution.js';
export { runPlainTransfer } from './chain/plain-transfer.js';
export { NativeEffects } from './chain/native/native-effects.js';
export { installCodeAnalysisCache } from './chain/evm/code-analysis-cache.js';
export { SenderRecoveryThread } from './chain/follower/sender-recovery-thread.js';
export { AdmissionRecoveryThread } from './chain/pool/admission-recovery-thread.js';
export {
  SLOTS as ADMISSION_RECOVERY_SLOTS,
  SLOT_BYTES as ADMISSION_RECOVERY_SLOT_BYTES,
} from './chain/pool/admission-recovery-ring.js';
export { BlockDurations } from './chain/block-durations.js';
export { NativePool } from './chain/native/native-pool.js';
export { EvictionOrder } from './chain/pool/eviction-order.js';
export { TxPool } from './chain/pool/tx-pool.js';
export { PriorityQueue } from './chain/pool/priority-queue.js';
export type { StoredNativeTx } from './chain/records.js';
export { receiptsRootOf } from './chain/records.js';
