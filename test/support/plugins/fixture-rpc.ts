import { defineConnectionState, defineMethod, definePlugin, type PluginSetup, RawJson, uint64 } from '@evmnode/core';
import { fixtureEvents } from './shared.js';

const subscriptionCount = defineConnectionState('fixture subscriptions', () => ({ count: 0 }));

/** Methods that exercise core's transports: policy, connection state, notifications, headers, deadlines. */
const setup: PluginSetup = ({ rpc }) => {
  const concurrent = { running: 0, peak: 0 };
  rpc.register([defineMethod({ name: 'debug_ping', params: [], handler: () => 'pong' })], { transports: ['http'] });
  rpc.register(
    [
      defineMethod({
        name: 'fixture_flood',
        params: [uint64],
        // Pushes `count` notifications of 1 MiB each and records how many the connection took.
        handler: ([count], { connection }) => {
          const megabyte = 'x'.repeat(1024 * 1024);
          let delivered = 0;
          while (delivered < count && connection!.notify('fixture_flood', megabyte)) delivered++;
          fixtureEvents.push(`flood:${delivered}`);
          return delivered;
        },
      }),
      defineMethod({
        name: 'fixture_subscribe',
        params: [],
        handler: (_params, { connection }) => {
          const state = connection!.state(subscriptionCount);
          const id = `0x${(++state.count).toString(16)}`;
          connection!.onClose(() => fixtureEvents.push(`closed:${connection!.id}`));
          setImmediate(() => connection!.notify('fixture_subscription', { subscription: id, result: 'hello' }));
          return id;
        },
      }),
    ],
    { transports: ['ws'] },
  );
  rpc.register([
    defineMethod({
      name: 'fixture_sleep',
      params: [uint64],
      handler: async ([ms]) => {
        await new Promise((resolve) => setTimeout(resolve, Number(ms)));
        return 'awake';
      },
    }),
    defineMethod({
      name: 'fixture_concurrent',
      params: [uint64],
      // Sleeps, and answers the most calls of this method that ran at once so far.
      handler: async ([ms]) => {
        concurrent.peak = Math.max(concurrent.peak, ++concurrent.running);
        await new Promise((resolve) => setTimeout(resolve, Number(ms)));
        concurrent.running--;
        return concurrent.peak;
      },
    }),
    defineMethod({
      name: 'fixture_header',
      params: [],
      handler: (_params, request) => {
        request.setResponseHeader('Ext-Legacy-RPC-Deprecation', 'deprecated');
        return 'with header';
      },
    }),
    defineMethod({ name: 'fixture_big', params: [], handler: () => 'x'.repeat(4096) }),
    defineMethod({
      name: 'fixture_pieces',
      params: [uint64],
      // A JSON array of `count` strings of 4,096 x's, in pieces as traces make theirs.
      handler: ([count]) => {
        const element = Buffer.from(`"${'x'.repeat(4096)}"`);
        const parts = Array.from({ length: Number(count) }, (_, index) => [
          Buffer.from(index === 0 ? '[' : ','),
          element,
        ]);
        return new RawJson([...parts.flat(), Buffer.from(']')]);
      },
    }),
    defineMethod({
      name: 'fixture_untilAborted',
      params: [],
      // Waits for the request's signal, and records why it was aborted.
      handler: (_params, { signal }) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            fixtureEvents.push(`aborted:${(signal.reason as Error).message}`);
            resolve('aborted');
          });
        }),
    }),
  ]);
};

export default definePlugin({ id: 'fixture-rpc', coreApi: '^2.8.0', setup: () => Promise.resolve({ default: setup }) });
