import { expect } from 'chai';
import { Transaction, Wallet, getAddress, hexlify, randomBytes, type HDNodeWallet } from 'ethers';
import type { Chain } from '@evmnode/core/internal';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import {
  BLOCK_GAS_LIMIT,
  GWEI,
  SdkCode,
  balanceOf,
  devWallet,
  expectRejection,
  lower,
  nextBlocks,
  receiptOf,
  sendRaw,
  sign,
  signDynamicFeeUnchecked,
  signUnprotected,
  submit,
  waitForReceipt,
  withSignature,
  SECP256K1_N,
} from '../support/chain-kit.js';

/** A fresh address to send to. */
const someone = () => getAddress(hexlify(randomBytes(20)));

describe('chain admission: eth_sendRawTransaction rejections (decisions.md D3, D4)', () => {
  // Blocks every 1.5s: long enough that a transaction sent right after a block is still pooled
  // when the next request arrives, short enough to wait for one.
  let node: TestNode;
  let chain: Chain;
  before(async () => {
    node = await startTestNode({ config: { consensus: { block_time: 1500 } } });
    chain = node.node.chain;
  });
  after(() => node.stop());

  /**
   * Sends `raw`, expects the rejection, and checks that it changed nothing: `watched`'s balance
   * (eth_getBalance) and nonce, and the pool's size.
   */
  async function expectRejected(
    raw: string,
    message: string,
    sdkCode: number,
    watched: string = devWallet(0).address,
  ): Promise<void> {
    const balance = await balanceOf(node.url, watched);
    const account = await chain.accountAtHead(lower(watched) as `0x${string}`);
    const pooled = chain.pool.size;
    expectRejection(await sendRaw(node.url, raw), message, sdkCode);
    expect(await balanceOf(node.url, watched)).to.equal(balance);
    expect(await chain.accountAtHead(lower(watched) as `0x${string}`)).to.deep.equal(account);
    expect(chain.pool.size).to.equal(pooled);
  }

  /** Like expectRejected, for messages that come from the RLP decoder and are only fixed up to their `rlp: ` prefix. */
  async function expectUndecodable(raw: string): Promise<void> {
    const balance = await balanceOf(node.url, devWallet(0).address);
    const pooled = chain.pool.size;
    const answer = await sendRaw(node.url, raw);
    expect(answer.result).to.equal(undefined);
    expect(answer.error.code, raw).to.equal(-32003);
    expect(answer.error.message, raw).to.match(/^rlp: \S/);
    expect(answer.error.data, raw).to.deep.equal({ code: SdkCode.TxDecode, codespace: 'sdk' });
    expect(await balanceOf(node.url, devWallet(0).address)).to.equal(balance);
    expect(chain.pool.size).to.equal(pooled);
  }

  let valid: string;
  before(async () => {
    valid = await sign(devWallet(0), { nonce: 0, to: someone(), value: 1n });
  });

  it('refuses an empty transaction as undecodable', async () => {
    await expectRejected('0x', 'rlp: empty transaction', SdkCode.TxDecode);
  });

  it('refuses bytes that do not decode as a transaction (rlp: ...)', async () => {
    // A truncated legacy list, a truncated signed type-2 transaction, an empty legacy list and
    // an empty type-2 payload.
    for (const raw of ['0xdeadbeef', valid.slice(0, -2), '0xc0', '0x02c0', '0x02']) await expectUndecodable(raw);
  });

  it('reports a malformed typed envelope as undecodable, not as a chain ID mismatch', async () => {
    // 0x02 || rlp([0x]): a type-2 payload of one empty field. geth answers
    // "rlp: too few elements for types.DynamicFeeTx"; the chain ID it "claims" is no chain ID.
    await expectUndecodable('0x02c180');
  });

  it('refuses blob (type 3) transactions: transaction type not supported', async () => {
    await expectRejected(`0x03${valid.slice(4)}`, 'transaction type not supported', SdkCode.NotSupported);
  });

  it('refuses unknown transaction types: transaction type not supported', async () => {
    // A well-formed type-2 body under type byte 0x05; and 0x12, 0x7f as geth reads them (typed envelopes).
    for (const raw of [`0x05${valid.slice(4)}`, '0x1234', '0x7f00']) {
      await expectRejected(raw, 'transaction type not supported', SdkCode.NotSupported);
    }
  });

  it("refuses a deployment whose init code passes EIP-3860's 49,152 bytes, in geth's words", async () => {
    const deployment = (bytes: number) =>
      sign(devWallet(6), { nonce: 0, data: `0x${'00'.repeat(bytes)}`, gasLimit: 1_000_000n });
    await expectRejected(
      await deployment(49_153),
      'max initcode size exceeded: code size 49153, limit 49152',
      SdkCode.TxTooLarge,
      devWallet(6).address,
    );
    const admitted = await sendRaw(node.url, await deployment(49_152));
    expect(admitted.error).to.equal(undefined);
    expect((await waitForReceipt(node.url, admitted.result)).status).to.equal('0x1');
  });

  it("refuses a transaction larger than 128 KiB: oversized data (geth's txMaxSize)", async () => {
    const raw = await sign(devWallet(0), {
      nonce: 0,
      to: someone(),
      data: `0x${'01'.repeat(128 * 1024)}`,
      gasLimit: 10_000_000n,
    });
    const size = (raw.length - 2) / 2;
    expect(size).to.be.greaterThan(128 * 1024);
    await expectRejected(raw, `oversized data: transaction size ${size}, limit 131072`, SdkCode.TxTooLarge);
  });

  it('refuses a transaction signed for another chain: invalid chain id for signer', async () => {
    const wallet = devWallet(0);
    const to = someone();
    await expectRejected(
      await sign(wallet, { nonce: 0, to, chainId: 1n }),
      'invalid chain id for signer: have 1 want 713714',
      SdkCode.InvalidChainId,
    );
    await expectRejected(
      await sign(wallet, { nonce: 0, to, chainId: 1n, type: 0 }),
      'invalid chain id for signer: have 1 want 713714',
      SdkCode.InvalidChainId,
    );
    await expectRejected(
      await sign(wallet, { nonce: 0, to, chainId: 31337n, type: 1 }),
      'invalid chain id for signer: have 31337 want 713714',
      SdkCode.InvalidChainId,
    );
  });

  it('refuses a legacy transaction without EIP-155 replay protection', async () => {
    await expectRejected(
      signUnprotected(devWallet(0), { nonce: 0, to: someone(), value: 1n }),
      'only replay-protected (EIP-155) transactions allowed over RPC',
      SdkCode.Unauthorized,
    );
  });

  it('refuses a signature no sender can be recovered from: invalid sender', async () => {
    // r = 5 is not the x coordinate of a point of secp256k1 (5^3 + 7 = 132 is not a square mod p);
    // r = 0, s = 0 and r = n are out of range.
    for (const forged of [{ r: 5n }, { r: 0n }, { s: 0n }, { r: SECP256K1_N }]) {
      await expectRejected(withSignature(valid, forged), 'invalid sender', SdkCode.Unauthorized);
    }
  });

  it('refuses a non-canonical signature (s above n/2, y-parity 2) as invalid sender, as geth does', async () => {
    // geth decodes these and then fails to recover the sender (ErrInvalidSig): "invalid sender".
    const { s, yParity } = Transaction.from(valid).signature!;
    const highS = withSignature(valid, { s: SECP256K1_N - BigInt(s), yParity: BigInt(1 - yParity) });
    await expectRejected(highS, 'invalid sender', SdkCode.Unauthorized);
    await expectRejected(withSignature(valid, { yParity: 2n }), 'invalid sender', SdkCode.Unauthorized);
  });

  it('refuses gas above the block gas limit, and admits exactly the limit', async () => {
    const wallet = devWallet(1);
    await expectRejected(
      await sign(wallet, { nonce: 0, to: someone(), gasLimit: BLOCK_GAS_LIMIT + 1n }),
      'exceeds block gas limit',
      SdkCode.InvalidGasLimit,
      wallet.address,
    );
    const hash = await submit(node.url, await sign(wallet, { nonce: 0, to: someone(), gasLimit: BLOCK_GAS_LIMIT }));
    const receipt = await waitForReceipt(node.url, hash);
    expect(receipt.status).to.equal('0x1');
    expect(receipt.gasUsed).to.equal('0x5208');
  });

  it('refuses gas below the intrinsic gas: intrinsic gas too low', async () => {
    const wallet = devWallet(0);
    await expectRejected(
      await sign(wallet, { nonce: 0, to: someone(), gasLimit: 20_000n }),
      'intrinsic gas too low: gas 20000, minimum needed 21000',
      SdkCode.OutOfGas,
    );
    // 21000 + 16 per non-zero and 4 per zero calldata byte.
    await expectRejected(
      await sign(wallet, { nonce: 0, to: someone(), gasLimit: 21_000n, data: '0x0100' }),
      'intrinsic gas too low: gas 21000, minimum needed 21020',
      SdkCode.OutOfGas,
    );
    // A creation: 53000 + calldata + 2 per 32-byte word of init code (EIP-3860).
    await expectRejected(
      await sign(wallet, { nonce: 0, to: null, gasLimit: 53_000n, data: '0x5b600056' }),
      'intrinsic gas too low: gas 53000, minimum needed 53054',
      SdkCode.OutOfGas,
    );
  });

  it('refuses gas below the EIP-7623 calldata floor: insufficient gas for floor data gas cost', async () => {
    // 100 non-zero bytes: intrinsic 21000 + 1600 = 22600, floor 21000 + 10 * 4 * 100 = 25000.
    await expectRejected(
      await sign(devWallet(0), { nonce: 0, to: someone(), gasLimit: 23_000n, data: `0x${'ff'.repeat(100)}` }),
      'insufficient gas for floor data gas cost: gas 23000, minimum needed 25000',
      SdkCode.OutOfGas,
    );
  });

  it('refuses a priority fee above the fee cap', async () => {
    const wallet = devWallet(0);
    await expectRejected(
      signDynamicFeeUnchecked(wallet, {
        nonce: 0,
        to: someone(),
        maxFeePerGas: 3n * GWEI,
        maxPriorityFeePerGas: 3n * GWEI + 1n,
      }),
      `max priority fee per gas higher than max fee per gas: address ${lower(wallet.address)}, maxPriorityFeePerGas: 3000000001, maxFeePerGas: 3000000000`,
      SdkCode.InsufficientFee,
    );
  });

  it('refuses a fee cap below the base fee of the next block', async () => {
    expect(chain.nextBaseFee()).to.equal(GWEI);
    const wallet = devWallet(0);
    await expectRejected(
      await sign(wallet, {
        nonce: 0,
        to: someone(),
        maxFeePerGas: GWEI / 2n,
        maxPriorityFeePerGas: 0n,
      }),
      `max fee per gas less than block base fee: address ${lower(wallet.address)}, maxFeePerGas: 500000000, baseFee: 1000000000`,
      SdkCode.InsufficientFee,
    );
    // 1 wei under the base fee.
    await expectRejected(
      await sign(wallet, { nonce: 0, to: someone(), maxFeePerGas: GWEI - 1n, maxPriorityFeePerGas: 0n }),
      `max fee per gas less than block base fee: address ${lower(wallet.address)}, maxFeePerGas: 999999999, baseFee: 1000000000`,
      SdkCode.InsufficientFee,
    );
  });

  it('refuses a sender that cannot pay gas * fee cap + value: insufficient funds', async () => {
    const empty = Wallet.createRandom();
    const gasLimit = 21_000n;
    const maxFeePerGas = 2n * GWEI;
    const value = 1n;
    const cost = gasLimit * maxFeePerGas + value;
    await expectRejected(
      await sign(empty, { nonce: 0, to: someone(), value, gasLimit, maxFeePerGas }),
      `insufficient funds for gas * price + value: balance 0, tx cost ${cost}, overshot ${cost}`,
      SdkCode.InsufficientFunds,
      empty.address,
    );

    // Funded with 0.001 ETH, it still cannot send all of it and pay for gas.
    const funding = 10n ** 15n;
    const funder = devWallet(5);
    await waitForReceipt(
      node.url,
      await submit(node.url, await sign(funder, { nonce: 0, to: empty.address, value: funding })),
    );
    expect(await balanceOf(node.url, empty.address)).to.equal(funding);
    const legacyCost = 21_000n * 3n * GWEI + funding;
    await expectRejected(
      await sign(empty, { nonce: 0, to: someone(), value: funding, type: 0, gasPrice: 3n * GWEI }),
      `insufficient funds for gas * price + value: balance ${funding}, tx cost ${legacyCost}, overshot ${legacyCost - funding}`,
      SdkCode.InsufficientFunds,
      empty.address,
    );
    // Exactly its balance is enough: it ends with nothing.
    const exact = await sign(empty, {
      nonce: 0,
      to: someone(),
      value: funding - 21_000n * 3n * GWEI,
      type: 0,
      gasPrice: 3n * GWEI,
    });
    const receipt = await waitForReceipt(node.url, await submit(node.url, exact));
    expect(receipt.status).to.equal('0x1');
    expect(receipt.effectiveGasPrice).to.equal('0xb2d05e00');
    expect(await balanceOf(node.url, empty.address)).to.equal(0n);
  });

  it('refuses a nonce below the account nonce: nonce too low', async () => {
    const wallet = devWallet(2);
    const first = await sign(wallet, { nonce: 0, to: someone(), value: 1n });
    const receipt = await waitForReceipt(node.url, await submit(node.url, first));
    expect(receipt.status).to.equal('0x1');
    await expectRejected(
      await sign(wallet, { nonce: 0, to: someone(), value: 2n }),
      'nonce too low: next nonce 1, tx nonce 0',
      SdkCode.WrongSequence,
      wallet.address,
    );
    // The mined transaction itself, sent again, is a nonce too low too (it is no longer pooled).
    await expectRejected(first, 'nonce too low: next nonce 1, tx nonce 0', SdkCode.WrongSequence, wallet.address);
  });

  /** Waits for a block, so that the next ~1.5s belong to one pool snapshot. */
  const freshBlock = () => nextBlocks(chain).then(() => undefined);

  it('refuses a transaction the pool already holds: already known', async () => {
    const wallet = devWallet(3);
    const raw = await sign(wallet, { nonce: 0, to: someone(), value: 1n });
    await freshBlock();
    const pooled = chain.pool.size;
    const hash = await submit(node.url, raw);
    expect(chain.pool.size).to.equal(pooled + 1);
    await expectRejected(raw, 'already known', SdkCode.TxInMempoolCache, wallet.address);
    expect(await receiptOf(node.url, hash)).to.equal(null);
    expect((await waitForReceipt(node.url, hash)).status).to.equal('0x1');
  });

  it('replaces a pooled transaction only when both fees rise by 10%: replacement transaction underpriced', async () => {
    const wallet = devWallet(4);
    const to = someone();
    const original = await sign(wallet, {
      nonce: 0,
      to,
      value: 1n,
      maxFeePerGas: 2n * GWEI,
      maxPriorityFeePerGas: GWEI,
    });
    await freshBlock();
    const originalHash = await submit(node.url, original);
    const pooled = chain.pool.size;
    for (const [maxFeePerGas, maxPriorityFeePerGas] of [
      [2_100_000_000n, 1_050_000_000n], // +5% on both
      [2_200_000_000n, 1_000_000_000n], // +10% on the fee cap only
      [2_000_000_000n, 1_100_000_000n], // +10% on the tip only
      [2_199_999_999n, 1_100_000_000n], // 1 wei short of +10% on the fee cap
    ] as const) {
      await expectRejected(
        await sign(wallet, { nonce: 0, to, value: 2n, maxFeePerGas, maxPriorityFeePerGas }),
        'replacement transaction underpriced',
        SdkCode.InsufficientFee,
        wallet.address,
      );
    }
    // Exactly +10% on both fields replaces it, in place.
    const replacement = await sign(wallet, {
      nonce: 0,
      to,
      value: 2n,
      maxFeePerGas: 2_200_000_000n,
      maxPriorityFeePerGas: 1_100_000_000n,
    });
    const replacementHash = await submit(node.url, replacement);
    expect(chain.pool.size).to.equal(pooled);
    const receipt = await waitForReceipt(node.url, replacementHash);
    expect(receipt.status).to.equal('0x1');
    expect(receipt.effectiveGasPrice).to.equal('0x7d2b7500'); // base 1 gwei + tip 1.1 gwei
    expect(await receiptOf(node.url, originalHash)).to.equal(null);
    expect(await balanceOf(node.url, to)).to.equal(2n);
  });

  it('leaves every sender of a rejected transaction able to send its next nonce', async () => {
    // devWallet(0) was refused a dozen ways above; its nonce 0 is still free.
    const receipt = await waitForReceipt(node.url, await submit(node.url, valid));
    expect(receipt.status).to.equal('0x1');
    expect(receipt.from).to.equal(lower(devWallet(0).address));
  });
});

