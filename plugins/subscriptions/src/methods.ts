import {
  defineMethod,
  InternalError,
  logCriteria,
  MethodNotFoundError,
  rpcId,
  string,
  type Connection,
  type RequestContext,
} from '@evmnode/core';
import type { SubscriptionHub } from './subscription-hub.js';

/** The WebSocket connection a subscription belongs to (these methods are served over WebSocket only). */
function connectionOf({ connection }: RequestContext): Connection {
  if (connection === undefined) throw new InternalError('a subscription needs a connection');
  return connection;
}

/** §4.10: `eth_subscribe` and `eth_unsubscribe`, WebSocket only (over HTTP: `notifications not supported`). */
export function subscriptionMethods(hub: SubscriptionHub) {
  return [
    defineMethod({
      name: 'eth_subscribe',
      params: [string, logCriteria.optional()],
      transports: ['ws'],
      handler: ([kind, criteria], request) => {
        switch (kind) {
          case 'newHeads':
            return hub.subscribeNewHeads(connectionOf(request), request.clientId);
          case 'logs':
            return hub.subscribeLogs(connectionOf(request), request.clientId, criteria ?? { topics: [] });
          default:
            throw new MethodNotFoundError(`no "${kind}" subscription in eth namespace`);
        }
      },
    }),
    defineMethod({
      name: 'eth_unsubscribe',
      params: [rpcId],
      transports: ['ws'],
      handler: ([id], request) => hub.unsubscribe(connectionOf(request), id),
    }),
  ];
}
