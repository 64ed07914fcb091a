import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { parse as parseToml } from 'smol-toml';
import { EVMNODE_VERSION } from '@evmnode/core';
import { runCli, startNodeProcess } from '../support/cli.js';
import { rpc } from '../support/rpc-client.js';
import { temporaryDir } from '../support/temp-dirs.js';

const tempHome = () => temporaryDir('cli');

describe('evmnode CLI', () => {
  it('prints its version', async () => {
    expect(await runCli(['version'])).to.deep.equal({ code: 0, stdout: `evmnode ${EVMNODE_VERSION}\n`, stderr: '' });
  });

  it('prints the usage and exits 2 for an unknown command', async () => {
    const result = await runCli(['frobnicate']);
    expect(result.code).to.equal(2);
    expect(result.stderr).to.match(/^usage:\n {2}evmnode start \[--home DIR\]/);
  });

  it('init writes a commented app.toml with every key, refuses to overwrite it, and start reads it', async () => {
    const home = tempHome();
    const init = await runCli(['init', '--home', home, '--node.network', 'testnet']);
    const file = path.join(home, 'config', 'app.toml');
    const genesisFile = path.join(home, 'config', 'genesis.json');
    expect(init).to.deep.equal({ code: 0, stdout: `wrote ${file}\nwrote ${genesisFile}\n`, stderr: '' });
    const genesis = JSON.parse(readFileSync(genesisFile, 'utf8'));
    expect(genesis).to.include({ chainId: 1328, gasLimit: '0xbebc20', baseFeePerGas: '0x3b9aca00' });
    // EIP-2935's history contract, as geth's genesis deploys the Prague system contracts.
    expect(genesis.alloc).to.deep.equal({
      '0x0000f90827f1c53a10cb7a02335b175320002935': {
        balance: '0x0',
        nonce: '0x1',
        code: '0x3373fffffffffffffffffffffffffffffffffffffffe14604657602036036042575f35600143038111604257611fff81430311604257611fff9006545f5260205ff35b5f5ffd5b5f35611fff60014303065500',
      },
    });
    const text = readFileSync(file, 'utf8');
    expect(text).to.include('# Serve JSON-RPC over HTTP.\nhttp_enabled = true');
    const toml = parseToml(text) as Record<string, Record<string, unknown>>;
    expect(Object.keys(toml)).to.deep.equal([
      'node',
      'evm',
      'consensus',
      'follower',
      'native',
      'mempool',
      'state',
      'logging',
      'metrics',
      'plugins',
    ]);
    expect(toml.plugins).to.have.keys(['subscriptions', 'hosted-keys', 'debug-trace']);
    expect(toml.plugins?.['subscriptions']).to.deep.equal({ max_unpushed_logs: 100_000 });
    expect(toml.plugins?.['debug-trace']).to.deep.equal({ trace_bake_enabled: true });
    expect(toml.node).to.include({ network: 'testnet', chain_id: 1328 });
    expect(toml.evm).to.include({ write_timeout: '30s', max_blocks_for_log: 2000 });

    const again = await runCli(['init', '--home', home]);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.equal(`evmnode: ${file} already exists; pass --force to overwrite it\n`);
    expect((await runCli(['init', '--home', home, '--force'])).code).to.equal(0);
    expect(parseToml(readFileSync(file, 'utf8')).node).to.include({ network: 'local', chain_id: 713714 });

    // The history contract and the ten dev accounts.
    expect(Object.keys(JSON.parse(readFileSync(genesisFile, 'utf8')).alloc)).to.have.length(11);
    const node = await startNodeProcess(['--home', home]);
    expect((await rpc(node.url, 'eth_chainId')).result).to.equal('0xae3f2');
    expect((await rpc(node.url, 'eth_getBalance', ['0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'])).result).to.equal(
      '0x21e19e0c9bab2400000',
    );
    node.child.kill('SIGTERM');
    expect(await node.exited).to.equal(0);
  });

  it('init --profile writes the profile into app.toml; start --profile runs it; an unknown one is refused', async () => {
    const home = tempHome();
    expect((await runCli(['init', '--home', home, '--profile', 'public-minimal'])).code).to.equal(0);
    const toml = parseToml(readFileSync(path.join(home, 'config', 'app.toml'), 'utf8')) as Record<string, any>;
    expect(toml.node).to.deep.include({
      plugins: ['eth-query', 'eth-send', 'filters', 'subscriptions', 'txpool'],
      disable_tags: ['hosted-key', 'legacy', 'trace'],
    });
    expect(toml.evm.enabled_legacy_ext_apis).to.deep.equal([]);

    const node = await startNodeProcess(['--home', tempHome(), '--profile', 'archive-trace']);
    expect((await rpc(node.url, 'debug_traceTransaction', [`0x${'00'.repeat(32)}`])).error.code).to.equal(-32000);
    expect((await rpc(node.url, 'eth_sendRawTransaction', ['0x00'])).error).to.deep.equal({
      code: -32601,
      message: 'the method eth_sendRawTransaction does not exist/is not available',
    });
    node.child.kill('SIGTERM');
    expect(await node.exited).to.equal(0);

    const unknown = await runCli(['start', '--home', tempHome(), '--profile', 'tiny']);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.equal(
      'evmnode: unknown profile "tiny"; the profiles are archive-trace, follower-archive, follower-public, full, public-minimal\n',
    );
  });

  it('stops on a configuration typo, naming the key', async () => {
    const result = await runCli(['start', '--home', tempHome(), '--evm.htp_port', '9']);
    expect(result.code).to.equal(1);
    expect(result.stderr).to.equal(
      'evmnode: unknown option --evm.htp_port: no configuration key [evm.htp_port] exists\n',
    );
  });

  it('shuts down gracefully on SIGINT and SIGTERM, closing the database', async () => {
    const home = tempHome();
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const node = await startNodeProcess(['--home', home]);
      expect(existsSync(path.join(home, 'data', 'CURRENT'))).to.equal(true);
      node.child.kill(signal);
      expect(await node.exited).to.equal(0);
      expect(node.logs.map((line) => line.msg).slice(-2)).to.deep.equal(['shutting down', 'evmnode stopped']);
    }
  });

  it('explains that another node holds the database, and restarts after kill -9', async () => {
    const home = tempHome();
    const first = await startNodeProcess(['--home', home]);
    const second = await runCli(['start', '--home', home, '--evm.http_port', '0', '--evm.ws_port', '0']);
    expect(second.code).to.equal(1);
    expect(second.stderr).to.equal(
      `evmnode: the database at ${path.join(home, 'data')} is locked by another process: another evmnode is probably running with the same home. Stop it, or start this node with a different --home.\n`,
    );
    first.child.kill('SIGKILL');
    await first.exited;
    const restarted = await startNodeProcess(['--home', home]);
    expect((await rpc(restarted.url, 'net_version')).result).to.equal('713714');
    restarted.child.kill('SIGTERM');
    expect(await restarted.exited).to.equal(0);
  });
});