describe('chain admission: legacy minimum gas price ([mempool] min_gas_price)', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({
      config: { mempool: { min_gas_price: 2_000_000_000 }, consensus: { block_time: 100 } },
    });
  });
  after(() => node.stop());

  it('refuses type 0 and type 1 transactions priced below it: transaction underpriced', async () => {
    const wallet = devWallet(0);
    const balance = await balanceOf(node.url, wallet.address);
    for (const type of [0, 1]) {
      const raw = await sign(wallet, { nonce: 0, to: someone(), type, gasPrice: 1_500_000_000n });
      expectRejection(
        await sendRaw(node.url, raw),
        'transaction underpriced: gas price 1500000000, minimum needed 2000000000',
        SdkCode.InsufficientFee,
      );
      expect(node.node.chain.pool.size).to.equal(0);
    }
    expect(await balanceOf(node.url, wallet.address)).to.equal(balance);
  });

  it('admits a legacy transaction at exactly the minimum, and type 2 below it (the minimum is for legacy types)', async () => {
    const wallet = devWallet(1);
    const legacy = await submit(
      node.url,
      await sign(wallet, { nonce: 0, to: someone(), type: 0, gasPrice: 2n * GWEI }),
    );
    const dynamic = await submit(
      node.url,
      await sign(wallet, { nonce: 1, to: someone(), maxFeePerGas: 1_500_000_000n, maxPriorityFeePerGas: 0n }),
    );
    const [first, second] = [await waitForReceipt(node.url, legacy), await waitForReceipt(node.url, dynamic)];
    expect(first.type).to.equal('0x0');
    expect(first.effectiveGasPrice).to.equal('0x77359400');
    expect(second.type).to.equal('0x2');
    expect(second.effectiveGasPrice).to.equal('0x3b9aca00');
  });
});

