import type { AddressInfo } from 'node:net';
import type { DestinationStream, Logger } from 'pino';
import type { ChainInfo } from './chain-info.js';
import { CoreTokens } from './core-tokens.js';
import { InternalTokens } from './internal-tokens.js';
import type { ConfigSources } from '../config/config-sources.js';
import type { CoreConfig } from '../config/core-schema.js';
import { loadCoreConfig, loadNodeConfig, readConfigLayers, type NodeConfig } from '../config/load-config.js';
import type { ConfigSchema } from '../config/schema-tree.js';
import type { TxSubmitter } from '../api/tx-submitter.js';
import { BlockProducer } from '../chain/block-producer.js';
import { BlockFollower } from '../chain/follower/block-follower.js';
import { ForwardingSubmitter } from '../chain/follower/forwarding-submitter.js';
import { UpstreamGateway } from '../chain/follower/upstream-gateway.js';
import { Chain } from '../chain/chain.js';
import type { NativeRules } from '../chain/native/native-executor.js';
import { ChainNativeLayer } from '../chain/native/native-layer.js';
import { loadGenesis } from '../chain/genesis-source.js';
import { PoolReader } from '../chain/pool/pool-reader.js';
import { BlockReplayer } from '../chain/replay/block-replayer.js';
import { ChainSimulator } from '../chain/simulation/simulator.js';
import { KeyRing } from '../keys/key-ring.js';
import { StoredChainViews } from '../views/chain-views.js';
import { IndexedLogQuery } from '../logs/log-query.js';
import { createNodeContainer } from '../di/container.js';
import { createLogger } from '../logging/logger.js';
import { Metrics } from '../metrics/metrics.js';
import { rpcMetricsHook } from '../metrics/rpc-metrics-hook.js';
import { CORE_API_VERSION } from '../plugins/define-plugin.js';
import { PluginHost } from '../plugins/plugin-host.js';
import { loadPlugins, type LoadedPlugin } from '../plugins/plugin-loader.js';
import { orderPlugins } from '../plugins/plugin-order.js';
import { Dispatcher } from '../rpc/dispatcher.js';
import { MethodRegistry } from '../rpc/method-registry.js';
import { LegacyGate } from '../rpc/legacy-gate.js';
import { RequestHooks } from '../rpc/request-hooks.js';
import { InvalidInputError } from '../errors/rpc-error.js';
import { StartupError } from './startup-error.js';
import { producerHealth, type HealthCheck } from './health.js';
import { Database, dataFolderOf } from '../storage/database.js';
import { HeadMarker } from '../storage/head-marker.js';
import { HttpTransport } from '../transport/http-server.js';
import { WsTransport } from '../transport/ws-server.js';
import { HeldAnswers } from '../transport/held-answers.js';
import { UnfinishedRequests } from '../transport/unfinished-requests.js';

export interface NodeOptions {
  readonly sources: ConfigSources;
  /** Where log lines go instead of stdout. */
  readonly logDestination?: DestinationStream;
}

/** The configuration and plugin order a node would run with, without starting anything. */
export interface ResolvedNodeSetup {
  readonly config: NodeConfig;
  readonly plugins: readonly LoadedPlugin[];
  readonly disabled: readonly { readonly plugin: LoadedPlugin; readonly tag: string }[];
}

/** Reads the configuration, loads the listed plugins' manifests, orders them and validates everything strictly. */
export async function resolveNodeSetup(sources: ConfigSources): Promise<ResolvedNodeSetup> {
  const layers = readConfigLayers(sources);
  const core = loadCoreConfig(layers);
  const order = orderPlugins(await loadPlugins(core.node.plugins), core.node.disable_tags, CORE_API_VERSION);
  const fragments = new Map<string, ConfigSchema>();
  for (const { manifest } of order.active)
    if (manifest.config !== undefined) fragments.set(manifest.id, manifest.config);
  return { config: loadNodeConfig(layers, fragments), plugins: order.active, disabled: order.disabled };
}

/** A running node: storage, plugins and transports, stopped in reverse order. */
/** What native transactions are checked against: the native chain ID and the minimum gas price. */
function nativeRulesOf(core: CoreConfig): Omit<NativeRules, 'denoms'> {
  return { chainId: core.native.chain_id, minGasPrice: BigInt(core.mempool.min_gas_price) };
}

/** Where a node's blocks come from: its own production, or its producer's chain (a follower). */
interface BlockSource {
  start(): void;
  /** Resolves once a block in progress is committed. */
  stop(): Promise<void>;
}

