import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { parse as parseToml } from 'smol-toml';
import { isStartupError } from '@evmnode/core';
import {
  coreSchema,
  initialConfig,
  envNameOf,
  loadNodeConfig,
  parseCliArgs,
  parseFlags,
  profileNames,
  readConfigLayers,
  renderAppToml,
  type ConfigSources,
} from '@evmnode/core/internal';
import { temporaryDir } from '../support/temp-dirs.js';

function homeWithConfig(toml: string): string {
  const home = temporaryDir('config');
  mkdirSync(path.join(home, 'config'));
  writeFileSync(path.join(home, 'config', 'app.toml'), toml);
  return home;
}

function load(
  sources: Partial<ConfigSources> & { home: string },
  fragments = new Map<string, Record<string, unknown>>(),
) {
  return loadNodeConfig(readConfigLayers({ env: {}, flags: [], ...sources }), fragments);
}

function startupErrorOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(isStartupError(error), String(error)).to.equal(true);
    return (error as Error).message;
  }
  throw new Error('expected the configuration to be refused');
}

describe('configuration', () => {
  it('has the reference node defaults for [evm]', () => {
    const { evm } = load({ home: '/nonexistent' }).core;
    expect(evm).to.include({
      http_port: 8545,
      ws_port: 8546,
      simulation_gas_limit: 10_000_000,
      simulation_evm_timeout: 60_000,
      filter_timeout: 120_000,
      max_tx_pool_txs: 1000,
      max_log_no_block: 10_000,
      max_blocks_for_log: 2000,
      max_subscriptions_new_head: 10_000,
      max_concurrent_trace_calls: 10,
      max_trace_lookback_blocks: 10_000,
      trace_timeout: 30_000,
      batch_request_limit: 1000,
      batch_response_max_size: 25_000_000,
      max_request_body_bytes: 5 * 1024 * 1024,
      max_subscriptions_logs: 10_000,
      max_subscriptions_per_connection: 1000,
      // 1 on local; public networks share fairly.
      max_client_share: 1,
      max_open_connections: 10_000,
      max_connections_per_ip: 1000,
      slow: false,
    });
    const testnet = load({ home: '/nonexistent', flags: ['--node.network', 'testnet'] }).core.evm;
    expect(testnet.max_client_share).to.equal(0.25);
    expect(evm.enabled_legacy_ext_apis).to.deep.equal(['ext_getNativeAddress', 'ext_getEVMAddress', 'ext_getNativeTx']);
  });

  it('lets no web page sign, checks the Host against localhost and keeps hosted keys on loopback by default', () => {
    const { evm } = load({ home: '/nonexistent', flags: ['--node.network', 'mainnet'] }).core;
    expect(evm.signing_origins).to.deep.equal([]);
    expect(evm.vhosts).to.deep.equal(['localhost']);
    expect(evm.allow_insecure_unlock).to.equal(false);
    // Dapps under development are served from localhost, on any port.
    expect(load({ home: '/nonexistent' }).core.evm.signing_origins).to.deep.equal([
      'http://localhost:*',
      'http://127.0.0.1:*',
    ]);
  });

  it('takes the chain ID from the network profile', () => {
    expect(load({ home: '/nonexistent' }).core.node.chain_id).to.equal(713714);
    expect(load({ home: homeWithConfig('[node]\nnetwork = "testnet"\n') }).core.node.chain_id).to.equal(1328);
    expect(load({ home: '/nonexistent', env: { EVMNODE_NODE_NETWORK: 'mainnet' } }).core.node.chain_id).to.equal(1329);
    expect(
      load({ home: '/nonexistent', flags: ['--node.network', 'testnet', '--node.chain_id', '99'] }).core.node.chain_id,
    ).to.equal(99);
  });

  it('lets flags beat the environment, and the environment beat the file', () => {
    const home = homeWithConfig('[evm]\nhttp_port = 1000\nws_port = 1001\nfilter_timeout = "30s"\n');
    const env = { EVMNODE_EVM_HTTP_PORT: '2000', EVMNODE_EVM_WS_PORT: '2001' };
    const config = load({ home, env, flags: ['--evm.http_port=3000'] }).core;
    expect(config.evm.http_port).to.equal(3000);
    expect(config.evm.ws_port).to.equal(2001);
    expect(config.evm.filter_timeout).to.equal(30_000);
  });

  describe('operator profiles (--profile NAME)', () => {
    it('are the files of config/profiles', () => {
      expect(profileNames()).to.deep.equal([
        'archive-trace',
        'follower-archive',
        'follower-public',
        'full',
        'public-minimal',
      ]);
    });

    it('public-minimal: eth_ reads and sends, filters, subscriptions and txpool; no hosted keys, traces or legacy methods', () => {
      const { node, evm } = load({ home: '/nonexistent', profile: 'public-minimal' }).core;
      expect(node.plugins).to.deep.equal(['eth-query', 'eth-send', 'filters', 'subscriptions', 'txpool']);
      expect(node.disable_tags).to.deep.equal(['hosted-key', 'legacy', 'trace']);
      expect(evm.enabled_legacy_ext_apis).to.deep.equal([]);
    });

    it("archive-trace: eth_ reads and traces on every block's state, no keys", () => {
      const { node, state } = load({ home: '/nonexistent', profile: 'archive-trace' }).core;
      expect(node.plugins).to.deep.equal(['eth-query', 'debug-trace']);
      expect(node.disable_tags).to.deep.equal(['hosted-key']);
      expect(state.keep_recent).to.equal(0);
    });

    it('follower-public and follower-archive: the same nodes as followers, the upstream left to the operator', () => {
      for (const [follower, producer] of [
        ['follower-public', 'public-minimal'],
        ['follower-archive', 'archive-trace'],
      ] as const) {
        const upstream = ['--follower.upstream', 'http://10.0.0.1:26657'];
        const config = load({ home: '/nonexistent', profile: follower, flags: upstream }).core;
        const producerConfig = load({ home: '/nonexistent', profile: producer, flags: upstream }).core;
        expect(config.node.role).to.equal('follower');
        expect(config.follower.upstream).to.equal('http://10.0.0.1:26657');
        expect({ ...config, node: { ...config.node, role: 'producer' } }).to.deep.equal(producerConfig);
      }
    });

    it('full: what a local node loads by default', () => {
      const defaults = load({ home: '/nonexistent' }).core;
      const full = load({ home: '/nonexistent', profile: 'full' }).core;
      expect(full.node.plugins).to.deep.equal(defaults.node.plugins);
      expect(full).to.deep.equal(defaults);
    });

    it('win over app.toml; the environment and flags win over them', () => {
      const home = homeWithConfig(
        '[node]\nplugins = ["eth-query"]\n[evm]\nenabled_legacy_ext_apis = ["ext_getLogs"]\n',
      );
      expect(load({ home, profile: 'public-minimal' }).core.node.plugins).to.have.length(5);
      const overridden = load({
        home,
        profile: 'public-minimal',
        env: { EVMNODE_NODE_DISABLE_TAGS: 'legacy' },
        flags: ['--evm.enabled_legacy_ext_apis', 'ext_getBlockByNumber'],
      }).core;
      expect(overridden.node.disable_tags).to.deep.equal(['legacy']);
      expect(overridden.evm.enabled_legacy_ext_apis).to.deep.equal(['ext_getBlockByNumber']);
    });

    it('stop the node on an unknown name, listing the profiles', () => {
      expect(startupErrorOf(() => load({ home: '/nonexistent', profile: 'public' }))).to.equal(
        'unknown profile "public"; the profiles are archive-trace, follower-archive, follower-public, full, public-minimal',
      );
    });

    it('are chosen with --profile on the command line', () => {
      expect(parseCliArgs(['start', '--profile', 'archive-trace', '--evm.http_port', '1'])).to.deep.include({
        command: 'start',
        profile: 'archive-trace',
        flags: ['--evm.http_port', '1'],
      });
      expect(parseCliArgs(['start', '--profile=full']).profile).to.equal('full');
    });
  });

  it('reads durations, booleans and comma-separated lists from strings', () => {
    const config = load({
      home: '/nonexistent',
      env: { EVMNODE_EVM_SLOW: 'true', EVMNODE_EVM_DENY_LIST: 'eth_call, eth_estimateGas' },
      flags: ['--evm.write_timeout', '2m', '--evm.read_timeout', '1500'],
    }).core;
    expect(config.evm.slow).to.equal(true);
    expect(config.evm.deny_list).to.deep.equal(['eth_call', 'eth_estimateGas']);
    expect(config.evm.write_timeout).to.equal(120_000);
    expect(config.evm.read_timeout).to.equal(1500);
  });

  it('reads an explicit --config file', () => {
    const home = homeWithConfig('[evm]\nhttp_port = 4444\n');
    expect(
      load({ home: '/nonexistent', configFile: path.join(home, 'config', 'app.toml') }).core.evm.http_port,
    ).to.equal(4444);
  });

  it('stops on a typo in app.toml, naming the key', () => {
    const message = startupErrorOf(() => load({ home: homeWithConfig('[evm]\nhtp_port = 1\n') }));
    expect(message).to.equal("invalid configuration: configuration param 'evm.htp_port' not declared in the schema");
  });

  it('stops on an unknown EVMNODE_ variable or flag, naming it', () => {
    expect(startupErrorOf(() => load({ home: '/nonexistent', env: { EVMNODE_EVM_HTTPPORT: '1' } }))).to.equal(
      'unknown environment variable EVMNODE_EVM_HTTPPORT: no configuration key matches it',
    );
    expect(startupErrorOf(() => load({ home: '/nonexistent', flags: ['--evm.htp_port', '1'] }))).to.equal(
      'unknown option --evm.htp_port: no configuration key [evm.htp_port] exists',
    );
  });

  it('stops on a value of the wrong type, naming the key', () => {
    expect(startupErrorOf(() => load({ home: homeWithConfig('[evm]\nhttp_port = "eighty"\n') }))).to.match(
      /^invalid configuration: evm\.http_port: ports must be within range 0 - 65535/,
    );
    expect(startupErrorOf(() => load({ home: '/nonexistent', flags: ['--evm.write_timeout', 'soon'] }))).to.match(
      /^invalid configuration: evm\.write_timeout: must be a duration/,
    );
    for (const share of ['0', '1.5', 'half']) {
      expect(startupErrorOf(() => load({ home: '/nonexistent', flags: ['--evm.max_client_share', share] }))).to.match(
        /^invalid configuration: evm\.max_client_share: must be a number above 0, at most 1/,
      );
    }
    expect(startupErrorOf(() => load({ home: '/nonexistent', flags: ['--node.network', 'moonnet'] }))).to.equal(
      'node.network must be one of local, testnet, mainnet; got "moonnet"',
    );
  });

  it('stops when the requests received in part may hold less than one request body', () => {
    const flags = ['--evm.max_request_body_bytes', '2000000', '--evm.max_unfinished_request_bytes', '1999999'];
    expect(startupErrorOf(() => load({ home: '/nonexistent', flags }))).to.equal(
      'invalid configuration: evm.max_unfinished_request_bytes (1999999) must be at least ' +
        'evm.max_request_body_bytes (2000000): a request body that large would always be refused',
    );
    flags[3] = '2000000';
    expect(load({ home: '/nonexistent', flags }).core.evm.max_unfinished_request_bytes).to.equal(2_000_000);
  });

  it('explains a file that is not TOML and an explicit file that is missing', () => {
    expect(startupErrorOf(() => load({ home: homeWithConfig('[evm\nhttp_port = 1\n') }))).to.match(
      /^the config file .*app\.toml is not valid TOML: /,
    );
    expect(startupErrorOf(() => load({ home: '/nonexistent', configFile: '/nonexistent/app.toml' }))).to.match(
      /^cannot read the config file \/nonexistent\/app\.toml: /,
    );
  });

  it('mounts plugin fragments at [plugins.<id>], validated strictly and blamed on the plugin', () => {
    const fragments = new Map([['hello-world', { greeting: { doc: 'greeting', format: String, default: 'Hello' } }]]);
    expect(
      load({ home: homeWithConfig('[plugins.hello-world]\ngreeting = "Hi"\n') }, fragments).plugin('hello-world'),
    ).to.deep.equal({ greeting: 'Hi' });
    expect(
      load({ home: '/nonexistent', env: { EVMNODE_PLUGINS_HELLO_WORLD_GREETING: 'Hey' } }, fragments).plugin(
        'hello-world',
      ),
    ).to.deep.equal({ greeting: 'Hey' });
    expect(
      startupErrorOf(() => load({ home: homeWithConfig('[plugins.hello-world]\ngreeting = 5\n') }, fragments)),
    ).to.equal(
      'plugin "hello-world" has an invalid configuration: plugins.hello-world.greeting: must be of type String: value was 5; fix [plugins.hello-world] in app.toml.',
    );
    expect(
      startupErrorOf(() => load({ home: homeWithConfig('[plugins.hello-world]\ngretting = "x"\n') }, fragments)),
    ).to.equal(
      'plugin "hello-world" has an invalid configuration: configuration param \'plugins.hello-world.gretting\' not declared in the schema; fix [plugins.hello-world] in app.toml.',
    );
  });

  it('names environment variables and flags after the section and key', () => {
    expect(envNameOf('evm.http_port')).to.equal('EVMNODE_EVM_HTTP_PORT');
    expect(envNameOf('plugins.hello-world.greeting')).to.equal('EVMNODE_PLUGINS_HELLO_WORLD_GREETING');
    expect([...parseFlags(['--a.b', '1', '--c.d=2', '--e.f'])]).to.deep.equal([
      ['a.b', '1'],
      ['c.d', '2'],
      ['e.f', 'true'],
    ]);
  });

  it('renders an app.toml with every key and its doc that loads back to the same values', () => {
    const config = load({ home: '/nonexistent', flags: ['--evm.http_port', '9999'] });
    const toml = renderAppToml(config.schema, config.values(), '# header');
    expect(toml).to.include(
      '# Gas cap of eth_call, eth_estimateGas and eth_createAccessList.\nsimulation_gas_limit = 10000000',
    );
    expect(toml).to.include('filter_timeout = "2m"');
    const parsed = parseToml(toml) as Record<string, Record<string, unknown>>;
    for (const section of Object.keys(coreSchema)) {
      expect(Object.keys(parsed[section]!)).to.deep.equal(
        Object.keys((coreSchema as Record<string, object>)[section]!),
      );
    }
    const reloaded = load({ home: homeWithConfig(toml) });
    expect(reloaded.values()).to.deep.equal(config.values());
  });

  for (const network of ['local', 'testnet', 'mainnet']) {
    it(`keeps config/${network}/app.toml equal to what evmnode init writes (npm run config:write updates it)`, async () => {
      const file = new URL(`../../../config/${network}/app.toml`, import.meta.url);
      const { appToml: expected } = await initialConfig({
        home: '/nonexistent',
        env: {},
        flags: ['--node.network', network],
      });
      expect(readFileSync(file, 'utf8')).to.equal(expected);
    });
  }
});