describe('chain admission: a full mempool ([mempool] size)', () => {
  let node: TestNode;
  let senders: HDNodeWallet[];
  before(async () => {
    // No block for a minute: everything admitted stays pooled.
    node = await startTestNode({ config: { mempool: { size: 3 }, consensus: { block_time: 60_000 } } });
    senders = [0, 1, 2, 3].map(devWallet);
  });
  after(() => node.stop());

  it('refuses a new transaction paying no more than any pooled one with transaction underpriced, but still answers already known and takes replacements', async () => {
    const chain = node.node.chain;
    const raws = await Promise.all(senders.slice(0, 3).map((wallet) => sign(wallet, { nonce: 0, to: someone() })));
    for (const raw of raws) await submit(node.url, raw);
    expect(chain.pool.size).to.equal(3);

    const fourth = senders[3]!;
    const balance = await balanceOf(node.url, fourth.address);
    expectRejection(
      await sendRaw(node.url, await sign(fourth, { nonce: 0, to: someone() })),
      'transaction underpriced',
      SdkCode.InsufficientFee,
    );
    expect(chain.pool.size).to.equal(3);
    expect(await balanceOf(node.url, fourth.address)).to.equal(balance);

    // A next nonce of a pooled sender is a new transaction too.
    expectRejection(
      await sendRaw(node.url, await sign(senders[0]!, { nonce: 1, to: someone() })),
      'transaction underpriced',
      SdkCode.InsufficientFee,
    );
    expectRejection(await sendRaw(node.url, raws[0]!), 'already known', SdkCode.TxInMempoolCache);
    await submit(
      node.url,
      await sign(senders[1]!, { nonce: 0, to: someone(), maxFeePerGas: 3n * GWEI, maxPriorityFeePerGas: 2n * GWEI }),
    );
    expect(chain.pool.size).to.equal(3);
    expect(chain.head().height).to.equal(0);
  });
});