/** A follower's producer, or why the configuration names none. */
function upstreamOf(core: CoreConfig): UpstreamGateway {
  if (core.follower.upstream === '')
    throw new StartupError(
      '[node] role = "follower" needs [follower] upstream: the URL of the producer\'s native gateway (http://host:26657)',
    );
  return new UpstreamGateway(core.follower.upstream, core.evm.max_client_share);
}

/** Where a follower sends `eth_sendRawTransaction`: the producer's JSON-RPC endpoint, or nowhere without one. */
function followerSubmitter(core: CoreConfig): TxSubmitter {
  if (core.follower.upstream_rpc !== '')
    return new ForwardingSubmitter(core.follower.upstream_rpc, core.evm.max_client_share);
  const refusal = new InvalidInputError(
    `this node follows ${core.follower.upstream} and has no [follower] upstream_rpc to send transactions to: ` +
      "send them to the producer's JSON-RPC endpoint",
  );
  return { submit: () => Promise.reject(refusal) };
}

export class EvmNode {
  #stopping: Promise<void> | undefined;

  private constructor(
    readonly config: NodeConfig,
    readonly logger: Logger,
    private readonly host: PluginHost,
    private readonly database: Database,
    /** The chain, for tools and tests that run the node in-process. */
    readonly chain: Chain,
    /** The native side, for tools and tests that run the node in-process. */
    readonly native: ChainNativeLayer,
    private readonly blocks: BlockSource,
    private readonly headMarker: HeadMarker,
    private readonly http: HttpTransport | undefined,
    private readonly ws: WsTransport | undefined,
    /** The bound HTTP address, when HTTP is enabled. */
    readonly httpAddress: AddressInfo | undefined,
    /** The bound WebSocket address, when WebSocket is enabled. */
    readonly wsAddress: AddressInfo | undefined,
  ) {}

