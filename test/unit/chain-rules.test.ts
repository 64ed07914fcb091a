import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { bech32 } from '@scure/base';
import { expect } from 'chai';
import { HDNodeWallet } from 'ethers';
import { DEV_ACCOUNT_COUNT, isStartupError, wrapEvmTransaction } from '@evmnode/core';
import { consensusHeaderHash, devAccounts, nextBaseFee, readGenesisFile } from '@evmnode/core/internal';
import { temporaryDir } from '../support/temp-dirs.js';

const GWEI = 1_000_000_000n;
const DEV_MNEMONIC = 'test test test test test test test test test test test junk';

describe('base fee rule', () => {
  it('rises by 1.89% after a full block and falls by 0.39% after an empty one', () => {
    expect(nextBaseFee(100n * GWEI, 12_500_000n, 12_500_000n)).to.equal(101_890_000_000n);
    expect(nextBaseFee(100n * GWEI, 0n, 12_500_000n)).to.equal(99_610_000_000n);
  });

  it('stays put at the 250,000 gas target and moves linearly between', () => {
    expect(nextBaseFee(100n * GWEI, 250_000n, 12_500_000n)).to.equal(100n * GWEI);
    expect(nextBaseFee(100n * GWEI, 125_000n, 12_500_000n)).to.equal(99_805_000_000n);
    expect(nextBaseFee(100n * GWEI, 6_375_000n, 12_500_000n)).to.equal(100_945_000_000n);
  });

  it('stays within 1 gwei and 1000 gwei', () => {
    expect(nextBaseFee(GWEI, 0n, 12_500_000n)).to.equal(GWEI);
    expect(nextBaseFee(1000n * GWEI, 12_500_000n, 12_500_000n)).to.equal(1000n * GWEI);
  });
});

describe('block and transaction hashes', () => {
  const header = {
    chainId: 713714n,
    height: 7n,
    timeMs: 1_735_689_600_400n,
    parentHash: `0x${'11'.repeat(32)}`,
    dataHash: `0x${'22'.repeat(32)}`,
    appHash: `0x${'33'.repeat(32)}`,
    proposer: `0x${'44'.repeat(20)}`,
  } as const;

  it('hashes the consensus header with SHA-256, deterministically and over every field', () => {
    const hash = consensusHeaderHash(header);
    expect(hash).to.match(/^0x[0-9a-f]{64}$/);
    expect(consensusHeaderHash({ ...header })).to.equal(hash);
    for (const changed of [
      { height: 8n },
      { timeMs: 1n },
      { appHash: `0x${'55'.repeat(32)}` as const },
      { chainId: 1n },
    ]) {
      expect(consensusHeaderHash({ ...header, ...changed })).to.not.equal(hash);
    }
  });

  it('wraps an EVM transaction into native bytes that hold it', () => {
    const raw = Uint8Array.from([0x02, 0xf8, 0x01, 0x02]);
    const wrapped = wrapEvmTransaction(raw);
    expect(Buffer.from(wrapped).includes(Buffer.from(raw))).to.equal(true);
    expect(Buffer.from(wrapped).toString('latin1')).to.include('/evmnode.evm.v1.MsgEVMTransaction');
  });
});

describe('genesis', () => {
  const write = (content: unknown): string => {
    const file = path.join(temporaryDir('genesis'), 'genesis.json');
    writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    return file;
  };
  const refusal = (file: string): string => {
    try {
      readGenesisFile(file);
    } catch (error) {
      expect(isStartupError(error)).to.equal(true);
      return (error as Error).message;
    }
    throw new Error('expected the genesis to be refused');
  };

  it("funds the ten accounts m/44'/60'/0'/0/0-9 of the test mnemonic, as anvil and Hardhat do", () => {
    const derived = Array.from({ length: 10 }, (_, index) => {
      const wallet = HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, `m/44'/60'/0'/0/${index}`);
      return { address: wallet.address.toLowerCase(), privateKey: wallet.privateKey, publicKey: wallet.publicKey };
    });
    expect(DEV_ACCOUNT_COUNT).to.equal(10);
    expect(devAccounts(DEV_ACCOUNT_COUNT)).to.deep.equal(derived);
    expect(devAccounts(1)[0]!.address).to.equal('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266');
    expect(() => devAccounts(11)).to.throw(RangeError, 'there are 10 dev accounts, not 11');
  });

  it('reads 0x and bech32 addresses, decimal and hex numbers, code and storage', () => {
    const second20 = Buffer.from('70997970c51812dc3a010c7d01b50e0d17dc79c8', 'hex');
    const bech32Address = bech32.encode('sei', bech32.toWords(second20));
    const genesis = readGenesisFile(
      write({
        chainId: 713714,
        genesisTime: '2025-01-01T00:00:00.000Z',
        alloc: {
          '0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266': { balance: '1000' },
          [bech32Address]: { balance: '0x10', nonce: 2, code: '0x6000', storage: { '0x1': '0x2' } },
        },
      }),
    );
    expect(genesis.chainId).to.equal(713714n);
    expect(genesis.timeMs).to.equal(BigInt(Date.UTC(2025, 0, 1)));
    expect(genesis.gasLimit).to.equal(12_500_000n);
    expect(genesis.alloc.get('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266')?.balance).to.equal(1000n);
    const second = genesis.alloc.get('0x70997970c51812dc3a010c7d01b50e0d17dc79c8');
    expect(second).to.deep.include({ balance: 16n, nonce: 2n });
    expect([...second!.storage]).to.deep.equal([[`0x${'0'.repeat(63)}1`, `0x${'0'.repeat(63)}2`]]);
  });

  it('names the field that is wrong', () => {
    expect(refusal(write({ chainId: 'x', genesisTime: 0 }))).to.match(
      /genesis\.json: chainId must be a non-negative integer/,
    );
    expect(refusal(write({ chainId: 1, genesisTime: 0, alloc: { nope: { balance: '1' } } }))).to.match(
      /genesis\.json: alloc\.nope is neither a 0x address nor a bech32 address of 20 bytes$/,
    );
    expect(
      refusal(write({ chainId: 1, genesisTime: 0, alloc: { [`0x${'ab'.repeat(20)}`]: { balance: -1 } } })),
    ).to.match(/alloc\.0xabababababababababababababababababababab\.balance must be a non-negative integer/);
    expect(refusal(write({ chainId: 1, genesisTime: 'someday' }))).to.match(
      /genesisTime must be milliseconds or an ISO date$/,
    );
    expect(refusal(write('{ not json'))).to.match(/^cannot read the genesis file /);
  });
});
