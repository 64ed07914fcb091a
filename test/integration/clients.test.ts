import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import {
  AbiCoder,
  ContractFactory,
  Interface,
  JsonRpcProvider,
  Wallet,
  getAddress,
  getCreateAddress,
  id,
  toBeHex,
  zeroPadValue,
  type Contract,
  type ContractTransactionResponse,
} from 'ethers';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  BaseError,
  ContractFunctionRevertedError,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { Web3, errors as web3Errors, type ContractAbi } from 'web3';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { testToken } from '@evmnode/tools/contracts/test-token';
import { CHAIN_ID, ETHER, devWallet, lower, quantity } from '../support/chain-kit.js';
import { expectValidResult } from '../support/openrpc.js';
import { rpc } from '../support/rpc-client.js';

const token = testToken();
const tokenAbi = new Interface(token.abi);
const SUPPLY = 1_000_000n * ETHER;
const TOKENS_SENT = 1234n;
const ETH_SENT = ETHER / 4n;
/** TestToken's revert when a sender moves more than it holds. */
const OVERDRAWN = 'ERC20: transfer amount exceeds balance';
const OVERDRAWN_DATA = `0x08c379a0${AbiCoder.defaultAbiCoder().encode(['string'], [OVERDRAWN]).slice(2)}`;
const TRANSFER_TOPIC = id('Transfer(address,address,uint256)');

/** The cast binary the npm package ships. */
const CAST = join(
  dirname(createRequire(import.meta.url).resolve('@foundry-rs/cast-linux-amd64/package.json')),
  'bin/cast',
);
const run = promisify(execFile);

/** Runs cast and returns what it printed, trimmed. */
async function cast(...args: string[]): Promise<string> {
  const { stdout } = await run(CAST, args, { env: { ...process.env, NO_COLOR: '1' }, timeout: 30_000 });
  return stdout.trim();
}

/** A recipient of nothing yet, one per client, so that its balances are exact. */
const freshAddress = (client: number): string => getAddress(`0x${'00'.repeat(18)}e7${toBeHex(client, 1).slice(2)}`);