  /** Starts a node; a {@link StartupError} explains why it refuses to. */
  static async start(options: NodeOptions): Promise<EvmNode> {
    const { config, plugins, disabled } = await resolveNodeSetup(options.sources);
    const core = config.core;
    const logger = await createLogger(core.logging, options.logDestination);
    for (const { plugin, tag } of disabled)
      logger.info({ plugin: plugin.manifest.id, tag }, 'plugin switched off by disable_tags');

    const container = createNodeContainer();
    const chainInfo: ChainInfo = { network: core.node.network, chainId: BigInt(core.node.chain_id) };
    const metrics = core.metrics.enabled ? new Metrics() : null;
    container.register(CoreTokens.Config, { useValue: core });
    container.register(CoreTokens.ChainInfo, { useValue: chainInfo });
    container.register(CoreTokens.Logger, { useValue: logger });
    // A factory, not a value: tsyringe takes a null value for a missing registration.
    container.register(CoreTokens.Metrics, { useFactory: () => metrics });
    container.register(CoreTokens.RequestHooks, { useValue: new RequestHooks() });
    const heldAnswers = new HeldAnswers(core.evm.max_held_answer_bytes);
    container.register(CoreTokens.HeldAnswers, { useValue: heldAnswers });
    container.register(CoreTokens.UnfinishedRequests, {
      useValue: new UnfinishedRequests(core.evm.max_unfinished_request_bytes),
    });
    container.registerSingleton(InternalTokens.MethodRegistry, MethodRegistry);
    container.registerSingleton(InternalTokens.Dispatcher, Dispatcher);

    const database = await Database.openInHome(options.sources.home);
    container.register(CoreTokens.Database, { useValue: database });
    let chain: Chain;
    let producer: BlockProducer;
    let blocks: BlockSource;
    let upstream: UpstreamGateway | undefined;
    let health: HealthCheck;
    let headMarker: HeadMarker;
    try {
      chain = await Chain.open(
        database,
        () => loadGenesis(options.sources.home, core),
        core,
        logger.child({ module: 'chain' }),
      );
      headMarker = await HeadMarker.open(dataFolderOf(options.sources.home), logger.child({ module: 'storage' }));
      await headMarker.check(chain.head().height, core.state.accept_rollback);
      const settings = {
        blockTimeMs: core.consensus.block_time,
        createEmptyBlocks: core.consensus.create_empty_blocks,
        nativeRules: nativeRulesOf(core),
      };
      producer = await BlockProducer.create(chain, settings, logger.child({ module: 'producer' }));
      upstream = core.node.role === 'follower' ? upstreamOf(core) : undefined;
      if (upstream === undefined) {
        blocks = producer;
        health = producerHealth(producer, chain);
      } else {
        const follower = new BlockFollower(
          chain,
          producer,
          upstream,
          core.follower.poll_interval,
          logger.child({ module: 'follower' }),
        );
        blocks = follower;
        health = () => follower.health(core.follower.max_lag_blocks);
      }
    } catch (error) {
      await database.close();
      throw error;
    }
    // Published blocks are durable ones: the marker follows them, written off the block's path.
    chain.events.onBlock((committed) => headMarker.record(committed.block.height));
    container.register(InternalTokens.Health, { useValue: health });
    container.register(CoreTokens.ChainReader, { useValue: chain });
    container.register(CoreTokens.TxSubmitter, { useValue: upstream === undefined ? chain : followerSubmitter(core) });
    container.register(CoreTokens.TxPoolReader, {
      useValue: new PoolReader(chain.pool, (sender) => chain.pendingNonce(sender)),
    });
    const simulator = new ChainSimulator(chain, {
      gasCap: BigInt(core.evm.simulation_gas_limit),
      evmTimeoutMs: core.evm.simulation_evm_timeout,
    });
    container.register(CoreTokens.Simulator, { useValue: simulator });
    container.register(CoreTokens.Replayer, { useValue: new BlockReplayer(chain, simulator, nativeRulesOf(core)) });
    const forward =
      upstream === undefined ? undefined : (raw: Uint8Array, clientId?: string) => upstream.broadcast(raw, clientId);
    const native = new ChainNativeLayer(chain, nativeRulesOf(core), core.evm.max_client_share, forward);
    container.register(CoreTokens.NativeLayer, { useValue: native });
    container.register(CoreTokens.KeyRing, { useValue: new KeyRing() });
    container.register(CoreTokens.ChainViews, { useValue: new StoredChainViews(chain, heldAnswers) });
    const logLimits = {
      maxBlocks: core.evm.max_blocks_for_log,
      maxOpenEndedLogs: core.evm.max_log_no_block,
      clientShare: core.evm.max_client_share,
    };
    container.register(CoreTokens.LogQuery, { useValue: new IndexedLogQuery(chain, logLimits, heldAnswers) });
    const registry = container.resolve<MethodRegistry>(InternalTokens.MethodRegistry);
    const hooks = container.resolve<RequestHooks>(CoreTokens.RequestHooks);
    // Every node runs the gate, legacy plugins loaded or not: it is what keeps them fail-closed.
    hooks.add(new LegacyGate(core.evm.enabled_legacy_ext_apis, logger.child({ module: 'rpc' })));
    if (metrics !== null) hooks.add(rpcMetricsHook(metrics, registry));
    const { home, env } = options.sources;
    const host = new PluginHost({ container, registry, hooks, config, logger, home, env });

    const http = core.evm.http_enabled ? container.resolve(HttpTransport) : undefined;
    const ws = core.evm.ws_enabled ? container.resolve(WsTransport) : undefined;
    try {
      await host.setUp(plugins, core.node.plugin_setup_timeout);
      registry.seal();
      hooks.seal();
      await host.start();
      blocks.start();
      const node = new EvmNode(
        config,
        logger,
        host,
        database,
        chain,
        native,
        blocks,
        headMarker,
        http,
        ws,
        await http?.listen(),
        await ws?.listen(),
      );
      logger.info(
        {
          http: node.httpAddress,
          ws: node.wsAddress,
          chainId: core.node.chain_id,
          plugins: plugins.map((plugin) => plugin.manifest.id),
        },
        'evmnode started',
      );
      return node;
    } catch (error) {
      await Promise.all([http?.close(0), ws?.close()]);
      await blocks.stop();
      await headMarker.flush();
      await host.stop();
      await database.close();
      throw error;
    }
  }

  /**
   * Stops accepting requests, lets in-flight ones finish (up to `[node] shutdown_timeout`), lets
   * the block being produced commit, writes the head marker, stops plugins in reverse order and closes the database. Calling it again waits for the same stop.
   */
  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    await Promise.all([this.http?.close(this.config.core.node.shutdown_timeout), this.ws?.close()]);
    await this.blocks.stop();
    await this.chain.admissionRecovery.stop();
    await this.headMarker.flush();
    await this.host.stop();
    await this.database.close();
    this.logger.info('evmnode stopped');
  }
}
