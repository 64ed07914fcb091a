import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createEVM } from '@ethereumjs/evm';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address, bytesToHex, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import { expect } from 'chai';
import { AbiCoder, Interface, keccak256, toBeHex } from 'ethers';
import { getSolidityString, POINTER_RUNTIME_CODE, putSolidityString } from '@evmnode/core/internal';

const CONTRACT = new Address(hexToBytes('0x00000000000000000000000000000000000000c0'));

/** keccak256 of slot 0, where the data of a long string at slot 0 starts. */
const SLOT_0_DATA = '0x290decd9548b62a8d60345a988386fc84ba6bc95484008f6362f93160ef3e563';

async function freshState(): Promise<MerkleStateManager> {
  const state = new MerkleStateManager();
  await state.putAccount(CONTRACT, new Account(1n));
  return state;
}

function key(slot: string | bigint): Uint8Array {
  return hexToBytes(toBeHex(slot, 32) as `0x${string}`);
}

/** A storage slot's value as 32 bytes of hex, zero when it is empty. */
async function slotValue(state: MerkleStateManager, slot: string | bigint): Promise<string> {
  return bytesToHex(setLengthLeft(await state.getStorage(CONTRACT, key(slot)), 32));
}

function hexOf(text: string): string {
  return Buffer.from(text, 'utf8').toString('hex');
}

describe('Solidity string storage', () => {
  it('stores a short string in its slot with twice its length in the lowest byte', async () => {
    const state = await freshState();
    await putSolidityString(state, CONTRACT, 0n, 'utest');
    expect(await slotValue(state, 0n)).to.equal(`0x${hexOf('utest').padEnd(62, '0')}0a`);
    expect(await getSolidityString(state, CONTRACT, 0n)).to.equal('utest');
  });

  it('keeps a 31-byte string in its slot', async () => {
    const state = await freshState();
    const text = 'a'.repeat(31);
    await putSolidityString(state, CONTRACT, 0n, text);
    expect(await slotValue(state, 0n)).to.equal(`0x${hexOf(text)}3e`);
    expect(await slotValue(state, SLOT_0_DATA)).to.equal(`0x${'0'.repeat(64)}`);
    expect(await getSolidityString(state, CONTRACT, 0n)).to.equal(text);
  });

  it('stores a 32-byte string as 2 x length + 1 and its bytes from keccak256(slot)', async () => {
    const state = await freshState();
    const text = 'b'.repeat(32);
    await putSolidityString(state, CONTRACT, 0n, text);
    expect(await slotValue(state, 0n)).to.equal(toBeHex(65, 32));
    expect(await slotValue(state, SLOT_0_DATA)).to.equal(`0x${hexOf(text)}`);
    expect(await slotValue(state, BigInt(SLOT_0_DATA) + 1n)).to.equal(`0x${'0'.repeat(64)}`);
    expect(await getSolidityString(state, CONTRACT, 0n)).to.equal(text);
  });

  it('pads the last data slot of a long string on the right, at any slot', async () => {
    const state = await freshState();
    const text = 'factory/sei1creator/Ünïcode-denomination';
    const bytes = Buffer.from(text, 'utf8');
    expect(bytes.length).to.equal(42);
    const dataStart = BigInt(keccak256(AbiCoder.defaultAbiCoder().encode(['uint256'], [7])));
    await putSolidityString(state, CONTRACT, 7n, text);
    expect(await slotValue(state, 7n)).to.equal(toBeHex(85, 32));
    expect(await slotValue(state, dataStart)).to.equal(`0x${bytes.subarray(0, 32).toString('hex')}`);
    expect(await slotValue(state, dataStart + 1n)).to.equal(`0x${bytes.subarray(32).toString('hex').padEnd(64, '0')}`);
    expect(await getSolidityString(state, CONTRACT, 7n)).to.equal(text);
  });

  it('clears the data slots of a longer string it replaces', async () => {
    const state = await freshState();
    await putSolidityString(state, CONTRACT, 0n, 'c'.repeat(70));
    await putSolidityString(state, CONTRACT, 0n, 'd'.repeat(33));
    expect(await slotValue(state, BigInt(SLOT_0_DATA) + 2n)).to.equal(`0x${'0'.repeat(64)}`);
    expect(await getSolidityString(state, CONTRACT, 0n)).to.equal('d'.repeat(33));
    await putSolidityString(state, CONTRACT, 0n, 'usei');
    expect(await slotValue(state, SLOT_0_DATA)).to.equal(`0x${'0'.repeat(64)}`);
    expect(await slotValue(state, BigInt(SLOT_0_DATA) + 1n)).to.equal(`0x${'0'.repeat(64)}`);
    expect(await getSolidityString(state, CONTRACT, 0n)).to.equal('usei');
  });

  it('reads an empty slot as the empty string', async () => {
    expect(await getSolidityString(await freshState(), CONTRACT, 3n)).to.equal('');
  });

  it('writes strings that compiled Solidity code reads back', async () => {
    const state = await freshState();
    await state.putCode(CONTRACT, hexToBytes(POINTER_RUNTIME_CODE));
    const evm = await createEVM({
      common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague }),
      stateManager: state,
    });
    const pointer = new Interface(['function denom() view returns (string)']);
    for (const text of ['utest', 'e'.repeat(31), 'factory/sei1creator/a-denomination-longer-than-a-word']) {
      await putSolidityString(state, CONTRACT, 0n, text);
      const result = await evm.runCall({
        to: CONTRACT,
        data: hexToBytes(pointer.encodeFunctionData('denom') as `0x${string}`),
      });
      expect(result.execResult.exceptionError).to.equal(undefined);
      expect(pointer.decodeFunctionResult('denom', bytesToHex(result.execResult.returnValue))[0]).to.equal(text);
    }
  });
});
