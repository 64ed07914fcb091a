import { fromBech32 } from '@cosmjs/encoding';
import { DirectSecp256k1Wallet } from '@cosmjs/proto-signing';
import { expect } from 'chai';
import { getAddress, getBytes, hexlify, Interface, keccak256, toUtf8Bytes, Wallet } from 'ethers';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { balanceOf, devWallet, quantity } from '../support/chain-kit.js';
import { runCli, type CliResult } from '../support/cli.js';
import { post, rpc } from '../support/rpc-client.js';

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

describe('evmnode native commands against a node', () => {
  const devKey = devWallet(0).privateKey;
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
    const sent = committed(await native('send', '--key', devKey, '--to', to, '--amount', '1234usei'));
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

    committed(await native('send', '--key', devKey, '--to', nativeAddress, '--amount', '1000000usei'));
    expect(await balanceOf(node.url, castEvmAddress)).to.equal(1_000_000n * WEI_PER_USEI);
    const lookup = addr.encodeFunctionData('getEvmAddr', [nativeAddress]);
    expect((await rpc(node.url, 'eth_call', [{ to: ADDR_PRECOMPILE, data: lookup }, 'latest'])).error).to.not.equal(
      undefined,
    );

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

    const registered = await native('register-pointer', '--key', devKey, '--denom', 'utest');
    committed(registered);
    expect(registered.stdout.split('\n').slice(3)).to.deep.equal([`pointer: ${pointer}`, '']);
    expect((await rpc(node.url, 'eth_getCode', [pointer, 'latest'])).result).to.match(/^0x[0-9a-f]{2,}$/);

    const holder = Wallet.createRandom().address;
    committed(await native('send', '--key', devKey, '--to', holder, '--amount', '5utest'));
    const balance = await call(node.url, pointer, erc20.encodeFunctionData('balanceOf', [holder]));
    expect(erc20.decodeFunctionResult('balanceOf', balance)).to.deep.equal([5n]);

    const again = await native('register-pointer', '--key', devKey, '--denom', 'utest');
    expect(again.code).to.equal(1);
    expect(again.stderr).to.match(/^evmnode: .+\n$/);
  });
});