describe('clients: ethers v6, viem, web3.js v4 and cast deploy, transfer, call, estimate, read past balances and receipts', function () {
  this.timeout(60_000);
  let node: TestNode;

  before(async () => {
    node = await startTestNode();
  });
  after(() => node.stop());

  /** The node's own receipt, schema-checked, in the form every client read. */
  async function rawReceipt(hash: string): Promise<any> {
    const { result } = await rpc(node.url, 'eth_getTransactionReceipt', [hash]);
    expectValidResult('eth_getTransactionReceipt', result);
    return result;
  }

  /** The node's balanceOf, read without any client. */
  async function rawTokenBalance(contract: string, owner: string): Promise<bigint> {
    const data = tokenAbi.encodeFunctionData('balanceOf', [owner]);
    return BigInt((await rpc(node.url, 'eth_call', [{ to: contract, input: data }])).result);
  }

  /** The node's own estimate for a token transfer. */
  async function rawTransferEstimate(contract: string, from: string, to: string): Promise<bigint> {
    const data = tokenAbi.encodeFunctionData('transfer', [to, TOKENS_SENT]);
    return BigInt((await rpc(node.url, 'eth_estimateGas', [{ from, to: contract, input: data }])).result);
  }

  /** What every client's transfer receipt shows: success, one Transfer log from `from` to `to`. */
  function expectTokenTransferLog(receipt: any, contract: string, from: string, to: string): void {
    expect(receipt.status).to.equal('0x1');
    expect(receipt.to).to.equal(lower(contract));
    expect(receipt.logs).to.have.length(1);
    expect(receipt.logs[0].address).to.equal(lower(contract));
    expect(receipt.logs[0].topics).to.deep.equal([
      TRANSFER_TOPIC,
      zeroPadValue(lower(from), 32),
      zeroPadValue(lower(to), 32),
    ]);
    expect(receipt.logs[0].data).to.equal(zeroPadValue(toBeHex(TOKENS_SENT), 32));
  }

  it('ethers v6', async () => {
    // Back-to-back transactions of one wallet must not reuse a nonce ethers cached (250 ms by default).
    const provider = new JsonRpcProvider(node.url, undefined, {
      staticNetwork: true,
      pollingInterval: 50,
      cacheTimeout: -1,
    });
    const wallet = new Wallet(devWallet(0).privateKey, provider);
    const recipient = freshAddress(0);
    try {
      expect((await provider.getNetwork()).chainId).to.equal(CHAIN_ID);
      const factory = new ContractFactory(token.abi, token.bytecode, wallet);
      const deployed = (await factory.deploy('Ethers', 'ETH6', SUPPLY)) as Contract;
      await deployed.waitForDeployment();
      const address = await deployed.getAddress();
      expect(address).to.equal(getCreateAddress({ from: wallet.address, nonce: 0 }));
      const deployReceipt = await provider.getTransactionReceipt(deployed.deploymentTransaction()!.hash);
      expect(deployReceipt!.status).to.equal(1);
      expect(deployReceipt!.contractAddress).to.equal(address);

      const estimate = await deployed.getFunction('transfer').estimateGas(recipient, TOKENS_SENT);
      expect(estimate).to.equal(await rawTransferEstimate(address, wallet.address, recipient));
      const transfer = (await deployed.getFunction('transfer')(recipient, TOKENS_SENT)) as ContractTransactionResponse;
      expect((await transfer.wait())!.status).to.equal(1);
      expectTokenTransferLog(await rawReceipt(transfer.hash), address, wallet.address, recipient);
      expect(await deployed.getFunction('balanceOf')(recipient)).to.equal(TOKENS_SENT);
      expect(await deployed.getFunction('balanceOf')(wallet.address)).to.equal(SUPPLY - TOKENS_SENT);
      const overdraw = tokenAbi.encodeFunctionData('transfer', [wallet.address, TOKENS_SENT + 1n]);
      const refused = await provider
        .call({ from: recipient, to: address, data: overdraw })
        .catch((error: unknown) => error);
      expect(refused).to.include({ code: 'CALL_EXCEPTION', reason: OVERDRAWN });

      expect(await provider.estimateGas({ from: wallet.address, to: recipient, value: ETH_SENT })).to.equal(21_000n);
      const payment = await wallet.sendTransaction({ to: recipient, value: ETH_SENT });
      const paid = (await payment.wait())!;
      expect(paid.status).to.equal(1);
      expect(paid.gasUsed).to.equal(21_000n);
      expect(await provider.getBalance(recipient, paid.blockNumber - 1)).to.equal(0n);
      expect(await provider.getBalance(recipient, paid.blockNumber)).to.equal(ETH_SENT);
    } finally {
      provider.destroy();
    }
  });

  it('viem', async () => {
    const chain = defineChain({
      id: Number(CHAIN_ID),
      name: 'evmnode local',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [node.url] } },
    });
    const account = privateKeyToAccount(devWallet(1).privateKey as Hex);
    const wallet = createWalletClient({ account, chain, transport: http(node.url), pollingInterval: 50 });
    const client: PublicClient = createPublicClient({ chain, transport: http(node.url), pollingInterval: 50 });
    const recipient = freshAddress(1) as Hex;
    const receiptOf = (hash: Hex): Promise<TransactionReceipt> => client.waitForTransactionReceipt({ hash });

    const deployHash = await wallet.deployContract({
      abi: token.abi,
      bytecode: token.bytecode,
      args: ['Viem', 'VIEM', SUPPLY],
    });
    const deployReceipt = await receiptOf(deployHash);
    expect(deployReceipt.status).to.equal('success');
    const address = deployReceipt.contractAddress!;
    expect(getAddress(address)).to.equal(getCreateAddress({ from: account.address, nonce: 0 }));

    const transferCall = {
      account,
      address,
      abi: token.abi,
      functionName: 'transfer',
      args: [recipient, TOKENS_SENT],
    } as const;
    const estimate = await client.estimateContractGas(transferCall);
    expect(estimate).to.equal(await rawTransferEstimate(address, account.address, recipient));
    const transferHash = await wallet.writeContract(transferCall);
    expect((await receiptOf(transferHash)).status).to.equal('success');
    expectTokenTransferLog(await rawReceipt(transferHash), address, account.address, recipient);
    const balanceOf = (owner: Hex) =>
      client.readContract({ address, abi: token.abi, functionName: 'balanceOf', args: [owner] });
    expect(await balanceOf(recipient)).to.equal(TOKENS_SENT);
    expect(await balanceOf(account.address)).to.equal(SUPPLY - TOKENS_SENT);
    const refused = await client
      .simulateContract({ ...transferCall, account: recipient, args: [account.address, TOKENS_SENT + 1n] })
      .catch((error: BaseError) => error);
    expect(refused).to.be.instanceOf(BaseError);
    const reverted = (refused as BaseError).walk((cause) => cause instanceof ContractFunctionRevertedError);
    expect((reverted as ContractFunctionRevertedError).reason).to.equal(OVERDRAWN);

    expect(await client.estimateGas({ account, to: recipient, value: ETH_SENT })).to.equal(21_000n);
    const paymentHash = await wallet.sendTransaction({ to: recipient, value: ETH_SENT });
    const paid = await receiptOf(paymentHash);
    expect(paid.status).to.equal('success');
    expect(paid.gasUsed).to.equal(21_000n);
    expect(await client.getBalance({ address: recipient, blockNumber: paid.blockNumber - 1n })).to.equal(0n);
    expect(await client.getBalance({ address: recipient, blockNumber: paid.blockNumber })).to.equal(ETH_SENT);
  });

  it('web3.js v4', async () => {
    const web3 = new Web3(node.url);
    web3.transactionPollingInterval = 50;
    web3.transactionReceiptPollingInterval = 50;
    const account = web3.eth.accounts.wallet.add(devWallet(2).privateKey).get(0)!;
    const recipient = freshAddress(2);
    expect(await web3.eth.getChainId()).to.equal(CHAIN_ID);

    const abi = token.abi as ContractAbi;
    const deployed = await new web3.eth.Contract(abi)
      .deploy({ data: token.bytecode, arguments: ['Web3', 'WEB3', SUPPLY] })
      .send({ from: account.address });
    const address = deployed.options.address!;
    expect(getAddress(address)).to.equal(getCreateAddress({ from: account.address, nonce: 0 }));
    const contract = new web3.eth.Contract(abi, address);

    const transfer = contract.methods.transfer!(recipient, TOKENS_SENT);
    const estimate = await transfer.estimateGas({ from: account.address });
    expect(estimate).to.equal(await rawTransferEstimate(address, account.address, recipient));
    const transferReceipt = await transfer.send({ from: account.address });
    expect(transferReceipt.status).to.equal(1n);
    const receipt = await web3.eth.getTransactionReceipt(transferReceipt.transactionHash);
    expect(receipt.status).to.equal(1n);
    expect(receipt.logs).to.have.length(1);
    expectTokenTransferLog(await rawReceipt(String(receipt.transactionHash)), address, account.address, recipient);
    const balanceOf = (owner: string) => contract.methods.balanceOf!(owner).call();
    expect(await balanceOf(recipient)).to.equal(TOKENS_SENT);
    expect(await balanceOf(account.address)).to.equal(SUPPLY - TOKENS_SENT);
    const refused = await contract.methods.transfer!(account.address, TOKENS_SENT + 1n)
      .call({ from: recipient })
      .catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(web3Errors.ContractExecutionError);
    expect((refused as InstanceType<typeof web3Errors.ContractExecutionError>).cause).to.include({
      code: 3,
      message: `execution reverted: ${OVERDRAWN}`,
      data: OVERDRAWN_DATA,
    });

    expect(await web3.eth.estimateGas({ from: account.address, to: recipient, value: ETH_SENT })).to.equal(21_000n);
    const paid = await web3.eth.sendTransaction({ from: account.address, to: recipient, value: ETH_SENT });
    expect(paid.status).to.equal(1n);
    expect(paid.gasUsed).to.equal(21_000n);
    const height = BigInt(paid.blockNumber);
    expect(await web3.eth.getBalance(recipient, height - 1n)).to.equal(0n);
    expect(await web3.eth.getBalance(recipient, height)).to.equal(ETH_SENT);
  });

  it('cast', async () => {
    const key = devWallet(3).privateKey;
    const from = devWallet(3).address;
    const recipient = freshAddress(3);
    const url = ['--rpc-url', node.url];
    expect(await cast('chain-id', ...url)).to.equal(String(CHAIN_ID));

    const constructorArgs = tokenAbi.encodeDeploy(['Cast', 'CAST', SUPPLY]).slice(2);
    const deployed = JSON.parse(
      await cast('send', '--private-key', key, ...url, '--json', '--create', token.bytecode + constructorArgs),
    );
    expect(deployed.status).to.equal('0x1');
    const address = getAddress(deployed.contractAddress);
    expect(address).to.equal(getCreateAddress({ from, nonce: 0 }));

    const transferArgs = [address, 'transfer(address,uint256)', recipient, String(TOKENS_SENT)];
    const estimate = BigInt(await cast('estimate', ...url, '--from', from, ...transferArgs));
    expect(estimate).to.equal(await rawTransferEstimate(address, from, recipient));
    const sent = JSON.parse(await cast('send', '--private-key', key, ...url, '--json', ...transferArgs));
    expect(sent.status).to.equal('0x1');
    const receipt = JSON.parse(await cast('receipt', ...url, '--json', sent.transactionHash));
    expectTokenTransferLog(receipt, address, from, recipient);
    expect(receipt.blockHash).to.equal((await rawReceipt(sent.transactionHash)).blockHash);
    const balanceOf = (owner: string) => cast('call', ...url, address, 'balanceOf(address)(uint256)', owner);
    expect(await balanceOf(recipient)).to.equal(String(TOKENS_SENT));
    expect(BigInt((await balanceOf(from)).split(' ')[0]!)).to.equal(SUPPLY - TOKENS_SENT);
    expect(await rawTokenBalance(address, recipient)).to.equal(TOKENS_SENT);
    const overdraw = [address, 'transfer(address,uint256)', from, String(TOKENS_SENT + 1n)];
    const refused = await cast('call', ...url, '--from', recipient, ...overdraw).then(
      () => undefined,
      (error: { stderr: string }) => error.stderr,
    );
    expect(refused).to.equal(
      `Error: server returned an error response: error code 3: execution reverted: ${OVERDRAWN}, data: "${OVERDRAWN_DATA}"\n`,
    );

    expect(await cast('estimate', ...url, '--from', from, '--value', String(ETH_SENT), recipient)).to.equal('21000');
    // Signed offline and published: the raw transaction path.
    const raw = await cast('mktx', '--private-key', key, ...url, '--value', String(ETH_SENT), recipient);
    const paid = JSON.parse(await cast('publish', ...url, raw));
    expect(paid.status).to.equal('0x1');
    expect(JSON.parse(await cast('receipt', ...url, '--json', paid.transactionHash))).to.deep.equal(paid);
    expect(BigInt(paid.gasUsed)).to.equal(21_000n);
    const height = Number(paid.blockNumber);
    expect(await cast('balance', ...url, '--block', String(height - 1), recipient)).to.equal('0');
    expect(await cast('balance', ...url, '--block', String(height), recipient)).to.equal(String(ETH_SENT));
    expect(await cast('balance', ...url, '--block', quantity(height), recipient)).to.equal(String(ETH_SENT));
  });
});
