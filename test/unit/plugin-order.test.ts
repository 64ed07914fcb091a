import { expect } from 'chai';
import { CORE_API_VERSION, CoreTokens, definePlugin, defineToken, type PluginManifest } from '@evmnode/core';
import { orderPlugins, type LoadedPlugin } from '@evmnode/core/internal';

function plugin(id: string, extra: Partial<PluginManifest> = {}, entry = id): LoadedPlugin {
  return {
    entry,
    manifest: definePlugin({ id, coreApi: '^2.0.0', setup: () => Promise.reject(new Error('not set up')), ...extra }),
  };
}

const Blobs = defineToken<string[]>('BlobStore');
const Keys = defineToken<string[]>('KeyStore');

const ids = (plugins: readonly LoadedPlugin[]) => plugins.map((loaded) => loaded.manifest.id);

describe('plugin order', () => {
  it('keeps the operator order when nothing depends on anything', () => {
    expect(ids(orderPlugins([plugin('c'), plugin('a'), plugin('b')], [], CORE_API_VERSION).active)).to.deep.equal([
      'c',
      'a',
      'b',
    ]);
  });

  it('puts dependencies first and breaks ties in the operator order', () => {
    const listed = [
      plugin('filters', { dependsOn: ['eth-query'] }),
      plugin('txpool'),
      plugin('eth-query'),
      plugin('subs', { dependsOn: ['filters'] }),
    ];
    expect(ids(orderPlugins(listed, [], CORE_API_VERSION).active)).to.deep.equal([
      'txpool',
      'eth-query',
      'filters',
      'subs',
    ]);
  });

  it('refuses a duplicate id, naming both entries', () => {
    expect(() => orderPlugins([plugin('a', {}, './one'), plugin('a', {}, './two')], [], CORE_API_VERSION)).to.throw(
      'plugin id "a" is given twice in [node] plugins (by "./one" and "./two"): keep only one of them.',
    );
  });

  it('refuses a missing dependency and says to add it', () => {
    expect(() => orderPlugins([plugin('filters', { dependsOn: ['eth-query'] })], [], CORE_API_VERSION)).to.throw(
      'plugin "filters" depends on "eth-query", which is not loaded: add "eth-query" to [node] plugins.',
    );
  });

  it('refuses a dependency switched off by a tag, naming the tag', () => {
    const listed = [plugin('keys', { tags: ['hosted-key'] }), plugin('signer', { dependsOn: ['keys'] })];
    expect(() => orderPlugins(listed, ['hosted-key'], CORE_API_VERSION)).to.throw(
      'plugin "signer" depends on "keys", which [node] disable_tags switches off (tag "hosted-key"): remove "hosted-key" from disable_tags, or remove "signer" from [node] plugins.',
    );
  });

  it('switches off every plugin carrying a disabled tag', () => {
    const order = orderPlugins(
      [plugin('keys', { tags: ['hosted-key'] }), plugin('eth-query'), plugin('trace', { tags: ['trace', 'archive'] })],
      ['archive', 'hosted-key'],
      CORE_API_VERSION,
    );
    expect(ids(order.active)).to.deep.equal(['eth-query']);
    expect(order.disabled.map(({ plugin: off, tag }) => `${off.manifest.id}:${tag}`)).to.deep.equal([
      'keys:hosted-key',
      'trace:archive',
    ]);
  });

  it('refuses a dependency cycle, naming it', () => {
    const listed = [
      plugin('a', { dependsOn: ['b'] }),
      plugin('b', { dependsOn: ['c'] }),
      plugin('c', { dependsOn: ['a'] }),
      plugin('d'),
    ];
    expect(() => orderPlugins(listed, [], CORE_API_VERSION)).to.throw(
      'plugins depend on each other in a cycle: a -> b -> c -> a.',
    );
  });

  describe('from the services plugins provide', () => {
    it('sets a plugin up after the one providing a service it needs, whatever the operator order', () => {
      const listed = [
        plugin('archive-reader', { deps: { blobs: Blobs } }),
        plugin('eth-query'),
        plugin('blob-store', { provides: [Blobs] }),
      ];
      expect(ids(orderPlugins(listed, [], CORE_API_VERSION).active)).to.deep.equal([
        'eth-query',
        'blob-store',
        'archive-reader',
      ]);
    });

    it('combines provided services with dependsOn', () => {
      const listed = [
        plugin('reader', { deps: { blobs: Blobs }, dependsOn: ['indexer'] }),
        plugin('indexer', { deps: { keys: Keys } }),
        plugin('blob-store', { provides: [Blobs] }),
        plugin('key-store', { provides: [Keys] }),
      ];
      expect(ids(orderPlugins(listed, [], CORE_API_VERSION).active)).to.deep.equal([
        'blob-store',
        'key-store',
        'indexer',
        'reader',
      ]);
    });

    it('needs no plugin for the services core provides', () => {
      const listed = [plugin('hello', { deps: { chain: CoreTokens.ChainInfo, config: CoreTokens.Config } })];
      expect(ids(orderPlugins(listed, [], CORE_API_VERSION).active)).to.deep.equal(['hello']);
    });

    it('refuses a service no plugin provides, naming the plugin, the service and the fix', () => {
      expect(() => orderPlugins([plugin('archive-reader', { deps: { blobs: Blobs } })], [], CORE_API_VERSION)).to.throw(
        'plugin "archive-reader" needs the service BlobStore, which neither core nor any plugin in [node] plugins provides: add the plugin that provides it to [node] plugins.',
      );
    });

    it('refuses a service whose provider is switched off by a tag, naming the tag', () => {
      const listed = [
        plugin('blob-store', { provides: [Blobs], tags: ['archive'] }),
        plugin('archive-reader', { deps: { blobs: Blobs } }),
      ];
      expect(() => orderPlugins(listed, ['archive'], CORE_API_VERSION)).to.throw(
        'plugin "archive-reader" needs the service BlobStore, which plugin "blob-store" provides, but [node] disable_tags switches it off (tag "archive"): remove "archive" from disable_tags, or remove "archive-reader" from [node] plugins.',
      );
    });

    it('refuses a service provided under a token of the same name from another copy of its module', () => {
      const listed = [
        plugin('blob-store', { provides: [defineToken<string[]>('BlobStore')] }),
        plugin('archive-reader', { deps: { blobs: Blobs } }),
      ];
      expect(() => orderPlugins(listed, [], CORE_API_VERSION)).to.throw(
        'plugin "archive-reader" needs the service BlobStore, and plugin "blob-store" provides a service of that name, but from another copy of the module that defines it: install one copy of the package that defines the token, as a peer dependency of both plugins.',
      );
    });

    it('refuses a core service taken from another copy of core', () => {
      const listed = [plugin('hello', { deps: { chain: defineToken<unknown>('ChainInfo') } })];
      expect(() => orderPlugins(listed, [], CORE_API_VERSION)).to.throw(
        'plugin "hello" needs the service ChainInfo of another copy of @evmnode/core than the node\'s: make @evmnode/core a peer dependency of the plugin, and import it from an ES module.',
      );
    });

    it('refuses two plugins providing one service, naming both', () => {
      const listed = [plugin('blob-store', { provides: [Blobs] }), plugin('s3-blobs', { provides: [Keys, Blobs] })];
      expect(() => orderPlugins(listed, [], CORE_API_VERSION)).to.throw(
        'plugins "blob-store" and "s3-blobs" both provide the service BlobStore: remove one of them from [node] plugins.',
      );
    });

    it('refuses a cycle through provided services, naming each service', () => {
      const listed = [
        plugin('d'),
        plugin('blob-store', { provides: [Blobs], dependsOn: ['indexer'] }),
        plugin('indexer', { provides: [Keys], deps: { blobs: Blobs } }),
      ];
      expect(() => orderPlugins(listed, [], CORE_API_VERSION)).to.throw(
        'plugins depend on each other in a cycle: blob-store -> indexer -> blob-store (service BlobStore). Remove one of these dependencies, or remove one of the plugins from [node] plugins.',
      );
    });

    it('refuses a plugin that needs the service it provides itself', () => {
      expect(() =>
        orderPlugins([plugin('loop', { provides: [Keys], deps: { keys: Keys } })], [], CORE_API_VERSION),
      ).to.throw('plugins depend on each other in a cycle: loop -> loop (service KeyStore).');
    });
  });

  it('refuses a plugin whose core API range this core does not satisfy', () => {
    expect(() => orderPlugins([plugin('future', { coreApi: '^2.0.0' })], [], '1.0.0')).to.throw(
      'plugin "future" supports core API ^2.0.0, but this evmnode provides 1.0.0: install a version of the plugin built for this evmnode, or remove it from [node] plugins.',
    );
    expect(() => orderPlugins([plugin('garbled', { coreApi: 'not a range' })], [], '1.0.0')).to.throw(
      'plugin "garbled" supports core API not a range',
    );
  });

  it('rejects a manifest without an id, a core API range or a setup', () => {
    const setup = () => Promise.reject(new Error('unused'));
    expect(() => definePlugin({ id: 'Bad Id', coreApi: '^2.0.0', setup })).to.throw(
      'invalid plugin manifest: id must be lower-case letters, digits and dashes',
    );
    expect(() => definePlugin({ id: 'x', setup } as unknown as PluginManifest)).to.throw(
      'plugin x must declare coreApi, a semver range',
    );
    expect(() => definePlugin({ id: 'x', coreApi: '^2.0.0' } as unknown as PluginManifest)).to.throw(
      "plugin x must declare setup: () => import('./setup.js')",
    );
  });
});