describe('chain admission under load: senders recovered on the admission thread', () => {
  let node: TestNode;
  let chain: Chain;
  before(async () => {
    node = await startTestNode({ config: { consensus: { block_time: 1500 } } });
    chain = node.node.chain;
    // A transaction waiting behind a nonce gap keeps the pool from emptying: a lone send to an
    // empty pool is recovered on the node's thread, any other on the worker.
    await submit(node.url, await sign(devWallet(9), { nonce: 5, to: someone() }));
  });
  after(() => node.stop());

  it('refuses the same forged signatures as invalid sender, leaving the pool as it was', async () => {
    const valid = await sign(devWallet(0), { nonce: 0, to: someone(), value: 1n });
    const { s, yParity } = Transaction.from(valid).signature!;
    const forged = [
      withSignature(valid, { r: 5n }),
      withSignature(valid, { r: 0n }),
      withSignature(valid, { r: SECP256K1_N }),
      withSignature(valid, { s: SECP256K1_N - BigInt(s), yParity: BigInt(1 - yParity) }),
      withSignature(valid, { yParity: 2n }),
    ];
    const handedOver = chain.admissionRecovery.handedOver;
    for (const raw of forged) {
      expectRejection(await sendRaw(node.url, raw), 'invalid sender', SdkCode.Unauthorized);
      expect(chain.pool.size).to.equal(1);
    }
    expect(chain.admissionRecovery.handedOver).to.equal(handedOver + forged.length);
  });

  it('admits transactions sent together with their own senders, which their block and receipts keep', async () => {
    const wallets = [1, 2, 3, 4, 5, 6].map(devWallet);
    const raws = await Promise.all(
      wallets.flatMap((wallet) => [0, 1, 2].map((nonce) => sign(wallet, { nonce, to: someone(), value: 1n }))),
    );
    const handedOver = chain.admissionRecovery.handedOver;
    const answers = await Promise.all(raws.map((raw) => sendRaw(node.url, raw)));
    const hashes = answers.map((answer) => answer.result as string);
    expect(chain.admissionRecovery.handedOver).to.equal(handedOver + raws.length);
    hashes.forEach((hash, index) => {
      expect(hash, JSON.stringify(answers[index])).to.equal(Transaction.from(raws[index]).hash);
      expect(chain.pool.byHash(hash as `0x${string}`)?.sender).to.equal(lower(wallets[Math.floor(index / 3)]!.address));
    });
    for (const [index, hash] of hashes.entries()) {
      const receipt = await waitForReceipt(node.url, hash);
      expect(receipt.status).to.equal('0x1');
      expect(receipt.from).to.equal(lower(wallets[Math.floor(index / 3)]!.address));
    }
  });
});
