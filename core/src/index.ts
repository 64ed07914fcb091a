/**
 * evmnode's core: everything a plugin may import. Plugins import this surface only.
 */
import 'reflect-metadata';

export { CORE_API_VERSION, definePlugin } from './plugins/define-plugin.js';
export type {
  PluginContext,
  PluginLifecycle,
  PluginManifest,
  PluginSetup,
  ResolvedDeps,
  ServiceDeps,
} from './plugins/define-plugin.js';

export { defineMethod, namespaceOf } from './rpc/define-method.js';
export type { DecodedParams, MethodDefinition, Transport } from './rpc/define-method.js';
export { defineConnectionState } from './rpc/request-context.js';
export type { Connection, ConnectionStateKey, RequestContext, ResponseHeaderOptions } from './rpc/request-context.js';
export type { RequestHook } from './rpc/request-hooks.js';
export {
  codec,
  CodecError,
  collectionCodec,
  decodeInto,
  eachInTurns,
  isCodecError,
  jsonKind,
  whenDecoded,
} from './rpc/codec.js';
export type { ParamCodec, RequiredCodec } from './rpc/codec.js';
export { address, data, hash, quantity, toQuantity, uint64 } from './rpc/hex-codecs.js';
export { blockNumberOrTag, blockRef, blockRefOf, blockRefOfHash, LATEST_BLOCK } from './rpc/block-codecs.js';
export type { BlockNumberOrTag, BlockRef, BlockTag } from './rpc/block-codecs.js';
export { arrayOf, boolean, objectOf, string } from './rpc/structural-codecs.js';
export type { DecodedObject } from './rpc/structural-codecs.js';
export { accessList, blockOverrides, callRequest, stateOverrides } from './rpc/call-codecs.js';
export type {
  AccessListEntry,
  AccountOverride,
  AuthorizationEntry,
  BlockOverrides,
  CallRequest,
  StateOverrides,
} from './rpc/call-codecs.js';
export { BATCH_CONCURRENCY, MAX_BATCHES_UNDER_WAY, runBoundedBatch } from './rpc/bounded-batch.js';
export type { BatchClient, BoundedBatchOptions, BoundedBatchRun } from './rpc/bounded-batch.js';
export { ClientQuota } from './rpc/client-quota.js';
export {
  MAX_JSON_VALUES,
  MAX_NESTING_DEPTH,
  MAX_DISTINCT_KEYS,
  parseRequestJson,
  RequestJsonBusyError,
} from './rpc/request-json.js';
export { FailFastLimiter } from './rpc/fail-fast-limiter.js';
export { EventLoopTurns, type Turns } from './rpc/event-loop-turns.js';
export { ConnectionLimits } from './transport/connection-limits.js';
export { PipelineBound } from './transport/pipeline-bound.js';
export { clientOf } from './transport/peer-address.js';
export type { ConnectionLimitOptions } from './transport/connection-limits.js';
export { FRESH_ANSWER_MS, HELD_ANSWERS_BUSY, HeldAnswers } from './transport/held-answers.js';
export { UNFINISHED_REQUESTS_BUSY, UnfinishedRequests } from './transport/unfinished-requests.js';
export { decodeStorageKey, storageKey } from './rpc/storage-key-codec.js';

export { ErrorCode } from './errors/codes.js';
export * from './errors/rpc-error.js';

export { defineToken } from './di/service-token.js';
export type { ServiceOf, ServiceToken } from './di/service-token.js';
export { CoreTokens } from './node/core-tokens.js';
export type { ChainInfo } from './node/chain-info.js';
export type { CoreConfig } from './config/core-schema.js';
export type { NetworkName } from './config/profiles.js';
export { isStartupError, StartupError } from './node/startup-error.js';
export { EvmNode } from './node/evm-node.js';

