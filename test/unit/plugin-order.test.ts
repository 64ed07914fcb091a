import { expect } from 'chai';
import { CORE_API_VERSION, definePlugin, type PluginManifest } from '@evmnode/core';
import { orderPlugins, type LoadedPlugin } from '@evmnode/core/internal';

function plugin(id: string, extra: Partial<PluginManifest> = {}, entry = id): LoadedPlugin {
  return {
    entry,
    manifest: definePlugin({ id, coreApi: '^2.0.0', setup: () => Promise.reject(new Error('not set up')), ...extra }),
  };
}

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
