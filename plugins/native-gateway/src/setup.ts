import type { PluginSetup } from '@evmnode/core';
import type { Deps, NativeGatewayConfig } from './deps.js';
import { abciQueryMethod } from './methods/abci-query.js';
import { blockMethod } from './methods/block.js';
import { broadcastMethods } from './methods/broadcast.js';
import { statusMethod } from './methods/status.js';
import { txMethods } from './methods/tx.js';
import { accountQuery } from './queries/account-query.js';
import { allBalancesQuery, balanceQuery } from './queries/bank-queries.js';
import { GatewayServer } from './server/gateway-server.js';

const setup: PluginSetup<Deps, NativeGatewayConfig> = ({ deps, config, logger }) => {
  const { native, chain } = deps;
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
      maxBatchSize: config.max_request_batch_size,
      // The same cap as the EVM ports' batches.
      maxResponseBytes: deps.config.evm.batch_response_max_size,
      maxOpenConnections: config.max_open_connections,
      maxConnectionsPerAddress: config.max_connections_per_ip,
    },
    logger,
  );
  return {
    async start() {
      const { port } = await server.listen();
      rpcAddress = `tcp://${host}:${port}`;
      logger.info({ address: host, port }, 'native gateway listening');
    },
    stop: () => server.close(),
  };
};

export default setup;
