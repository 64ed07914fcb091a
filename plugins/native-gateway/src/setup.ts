import { StartupError, type BlockRecord, type PluginSetup } from '@evmnode/core';
import type { Deps, NativeGatewayConfig } from './deps.js';
import { abciQueryMethod } from './methods/abci-query.js';
import { blockMethod, newBlockEvent } from './methods/block.js';
import { broadcastMethods } from './methods/broadcast.js';
import { statusMethod } from './methods/status.js';
import { txMethods } from './methods/tx.js';
import { accountQuery } from './queries/account-query.js';
import { allBalancesQuery, balanceQuery } from './queries/bank-queries.js';
import { NEW_BLOCK_QUERY } from './server/event-sockets.js';
import { GatewayServer } from './server/gateway-server.js';

const setup: PluginSetup<Deps, NativeGatewayConfig> = ({ deps, config, logger }) => {
  const { native, chain } = deps;
  const { max_unfinished_request_bytes } = deps.config.evm;
  // Its bodies are counted among the requests the node receives in part, as the EVM ports' are.
  if (config.max_body_bytes > max_unfinished_request_bytes) {
    throw new StartupError(
      `[plugins.native-gateway] max_body_bytes (${config.max_body_bytes}) must be at most [evm] ` +
        `max_unfinished_request_bytes (${max_unfinished_request_bytes}): a request body that large would always be refused`,
    );
  }
  const host = deps.config.evm.listen_address;
  let rpcAddress = '';
  const server = new GatewayServer(
    [
      statusMethod(native, chain, () => rpcAddress),
      blockMethod(native, chain),
      ...broadcastMethods(native, config.broadcast_commit_timeout, logger),
      ...txMethods(native),
      abciQueryMethod(chain, [accountQuery(native), balanceQuery(native), allBalancesQuery(native)]),
    ],
    {
      host,
      port: deps.config.native.rpc_port,
      maxBodyBytes: config.max_body_bytes,
      readTimeoutMs: deps.config.evm.read_timeout,
      idleTimeoutMs: deps.config.evm.idle_timeout,
      writeTimeoutMs: deps.config.evm.write_timeout,
      heldAnswers: deps.heldAnswers,
      unfinishedRequests: deps.unfinishedRequests,
      maxBatchSize: config.max_request_batch_size,
      // The same cap as the EVM ports' batches.
      maxResponseBytes: deps.config.evm.batch_response_max_size,
      clientShare: deps.config.evm.max_client_share,
      maxOpenConnections: config.max_open_connections,
      maxConnectionsPerAddress: config.max_connections_per_ip,
    },
    logger,
  );
  // Each committed block goes to the clients subscribed to new blocks, in commit order.
  let publishing: Promise<void> = Promise.resolve();
  let stopPublishing = () => {};
  const publish = (committed: { block: BlockRecord }) => {
    if (!server.events.wants(NEW_BLOCK_QUERY)) return;
    const event = newBlockEvent(committed.block, native, chain);
    publishing = publishing
      .then(async () => server.events.publish(NEW_BLOCK_QUERY, 'NewBlock', await event))
      .catch((error: unknown) => logger.warn({ err: error }, 'new block event not sent'));
  };
  return {
    async start() {
      stopPublishing = chain.onBlock(publish);
      const { port } = await server.listen();
      rpcAddress = `tcp://${host}:${port}`;
      logger.info({ address: host, port }, 'native gateway listening');
    },
    stop: () => {
      stopPublishing();
      return server.close();
    },
  };
};

export default setup;
