import { bech32 } from '@scure/base';
import { expect } from 'chai';
import {
  Contract,
  getBytes,
  id,
  Interface,
  JsonRpcProvider,
  keccak256,
  MaxUint256,
  toBeHex,
  toUtf8Bytes,
  Wallet,
  zeroPadValue,
  type ContractTransactionResponse,
  type HDNodeWallet,
} from 'ethers';
import { POINTER_RUNTIME_CODE } from '@evmnode/core/internal';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { devWallet, lower, waitForReceipt } from '../support/chain-kit.js';
import { nativeSigner, registerPointer, type NativeSigner } from '../support/native-kit.js';
import { rpc } from '../support/rpc-client.js';
import { compileContract } from '../support/solidity.js';

const DENOM = 'utest';
/** What each dev account holds of `utest` at genesis, and how many dev accounts there are. */
const DEV_TEST_COINS = 1_000_000n;
const DEV_ACCOUNTS = 10n;
const BANK = '0x0000000000000000000000000000000000001001';
/** Where eth_call state overrides place the PointerCatcher test contract. */
const CATCHER = '0x00000000000000000000000000000000000ca7c4';

/** The pointer's address, derived here: the last 20 bytes of keccak256("evmnode/erc20-pointer/" + denom). */
const POINTER = `0x${keccak256(toUtf8Bytes(`evmnode/erc20-pointer/${DENOM}`)).slice(26)}`;

const TRANSFER_TOPIC = id('Transfer(address,address,uint256)');
const APPROVAL_TOPIC = id('Approval(address,address,uint256)');

const erc20 = new Interface([
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address account) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function transfer(address to, uint256 value) returns (bool)',
  'function approve(address spender, uint256 value) returns (bool)',
  'function transferFrom(address from, address to, uint256 value) returns (bool)',
  'error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)',
  'error ERC20InvalidReceiver(address receiver)',
  'error ERC20InvalidSpender(address spender)',
]);

const bank = new Interface([
  'function send(address fromAddress, address toAddress, string denom, uint256 amount) returns (bool success)',
  'function balance(address acc, string denom) view returns (uint256 amount)',
  'function supply(string denom) view returns (uint256 response)',
  'function name(string denom) view returns (string response)',
  'function symbol(string denom) view returns (string response)',
  'function decimals(string denom) view returns (uint8 response)',
]);

/** The bech32 address with an EVM address's 20 bytes: the native side of an unassociated address. */
function castAddress(evmAddress: string): string {
  return bech32.encode('sei', bech32.toWords(getBytes(evmAddress)));
}

interface LogFields {
  readonly address: string;
  readonly topics: readonly string[];
  readonly data: string;
}

/** A receipt's logs without their block and position fields. */
const logsOf = (receipt: { logs: LogFields[] }): LogFields[] =>
  receipt.logs.map(({ address, topics, data }) => ({ address, topics, data }));

const word = (value: bigint): string => zeroPadValue(toBeHex(value), 32);
const topicOf = (address: string): string => zeroPadValue(lower(address), 32);

