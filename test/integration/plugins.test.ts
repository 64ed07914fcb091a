import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { startTestNode } from '@evmnode/core/testing';
import { fixtureEvents } from '../support/plugins/shared.js';
import { fixturePlugin } from '../support/plugins/paths.js';
import { rpc } from '../support/rpc-client.js';
import { refusalOf } from '../support/startup.js';

/** The example plugin of docs/plugins.md, listed by its folder path as a third party would. */
const helloWorldFolder = fileURLToPath(new URL('../../../docs/examples/hello-world-plugin', import.meta.url));

describe('plugins', () => {
  describe('the hello-world example of docs/plugins.md', () => {
    it('loads from a folder path and serves hello_world with its config and deps', async () => {
      const node = await startTestNode({
        plugins: ['eth-query', helloWorldFolder],
        config: { plugins: { 'hello-world': { greeting: 'Gm' } } },
      });
      try {
        expect((await rpc(node.url, 'hello_world', ['frens'])).result).to.equal('Gm, frens! (chain 713714)');
        expect((await rpc(node.url, 'hello_world')).result).to.equal('Gm, world! (chain 713714)');
        expect((await rpc(node.url, 'hello_world', [' '])).error).to.deep.equal({
          code: -32000,
          message: 'name must not be empty',
        });
        expect((await rpc(node.url, 'hello_world', [7])).error).to.deep.equal({
          code: -32602,
          message: 'invalid argument 0: json: cannot unmarshal number into Go value of type string',
        });
        expect(
          node.logs.some((line) => line.plugin === 'hello-world' && line.msg === 'hello-world is serving hello_world'),
        ).to.equal(true);
      } finally {
        await node.stop();
      }
    });

    it('is switched off by its tag, and then its method does not exist', async () => {
      const node = await startTestNode({
        plugins: ['eth-query', helloWorldFolder],
        config: { node: { disable_tags: ['example'] } },
      });
      try {
        expect((await rpc(node.url, 'hello_world')).error).to.deep.equal({
          code: -32601,
          message: 'the method hello_world does not exist/is not available',
        });
        expect((await rpc(node.url, 'eth_chainId')).result).to.equal('0xae3f2');
      } finally {
        await node.stop();
      }
    });
  });

  it('answers methods of a plugin that is not loaded with -32601', async () => {
    const node = await startTestNode({ plugins: [fixturePlugin('recorder')] });
    try {
      for (const method of ['eth_chainId', 'net_version', 'web3_clientVersion']) {
        expect((await rpc(node.url, method)).error).to.deep.equal({
          code: -32601,
          message: `the method ${method} does not exist/is not available`,
        });
      }
    } finally {
      await node.stop();
    }
  });

  it('sets plugins up after their dependencies, starts them in order and stops them in reverse', async () => {
    fixtureEvents.length = 0;
    const node = await startTestNode({ plugins: [fixturePlugin('consumer'), fixturePlugin('recorder')] });
    await node.stop();
    expect(fixtureEvents).to.deep.equal([
      'recorder:setup',
      'consumer:setup',
      'recorder:start',
      'consumer:start',
      'consumer:stop',
      'recorder:stop',
    ]);
  });

  it('sets a plugin up after the plugin providing the service it needs, listed after it', async () => {
    const node = await startTestNode({
      plugins: [fixturePlugin('greeting-consumer'), fixturePlugin('greeting-provider')],
    });
    try {
      expect((await rpc(node.url, 'fixture_greet', ['frens'])).result).to.equal('gm, frens');
    } finally {
      await node.stop();
    }
  });

  describe('refusals to start', () => {
    it('an unknown plugin', async () => {
      expect(await refusalOf({ plugins: ['eth-qeury'] })).to.equal(
        'plugin "eth-qeury" in [node] plugins was not found: it is not a built-in plugin (@evmnode/plugin-eth-qeury), an installed package, or an existing path. Correct the name, install the package, or give the path to its folder.',
      );
    });

    it('a module that exports no manifest', async () => {
      expect(await refusalOf({ plugins: [fixturePlugin('shared')] })).to.equal(
        `plugin "${fixturePlugin('shared')}" does not export a valid manifest as default: the module does not export a manifest object`,
      );
    });

    it('a duplicate id', async () => {
      expect(await refusalOf({ plugins: ['eth-query', '@evmnode/plugin-eth-query'] })).to.equal(
        'plugin id "eth-query" is given twice in [node] plugins (by "eth-query" and "@evmnode/plugin-eth-query"): keep only one of them.',
      );
    });

    it('a missing dependency', async () => {
      expect(await refusalOf({ plugins: [fixturePlugin('consumer')] })).to.equal(
        'plugin "consumer" depends on "recorder", which is not loaded: add "recorder" to [node] plugins.',
      );
    });

    it('a service nothing provides', async () => {
      expect(await refusalOf({ plugins: [fixturePlugin('needs-unprovided')] })).to.equal(
        'plugin "needs-unprovided" needs the service UnprovidedService, which neither core nor any plugin in [node] plugins provides: add the plugin that provides it to [node] plugins.',
      );
    });

    it('invalid plugin configuration', async () => {
      expect(
        await refusalOf({ plugins: [helloWorldFolder], config: { plugins: { 'hello-world': { greeting: 42 } } } }),
      ).to.equal(
        'plugin "hello-world" has an invalid configuration: plugins.hello-world.greeting: must be of type String: value was 42; fix [plugins.hello-world] in app.toml.',
      );
    });

    it('two plugins providing one service', async () => {
      expect(
        await refusalOf({ plugins: [fixturePlugin('greeting-provider'), fixturePlugin('rival-greeter')] }),
      ).to.equal(
        'plugins "greeting-provider" and "rival-greeter" both provide the service Greeter: remove one of them from [node] plugins.',
      );
    });

    it('a setup that fails', async () => {
      expect(await refusalOf({ plugins: [fixturePlugin('broken-setup')] })).to.equal(
        'plugin "broken-setup" failed during setup: cannot reach the archive',
      );
    });

    it('a setup that takes too long', async () => {
      expect(
        await refusalOf({ plugins: [fixturePlugin('slow-setup')], config: { node: { plugin_setup_timeout: 200 } } }),
      ).to.equal(
        'plugin "slow-setup" did not finish its setup within 200 ms: fix the plugin, or raise [node] plugin_setup_timeout.',
      );
    });

    it('a service provided without being declared', async () => {
      expect(await refusalOf({ plugins: [fixturePlugin('undeclared-provide')] })).to.equal(
        'plugin "undeclared-provide" failed during setup: it provides EventLog without declaring it in its manifest\'s provides',
      );
    });

    it('two plugins registering the same method', async () => {
      expect(await refusalOf({ plugins: ['eth-query', fixturePlugin('clashing')] })).to.equal(
        'plugin "clashing" failed during setup: plugin clashing registers eth_chainId, which plugin eth-query already registered',
      );
    });

    it('leaves no port or database lock behind', async () => {
      const message = await refusalOf({
        plugins: ['eth-query', fixturePlugin('broken-setup')],
        config: { evm: { http_port: 18999 } },
      });
      expect(message).to.equal('plugin "broken-setup" failed during setup: cannot reach the archive');
      const node = await startTestNode({ config: { evm: { http_port: 18999 } } });
      expect((await rpc(node.url, 'eth_chainId')).result).to.equal('0xae3f2');
      await node.stop();
    });
  });
});
