import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fromBech32 } from '@cosmjs/encoding';
import { DirectSecp256k1Wallet } from '@cosmjs/proto-signing';
import { expect } from 'chai';
import {
  encryptKeystoreJsonSync,
  getAddress,
  getBytes,
  hexlify,
  Interface,
  keccak256,
  toUtf8Bytes,
  Wallet,
} from 'ethers';
import { POINTER_RUNTIME_CODE } from '@evmnode/core/internal';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { balanceOf, quantity } from '../support/chain-kit.js';
import { runCli, type CliResult } from '../support/cli.js';
import { post, rpc } from '../support/rpc-client.js';

/** Dev account 0 of the test mnemonic. */
const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const DEV_EVM_ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const WEI_PER_USEI = 10n ** 12n;
/** What the CLI pays by default: 200,000 gas at the local 1 gwei minimum, in usei. */
const DEFAULT_FEE_USEI = 200n;
const ADDR_PRECOMPILE = '0x0000000000000000000000000000000000001004';
const addr = new Interface([
  'function getEvmAddr(string) view returns (address)',
  'function getSeiAddr(address) view returns (string)',
]);
const erc20 = new Interface(['function balanceOf(address) view returns (uint256)']);

/** The native address Cosmos tooling derives from a key: cosmjs' own secp256k1 account. */
async function cosmjsAddressOf(privateKey: string): Promise<string> {
  const [account] = await (await DirectSecp256k1Wallet.fromKey(getBytes(privateKey), 'sei')).getAccounts();
  return account!.address;
}

/** A loopback port nothing listens on: one the system just handed out and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The transaction a successful native command printed: its hash and height. */
function committed(result: CliResult): { hash: string; height: number } {
  expect(result.stderr).to.equal('');
  expect(result.code).to.equal(0);
  const match = /^txhash: ([0-9A-F]{64})\nheight: (\d+)\ncode: 0\n/.exec(result.stdout);
  expect(match, result.stdout).to.not.equal(null);
  return { hash: match![1]!, height: Number(match![2]) };
}

/** The eth_call result of `data` to `to`, which must not fail. */
async function call(url: string, to: string, data: string): Promise<string> {
  const answer = await rpc(url, 'eth_call', [{ to, data }, 'latest']);
  expect(answer.error, JSON.stringify(answer.error)).to.equal(undefined);
  return answer.result;
}