describe('ERC20 pointer of a native denomination', () => {
  let node: TestNode;
  let provider: JsonRpcProvider;
  let registrar: NativeSigner;

  /** The pointer as `wallet` (or a read-only provider) uses it. */
  const pointer = (wallet?: Wallet | HDNodeWallet): Contract =>
    new Contract(POINTER, erc20, wallet === undefined ? provider : new Wallet(wallet.privateKey, provider));

  /** The `utest` balance of a bech32 address, as the native side reads it. */
  const nativeBalance = (address: string): Promise<bigint> => node.node.native.balance(address, DENOM);

  /** The native address of a dev wallet's key. */
  const nativeOf = async (wallet: HDNodeWallet): Promise<string> => (await nativeSigner(wallet.privateKey)).address;

  const registerPointerOf = (denom: string) => registerPointer(node.node.native, registrar, denom);

  /** Calls a pointer function from `wallet` through ethers (which estimates the gas); the receipt as the node wrote it. */
  async function transact(wallet: HDNodeWallet, method: string, args: unknown[]): Promise<any> {
    const sent = (await pointer(wallet).getFunction(method)(...args)) as ContractTransactionResponse;
    return waitForReceipt(node.url, sent.hash);
  }

  /** Sends a pointer call from `wallet` with a fixed gas limit (no estimate, so that failures are mined too). */
  async function sendCall(wallet: HDNodeWallet, data: string): Promise<any> {
    const signer = new Wallet(wallet.privateKey, provider);
    const sent = await signer.sendTransaction({ to: POINTER, data, gasLimit: 200_000n });
    return waitForReceipt(node.url, sent.hash);
  }

  before(async () => {
    node = await startTestNode({ config: { consensus: { block_time: 100 } } });
    provider = new JsonRpcProvider(node.url, undefined, {
      staticNetwork: true,
      pollingInterval: 50,
      // Back-to-back transactions of one wallet must not reuse a cached nonce.
      cacheTimeout: -1,
    });
    registrar = await nativeSigner(devWallet(9).privateKey);
    expect((await rpc(node.url, 'eth_getCode', [POINTER, 'latest'])).result).to.equal('0x');
    const record = await registerPointerOf(DENOM);
    expect(record.code, record.log).to.equal(0);
    expect(record.events.find(({ type }) => type === 'pointer_registered')).to.deep.equal({
      type: 'pointer_registered',
      attributes: [
        { key: 'denom', value: DENOM },
        { key: 'pointer_address', value: POINTER },
      ],
    });
  });

  after(async () => {
    provider.destroy();
    await node.stop();
  });

  it('puts the pointer code at the deterministic address, as a contract with nonce 1', async () => {
    expect((await rpc(node.url, 'eth_getCode', [POINTER, 'latest'])).result).to.equal(POINTER_RUNTIME_CODE);
    expect((await rpc(node.url, 'eth_getTransactionCount', [POINTER, 'latest'])).result).to.equal('0x1');
  });

  it("shows the denomination's metadata and supply", async () => {
    const token = pointer();
    expect(await token.getFunction('name')()).to.equal('Test');
    expect(await token.getFunction('symbol')()).to.equal('TEST');
    expect(await token.getFunction('decimals')()).to.equal(6n);
    expect(await token.getFunction('totalSupply')()).to.equal(DEV_ACCOUNTS * DEV_TEST_COINS);
  });

  it('shows native balances as ERC20 balances', async () => {
    const holder = devWallet(0);
    expect(await nativeBalance(await nativeOf(holder))).to.equal(DEV_TEST_COINS);
    expect(await pointer().getFunction('balanceOf')(holder.address)).to.equal(DEV_TEST_COINS);
    expect(await pointer().getFunction('balanceOf')(Wallet.createRandom().address)).to.equal(0n);
  });

  it('moves native balances on transfer and logs Transfer', async () => {
    const sender = devWallet(1);
    const recipient = Wallet.createRandom().address;
    const receipt = await transact(sender, 'transfer', [recipient, 1_234n]);
    expect(receipt.status).to.equal('0x1');
    expect(logsOf(receipt)).to.deep.equal([
      {
        address: POINTER,
        topics: [TRANSFER_TOPIC, topicOf(sender.address), topicOf(recipient)],
        data: word(1_234n),
      },
    ]);
    expect(await nativeBalance(await nativeOf(sender))).to.equal(DEV_TEST_COINS - 1_234n);
    expect(await nativeBalance(castAddress(recipient))).to.equal(1_234n);
    expect(await pointer().getFunction('balanceOf')(recipient)).to.equal(1_234n);

    // A transfer of nothing succeeds, as ERC20 requires, and still logs.
    const nothing = await transact(sender, 'transfer', [recipient, 0n]);
    expect(nothing.status).to.equal('0x1');
    expect(logsOf(nothing)[0]!.data).to.equal(word(0n));
    expect(await nativeBalance(castAddress(recipient))).to.equal(1_234n);
  });

  it('spends allowances with transferFrom, except an infinite one', async () => {
    const owner = devWallet(2);
    const spender = devWallet(3);
    const recipient = Wallet.createRandom().address;
    const approval = await transact(owner, 'approve', [spender.address, 500n]);
    expect(approval.status).to.equal('0x1');
    expect(logsOf(approval)).to.deep.equal([
      {
        address: POINTER,
        topics: [APPROVAL_TOPIC, topicOf(owner.address), topicOf(spender.address)],
        data: word(500n),
      },
    ]);
    expect(await pointer().getFunction('allowance')(owner.address, spender.address)).to.equal(500n);

    const spent = await transact(spender, 'transferFrom', [owner.address, recipient, 200n]);
    expect(spent.status).to.equal('0x1');
    // OpenZeppelin's ERC20 logs no Approval when transferFrom spends an allowance.
    expect(logsOf(spent)).to.deep.equal([
      { address: POINTER, topics: [TRANSFER_TOPIC, topicOf(owner.address), topicOf(recipient)], data: word(200n) },
    ]);
    expect(await pointer().getFunction('allowance')(owner.address, spender.address)).to.equal(300n);
    expect(await nativeBalance(await nativeOf(owner))).to.equal(DEV_TEST_COINS - 200n);
    expect(await nativeBalance(castAddress(recipient))).to.equal(200n);

    const overspend = erc20.encodeFunctionData('transferFrom', [owner.address, recipient, 301n]);
    const refused = await rpc(node.url, 'eth_call', [{ from: spender.address, to: POINTER, data: overspend }]);
    expect(refused.error.code).to.equal(3);
    expect(refused.error.data).to.equal(
      erc20.encodeErrorResult('ERC20InsufficientAllowance', [spender.address, 300n, 301n]),
    );

    await transact(owner, 'approve', [spender.address, MaxUint256]);
    expect((await transact(spender, 'transferFrom', [owner.address, recipient, 50n])).status).to.equal('0x1');
    expect(await pointer().getFunction('allowance')(owner.address, spender.address)).to.equal(MaxUint256);
    expect(await nativeBalance(castAddress(recipient))).to.equal(250n);
  });

  it('refuses the zero address as receiver or spender', async () => {
    const zero = `0x${'00'.repeat(20)}`;
    const from = devWallet(4).address;
    const toZero = await rpc(node.url, 'eth_call', [
      { from, to: POINTER, data: erc20.encodeFunctionData('transfer', [zero, 1n]) },
    ]);
    expect(toZero.error.data).to.equal(erc20.encodeErrorResult('ERC20InvalidReceiver', [zero]));
    const approveZero = await rpc(node.url, 'eth_call', [
      { from, to: POINTER, data: erc20.encodeFunctionData('approve', [zero, 1n]) },
    ]);
    expect(approveZero.error.data).to.equal(erc20.encodeErrorResult('ERC20InvalidSpender', [zero]));
  });

  it('fails a transfer beyond the balance: status 0, and a cross-VM error from eth_call', async () => {
    const sender = devWallet(5);
    const overdraw = erc20.encodeFunctionData('transfer', [devWallet(6).address, DEV_TEST_COINS + 1n]);
    const receipt = await sendCall(sender, overdraw);
    expect(receipt.status).to.equal('0x0');
    expect(receipt.logs).to.deep.equal([]);
    expect(await nativeBalance(await nativeOf(sender))).to.equal(DEV_TEST_COINS);

    const details = `spendable balance ${DEV_TEST_COINS}${DENOM} is smaller than ${DEV_TEST_COINS + 1n}${DENOM}: insufficient funds`;
    const answer = await rpc(node.url, 'eth_call', [{ from: sender.address, to: POINTER, data: overdraw }]);
    expect(answer.error).to.deep.equal({ code: -32500, message: `cross-VM error: ${details}`, data: { details } });
  });

  it('reports a bank refusal as a cross-VM error only while it ends the call', async () => {
    const catcher = compileContract('PointerCatcher');
    const catcherAbi = new Interface(catcher.abi);
    // The catcher holds no utest, so its pointer transfer is refused by the bank.
    const overrides = { [CATCHER]: { code: catcher.deployedBytecode } };
    const call = (method: string) =>
      rpc(node.url, 'eth_call', [
        { to: CATCHER, data: catcherAbi.encodeFunctionData(method, [POINTER, devWallet(6).address, 1n]) },
        'latest',
        overrides,
      ]);

    const recovered = await call('transferThenRevert');
    expect(recovered.error.code).to.equal(3);
    expect(recovered.error.message).to.equal('execution reverted: caught the pointer failure');
    const answered = await call('tryTransfer');
    expect(catcherAbi.decodeFunctionResult('tryTransfer', answered.result)[0]).to.equal(false);
  });

  it("lets only the denomination's pointer send through the bank precompile", async () => {
    const caller = devWallet(7).address;
    const data = bank.encodeFunctionData('send', [caller, devWallet(8).address, DENOM, 1n]);
    const answer = await rpc(node.url, 'eth_call', [{ from: caller, to: BANK, data }]);
    expect(answer.error.code).to.equal(3);
    expect(answer.error.message).to.equal(`execution reverted: only the pointer contract of ${DENOM} can send it`);
  });

  it('answers balance, supply and metadata reads of the bank precompile, and reverts for an unknown denom', async () => {
    const call = async (name: string, args: unknown[]): Promise<any> =>
      rpc(node.url, 'eth_call', [{ to: BANK, data: bank.encodeFunctionData(name, args) }]);
    const holder = devWallet(9).address;
    expect(bank.decodeFunctionResult('balance', (await call('balance', [holder, DENOM])).result)[0]).to.equal(
      DEV_TEST_COINS,
    );
    expect(bank.decodeFunctionResult('supply', (await call('supply', [DENOM])).result)[0]).to.equal(
      DEV_ACCOUNTS * DEV_TEST_COINS,
    );
    expect(bank.decodeFunctionResult('name', (await call('name', [DENOM])).result)[0]).to.equal('Test');
    expect(bank.decodeFunctionResult('symbol', (await call('symbol', [DENOM])).result)[0]).to.equal('TEST');
    expect(bank.decodeFunctionResult('decimals', (await call('decimals', [DENOM])).result)[0]).to.equal(6n);
    for (const [name, args] of [
      ['balance', [holder, 'ufoo']],
      ['supply', ['ufoo']],
      ['name', ['ufoo']],
    ] as const) {
      expect((await call(name, [...args])).error.message).to.equal('execution reverted: denom ufoo not found');
    }
  });

  it('refuses to register a second pointer, one for the base denomination, or one for an unknown denom', async () => {
    const again = await registerPointerOf(DENOM);
    expect([again.code, again.codespace, again.log]).to.deep.equal([
      18,
      'sdk',
      `failed to execute message; message index: 0: pointer already registered for denom ${DENOM}: invalid request`,
    ]);
    const base = await registerPointerOf('usei');
    expect([base.code, base.codespace, base.log]).to.deep.equal([
      18,
      'sdk',
      'failed to execute message; message index: 0: usei is the EVM balance itself and has no pointer: invalid request',
    ]);
    const unknown = await registerPointerOf('ufoo');
    expect([unknown.code, unknown.codespace, unknown.log]).to.deep.equal([
      6,
      'bank',
      'failed to execute message; message index: 0: denom ufoo has no metadata: client denom metadata not found',
    ]);
  });
});