// The services plugins ask for (CoreTokens), by interface, and the records they hand out.
export type { AccountState, BlockListener, ChainReader, TxLocation } from './api/chain-reader.js';
export type { SubmitOptions, TxSubmitter } from './api/tx-submitter.js';
export type { PoolTransaction, SenderPool, TxPoolReader } from './api/tx-pool-reader.js';
export type {
  EvmTracer,
  FrameType,
  ReplayedTransaction,
  Replayer,
  ReplayOptions,
  StateAccess,
  TracedLog,
  TracedSelfDestruct,
  TraceOutcome,
  TraceSubject,
} from './api/replayer.js';
export type { AccessListResult, SimulationOptions, Simulator } from './api/simulator.js';
export type { FoundLog, LogQuery, LogQueryLimits, LogRange, LogView } from './api/log-query.js';
export type { BlockView, ChainViews, JsonObject } from './api/chain-views.js';
export type { NativeLayer } from './api/native-layer.js';
export type { LogIndexKey, LogPosition } from './logs/log-index.js';
export type { BlockRecord, CommittedBlock, LogRecord, ReceiptFields, ReceiptRecord } from './chain/records.js';
export type { StorageProof, StorageProofOp } from './chain/state/state-proofs.js';
export type { StorageRange, StorageSlot } from './chain/state/storage-range.js';
export { ChainParams } from './chain/chain-params.js';
export {
  castEvmAddress,
  castNativeAddress,
  decodeNativeAddress,
  encodeNativeAddress,
  evmAddressOfKey,
  nativeAddressOfKey,
  NativeAddressError,
} from './chain/native/addresses.js';
export { MsgAssociate, MsgAssociateBySignature, MsgRegisterPointer } from './chain/native/messages.js';
export { associationBySignatureTx } from './chain/native/native-transaction.js';
export { wrapEvmTransaction } from './chain/native-tx.js';
export type { StringFieldsType } from './chain/native/messages.js';
export { pointerAddressOf } from './chain/native/pointers.js';
export type {
  Coin,
  DenomMetadata,
  NativeAccount,
  NativeCheckResult,
  NativeEvent,
  NativeTransfer,
  NativeTxRecord,
} from './chain/native/native-types.js';
export { gethVmError, revertReason } from './chain/simulation/call-errors.js';
export { isCongested, rewardPercentiles, suggestedGasPrice, suggestedTip } from './chain/fee-suggestions.js';
export { LogMatcher } from './logs/log-criteria.js';
export { CriteriaRoom, criteriaValues, MAX_HELD_CRITERIA_VALUES } from './logs/criteria-room.js';
export type { LogCriteria, LogMatch } from './logs/log-criteria.js';
export { formatLog } from './views/log-json.js';
export { formatHeader } from './views/block-json.js';
export { blockViewMethods, transactionViewMethods } from './views/view-methods.js';
export type { ViewNamespace } from './views/view-methods.js';
export { nonceAndErrorMethods } from './views/nonce-error-methods.js';
export { logCriteria } from './rpc/log-criteria-codec.js';
export { RawJson } from './rpc/raw-json.js';
export { newRpcId, rpcId } from './rpc/rpc-id.js';
export { formatTransaction } from './views/transaction-json.js';
export type { TransactionPlace } from './views/transaction-json.js';
export type { KeyRing } from './keys/key-ring.js';
export { personalSignMethod } from './keys/personal-sign.js';
export { DEV_ACCOUNT_COUNT, devAccounts } from './chain/dev-accounts.js';
export type { DevAccount } from './chain/dev-accounts.js';

export { Database, SCHEMA_VERSION } from './storage/database.js';
export { Bucket, bucketKey, bucketRange, uint64BE } from './storage/buckets.js';
export type { KeyPart } from './storage/buckets.js';
export type { KeyRange, KvStore, WriteBatch } from './storage/kv-store.js';
export { MemoryStore } from './storage/memory-store.js';
export { bytesCodec, Repository, uint64Codec, utf8Codec } from './storage/repository.js';
export type { BytesCodec, RepositoryRange } from './storage/repository.js';

export type { Metrics } from './metrics/metrics.js';
export { EVMNODE_VERSION } from './version.js';