describe('evmnode keys and native commands, without a node', () => {
  it("prints a key's checksummed EVM address and the native address Cosmos tooling derives", async () => {
    const native = await cosmjsAddressOf(DEV_KEY);
    expect(native).to.equal('sei15428vq2uzwhm3taey9sr9x5vm6tk78ew5cyfgc');
    expect(await runCli(['keys', 'show', DEV_KEY])).to.deep.equal({
      code: 0,
      stdout: `evm: ${DEV_EVM_ADDRESS}\nnative: ${native}\n`,
      stderr: '',
    });
  });

  it('reads a keystore with the passphrase from --passphrase-file or KEYRING_PASSPHRASE', async () => {
    const key = Wallet.createRandom();
    const expected = {
      code: 0,
      stdout: `evm: ${key.address}\nnative: ${await cosmjsAddressOf(key.privateKey)}\n`,
      stderr: '',
    };
    const folder = mkdtempSync(path.join(tmpdir(), 'evmnode-native-cli-'));
    const keystore = path.join(folder, 'keystore.json');
    const passphraseFile = path.join(folder, 'passphrase');
    // A small scrypt cost keeps the test fast, as the format allows.
    writeFileSync(
      keystore,
      encryptKeystoreJsonSync(new Wallet(key.privateKey), 'correct horse', { scrypt: { N: 1024 } }),
    );
    writeFileSync(passphraseFile, 'correct horse\nignored second line\n');
    try {
      expect(await runCli(['keys', 'show', keystore, '--passphrase-file', passphraseFile])).to.deep.equal(expected);
      expect(await runCli(['keys', 'show', keystore])).to.deep.equal({
        code: 2,
        stdout: '',
        stderr:
          `evmnode: ${keystore} is read as a keystore: give its passphrase in --passphrase-file FILE ` +
          'or the environment variable KEYRING_PASSPHRASE\n',
      });
      process.env.KEYRING_PASSPHRASE = 'correct horse';
      expect(await runCli(['keys', 'show', keystore])).to.deep.equal(expected);
      process.env.KEYRING_PASSPHRASE = 'wrong';
      expect(await runCli(['keys', 'show', keystore])).to.deep.equal({
        code: 1,
        stdout: '',
        stderr: `evmnode: the passphrase does not decrypt the keystore ${keystore}\n`,
      });
    } finally {
      delete process.env.KEYRING_PASSPHRASE;
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('exits 2 with one line for a command line it cannot run', async () => {
    const cases: [string[], string][] = [
      [['keys', 'show'], 'keys show needs KEY'],
      [['keys', 'show', DEV_KEY, 'extra'], 'keys show does not take extra'],
      [['keys', 'show', DEV_KEY, '--to', 'sei1'], 'keys show does not take --to'],
      [['keys', 'show', '0x1234'], 'the key is not a secp256k1 private key (0x and 64 hex digits)'],
      [['keys', 'show', `0x${'00'.repeat(32)}`], 'the key is not a secp256k1 private key (0x and 64 hex digits)'],
      [['native', 'send', '--key', DEV_KEY, '--amount', '1usei'], 'native send needs --to'],
      [
        ['native', 'send', '--key', DEV_KEY, '--to', '0x1234', '--amount', '1usei'],
        '--to 0x1234 is not a 0x address of 20 bytes',
      ],
      [
        ['native', 'send', '--key', DEV_KEY, '--to', DEV_EVM_ADDRESS, '--amount', '5'],
        '--amount 5 is not an amount followed by a denomination, such as 1000usei',
      ],
      [
        ['native', 'send', '--key', DEV_KEY, '--to', DEV_EVM_ADDRESS, '--amount', '5usei', '--gas', '1.5'],
        '--gas 1.5 is not a positive whole number',
      ],
      [['native', 'register-pointer', '--key', DEV_KEY], 'native register-pointer needs --denom'],
      [['native', 'associate', '--key'], '--key needs a value'],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli(args)));
    expect(results).to.deep.equal(
      cases.map(([, message]) => ({ code: 2, stdout: '', stderr: `evmnode: ${message}\n` })),
    );
  });

  it('prints the usage of every command for an unknown native command', async () => {
    const result = await runCli(['native', 'frobnicate']);
    expect(result.code).to.equal(2);
    expect(result.stderr.split('\n').filter((line) => line.startsWith('  evmnode '))).to.deep.equal([
      '  evmnode start [--home DIR] [--config FILE] [--profile NAME] [--<section>.<key> VALUE ...]',
      '  evmnode init  [--home DIR] [--force] [--profile NAME] [--<section>.<key> VALUE ...]',
      '  evmnode version',
      '  evmnode keys show KEY',
      '  evmnode native send --key KEY --to ADDRESS --amount <n><denom> [--node URL] [--gas N] [--fees <n>usei]',
      '  evmnode native associate --key KEY [--message TEXT] [--node URL] [--gas N] [--fees <n>usei]',
      '  evmnode native register-pointer --key KEY --denom DENOM [--node URL] [--gas N] [--fees <n>usei]',
    ]);
  });

  it('names the gateway it cannot reach', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    expect(await runCli(['native', 'associate', '--key', DEV_KEY, '--node', url])).to.deep.equal({
      code: 1,
      stdout: '',
      stderr: `evmnode: cannot reach the native gateway at ${url}: connect ECONNREFUSED ${url.slice(7)}\n`,
    });
  });
});

describe('evmnode native commands against a node', () => {
  let node: TestNode;
  /** Runs `evmnode native <args> --node <the node's gateway>`. */
  const native = (...args: string[]): Promise<CliResult> => runCli(['native', ...args, '--node', node.nativeUrl]);

  before(async () => {
    node = await startTestNode({ plugins: ['eth-query', 'native-gateway'] });
    expect(node.nativeUrl).to.not.equal('');
  });
  after(() => node.stop());

  it('send to a 0x address credits its EVM balance with the amount x 10^12 wei, in the printed block', async () => {
    const to = Wallet.createRandom().address;
    const sent = committed(await native('send', '--key', DEV_KEY, '--to', to, '--amount', '1234usei'));
    expect(await balanceOf(node.url, to, quantity(sent.height - 1))).to.equal(0n);
    expect(await balanceOf(node.url, to, quantity(sent.height))).to.equal(1234n * WEI_PER_USEI);

    const { text } = await post(
      node.nativeUrl,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tx', params: { hash: sent.hash } }),
    );
    const { result } = JSON.parse(text);
    expect({ hash: result.hash, height: result.height, code: result.tx_result.code }).to.deep.equal({
      hash: sent.hash,
      height: String(sent.height),
      code: 0,
    });
  });

  it('associate links a fresh key funded at its native address, moving the funds to its EVM address', async () => {
    const key = Wallet.createRandom();
    const nativeAddress = await cosmjsAddressOf(key.privateKey);
    const shown = await runCli(['keys', 'show', key.privateKey]);
    expect(shown).to.deep.equal({ code: 0, stdout: `evm: ${key.address}\nnative: ${nativeAddress}\n`, stderr: '' });
    const castEvmAddress = hexlify(fromBech32(nativeAddress, 90).data);

    committed(await native('send', '--key', DEV_KEY, '--to', nativeAddress, '--amount', '1000000usei'));
    expect(await balanceOf(node.url, castEvmAddress)).to.equal(1_000_000n * WEI_PER_USEI);
    const lookup = addr.encodeFunctionData('getEvmAddr', [nativeAddress]);
    const unassociated = await rpc(node.url, 'eth_call', [{ to: ADDR_PRECOMPILE, data: lookup }, 'latest']);
    expect(unassociated.error).to.include({
      code: 3,
      message: `execution reverted: sei address ${nativeAddress} is not associated`,
    });

    committed(await native('associate', '--key', key.privateKey, '--message', 'linking my addresses'));
    expect(addr.decodeFunctionResult('getEvmAddr', await call(node.url, ADDR_PRECOMPILE, lookup))).to.deep.equal([
      key.address,
    ]);
    const reverse = addr.encodeFunctionData('getSeiAddr', [key.address]);
    expect(addr.decodeFunctionResult('getSeiAddr', await call(node.url, ADDR_PRECOMPILE, reverse))).to.deep.equal([
      nativeAddress,
    ]);
    expect(await balanceOf(node.url, castEvmAddress)).to.equal(0n);
    expect(await balanceOf(node.url, key.address)).to.equal((1_000_000n - DEFAULT_FEE_USEI) * WEI_PER_USEI);
  });

  it("register-pointer prints the address of the denomination's ERC20 pointer, which then holds its balances", async () => {
    const pointer = getAddress(`0x${keccak256(toUtf8Bytes('evmnode/erc20-pointer/utest')).slice(-40)}`);
    expect((await rpc(node.url, 'eth_getCode', [pointer, 'latest'])).result).to.equal('0x');

    const registered = await native('register-pointer', '--key', DEV_KEY, '--denom', 'utest');
    committed(registered);
    expect(registered.stdout.split('\n').slice(3)).to.deep.equal([`pointer: ${pointer}`, '']);
    expect((await rpc(node.url, 'eth_getCode', [pointer, 'latest'])).result).to.equal(POINTER_RUNTIME_CODE);

    const holder = Wallet.createRandom().address;
    committed(await native('send', '--key', DEV_KEY, '--to', holder, '--amount', '5utest'));
    const balance = await call(node.url, pointer, erc20.encodeFunctionData('balanceOf', [holder]));
    expect(erc20.decodeFunctionResult('balanceOf', balance)).to.deep.equal([5n]);

    // A transaction that fails in its block: printed as any other, then its log, and exit code 1.
    const again = await native('register-pointer', '--key', DEV_KEY, '--denom', 'utest');
    expect(again.code).to.equal(1);
    expect(again.stdout).to.match(/^txhash: [0-9A-F]{64}\nheight: \d+\ncode: 18\n$/);
    expect(again.stderr).to.equal(
      'evmnode: transaction failed with code 18: failed to execute message; message index: 0: ' +
        'pointer already registered for denom utest: invalid request\n',
    );
  });
});
