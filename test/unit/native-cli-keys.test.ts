import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DirectSecp256k1Wallet } from '@cosmjs/proto-signing';
import { expect } from 'chai';
import { encryptKeystoreJsonSync, getBytes, Wallet } from 'ethers';
import { runCli } from '../support/cli.js';

/** Dev account 0 of the test mnemonic. */
const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const DEV_EVM_ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

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

/** A keystore of `privateKey` and the file holding its passphrase, in a fresh folder. */
function keystoreFiles(privateKey: string, passphrase: string): { keystore: string; passphraseFile: string } {
  const folder = mkdtempSync(path.join(tmpdir(), 'evmnode-native-cli-'));
  const keystore = path.join(folder, 'keystore.json');
  const passphraseFile = path.join(folder, 'passphrase');
  // A small scrypt cost keeps the test fast, as the format allows.
  writeFileSync(keystore, encryptKeystoreJsonSync(new Wallet(privateKey), passphrase, { scrypt: { N: 1024 } }));
  writeFileSync(passphraseFile, `${passphrase}\nignored second line\n`);
  return { keystore, passphraseFile };
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
    const { keystore, passphraseFile } = keystoreFiles(key.privateKey, 'correct horse');
    expect(await runCli(['keys', 'show', keystore, '--passphrase-file', passphraseFile])).to.deep.equal(expected);
    process.env.KEYRING_PASSPHRASE = 'correct horse';
    try {
      expect(await runCli(['keys', 'show', keystore])).to.deep.equal(expected);
      process.env.KEYRING_PASSPHRASE = 'wrong';
      expect(await runCli(['keys', 'show', keystore])).to.deep.equal({
        code: 1,
        stdout: '',
        stderr: `evmnode: the passphrase does not decrypt the keystore ${keystore}\n`,
      });
    } finally {
      delete process.env.KEYRING_PASSPHRASE;
    }
    expect(await runCli(['keys', 'show', keystore])).to.deep.equal({
      code: 2,
      stdout: '',
      stderr:
        `evmnode: ${keystore} is read as a keystore: give its passphrase in --passphrase-file FILE ` +
        'or the environment variable KEYRING_PASSPHRASE\n',
    });
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
    for (const [args, message] of cases) {
      expect(await runCli(args), args.join(' ')).to.deep.equal({
        code: 2,
        stdout: '',
        stderr: `evmnode: ${message}\n`,
      });
    }
  });

  it('prints the usage of every command for an unknown native command', async () => {
    const result = await runCli(['native', 'frobnicate']);
    expect(result.code).to.equal(2);
    expect(result.stderr.split('\n').filter((line) => line.startsWith('  evmnode '))).to.deep.equal([
      '  evmnode start [--home DIR] [--config FILE] [--<section>.<key> VALUE ...]',
      '  evmnode init  [--home DIR] [--force] [--<section>.<key> VALUE ...]',
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
