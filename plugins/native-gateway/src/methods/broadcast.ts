import type { NativeCheckResult, NativeLayer } from '@evmnode/core';
import { sha256 } from '@noble/hashes/sha2.js';
import type { Logger } from 'pino';
import { checkTxJson, EMPTY_EXEC_TX_RESULT, execTxResultJson, upperHex } from '../comet-json.js';
import { bytesArg } from '../server/args.js';
import { defineGatewayMethod, type GatewayMethod } from '../server/gateway-method.js';
import { CometRpcError } from '../server/rpc-error.js';

const BROADCAST_ARGS = { tx: bytesArg };

/** `ResultBroadcastTx`: `data` is HexBytes there, empty since the check returns none. */
function broadcastResult(check: Pick<NativeCheckResult, 'code' | 'log' | 'codespace' | 'hash'>): object {
  return { code: check.code, data: '', log: check.log, codespace: check.codespace, hash: upperHex(check.hash) };
}

/**
 * `broadcast_tx_async` (answers at once), `broadcast_tx_sync` (answers with the admission check)
 * and `broadcast_tx_commit` (waits for the block, up to `commitTimeoutMs`, then fails with
 * CometBFT's words). A transaction the check refuses is not applied.
 */
export function broadcastMethods(native: NativeLayer, commitTimeoutMs: number, logger: Logger): GatewayMethod[] {
  return [
    defineGatewayMethod('broadcast_tx_async', BROADCAST_ARGS, ({ tx }, { client }) => {
      native.submit(tx, { clientId: client }).then(
        (check) => logger.debug({ code: check.code, log: check.log }, 'asynchronous broadcast checked'),
        (error: unknown) => logger.warn({ err: error }, 'asynchronous broadcast failed'),
      );
      return broadcastResult({ code: 0, log: '', codespace: '', hash: sha256(tx) });
    }),
    defineGatewayMethod('broadcast_tx_sync', BROADCAST_ARGS, async ({ tx }, { client }) =>
      broadcastResult(await native.submit(tx, { clientId: client })),
    ),
    defineGatewayMethod('broadcast_tx_commit', BROADCAST_ARGS, async ({ tx }, { client }) => {
      const check = await native.submit(tx, { clientId: client });
      const hash = upperHex(check.hash);
      if (check.code !== 0) {
        return { check_tx: checkTxJson(check), tx_result: EMPTY_EXEC_TX_RESULT, hash, height: '0' };
      }
      const record = await native.whenIncluded(check.hash, commitTimeoutMs);
      if (record === undefined) throw CometRpcError.internal('timed out waiting for tx to be included in a block');
      return {
        check_tx: checkTxJson(check),
        tx_result: execTxResultJson(record),
        hash,
        height: record.height.toString(),
      };
    }),
  ];
}
