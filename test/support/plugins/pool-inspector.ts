import {
  address,
  CoreTokens,
  defineMethod,
  definePlugin,
  toQuantity,
  type PluginSetup,
  type PoolTransaction,
  type SenderPool,
} from '@evmnode/core';

// A third-party plugin that reads the pool through the plugin API alone, as the txpool namespace does.
const deps = { pool: CoreTokens.TxPoolReader, chain: CoreTokens.ChainReader };

const nonces = (txs: readonly PoolTransaction[]) => txs.map(({ nonce }) => toQuantity(nonce));
const noncesOf = ({ pending, queued }: SenderPool) => ({ pending: nonces(pending), queued: nonces(queued) });

const setup: PluginSetup<typeof deps> = ({ deps: { pool, chain }, rpc }) => {
  rpc.register([
    defineMethod({ name: 'test_poolCounts', params: [], handler: () => pool.counts() }),
    defineMethod({
      name: 'test_poolContent',
      params: [],
      handler: () => Object.fromEntries([...pool.content()].map(([sender, txs]) => [sender, noncesOf(txs)])),
    }),
    defineMethod({
      name: 'test_poolFrom',
      params: [address],
      handler: ([sender]) => noncesOf(pool.contentFrom(sender)),
    }),
    defineMethod({
      name: 'test_pooledSender',
      params: [address, address],
      handler: ([sender]) => {
        const first = pool.contentFrom(sender).pending[0];
        return first === undefined
          ? null
          : { hash: first.hash, sender: pool.byHash(first.hash)?.sender, to: first.tx.to?.toString() };
      },
    }),
    defineMethod({
      name: 'test_pendingNonce',
      params: [address],
      handler: async ([sender]) => ({ head: chain.head().height, nonce: toQuantity(await pool.pendingNonce(sender)) }),
    }),
  ]);
};

export default definePlugin({
  id: 'pool-inspector',
  coreApi: '^2.0.0',
  deps,
  setup: () => Promise.resolve({ default: setup }),
});
