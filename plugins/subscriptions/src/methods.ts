import {
  codec,
  CodecError,
  defineMethod,
  InternalError,
  jsonKind,
  logCriteria,
  MethodNotFoundError,
  string,
} from '@evmnode/core';
import type { SubscriptionHub } from './subscription-hub.js';

/** A subscription ID (geth's `rpc.ID`): a string. */
const subscriptionId = codec('rpc.ID', (value): string => {
  if (typeof value !== 'string') throw new CodecError(jsonKind(value), 'rpc.ID');
  return value;
});

/** §4.10: `eth_subscribe` and `eth_unsubscribe`, WebSocket only (over HTTP: `notifications not supported`). */
export function subscriptionMethods(hub: SubscriptionHub) {
  return [
    defineMethod({
      name: 'eth_subscribe',
      params: [string, logCriteria.optional()],
      transports: ['ws'],
      handler: ([kind, criteria], { connection }) => {
        if (connection === undefined) throw new InternalError('a subscription needs a connection');
        switch (kind) {
          case 'newHeads':
            return hub.subscribeNewHeads(connection);
          case 'logs':
            return hub.subscribeLogs(connection, criteria ?? { topics: [] });
          default:
            throw new MethodNotFoundError(`no "${kind}" subscription in eth namespace`);
        }
      },
    }),
    defineMethod({
      name: 'eth_unsubscribe',
      params: [subscriptionId],
      transports: ['ws'],
      handler: ([id], { connection }) => {
        if (connection === undefined) throw new InternalError('a subscription needs a connection');
        return hub.unsubscribe(connection, id);
      },
    }),
  ];
}
