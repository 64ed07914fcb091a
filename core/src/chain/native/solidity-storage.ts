import type { StateManagerInterface } from '@ethereumjs/common';
import { bigIntToBytes, bytesToBigInt, setLengthLeft, setLengthRight, type Address } from '@ethereumjs/util';
import { keccak256 } from '../native-crypto.js';

/*
 * Solidity's storage layout of a `string` at a slot: up to 31 bytes sit in the slot itself,
 * left-aligned, with twice the length in its lowest byte; longer ones put 2 x length + 1 in the slot
 * and the bytes in consecutive slots from keccak256(slot), the last one padded on the right. The
 * lowest bit tells the two apart. Contract code reading the string sees what these functions write.
 */

const WORD = 32;

function slotKey(slot: bigint): Uint8Array {
  return setLengthLeft(bigIntToBytes(slot), WORD);
}

async function readWord(state: StateManagerInterface, address: Address, key: Uint8Array): Promise<Uint8Array> {
  return setLengthLeft(await state.getStorage(address, key), WORD);
}

/** The keys of the data slots of a string of `length` bytes stored at `slot` (none for a short one). */
function dataKeys(slot: bigint, length: number): Uint8Array[] {
  if (length < WORD) return [];
  const first = bytesToBigInt(keccak256(slotKey(slot)));
  return Array.from({ length: Math.ceil(length / WORD) }, (_, index) => slotKey(first + BigInt(index)));
}

/** The byte length of the string stored at `slot`. */
async function storedLength(state: StateManagerInterface, address: Address, slot: bigint): Promise<number> {
  const head = await readWord(state, address, slotKey(slot));
  const isLong = (head[WORD - 1]! & 1) === 1;
  return isLong ? Number((bytesToBigInt(head) - 1n) / 2n) : head[WORD - 1]! / 2;
}

/** The string stored at `slot` of `address`'s storage ('' when the slot is empty). */
export async function getSolidityString(state: StateManagerInterface, address: Address, slot: bigint): Promise<string> {
  const length = await storedLength(state, address, slot);
  if (length < WORD)
    return new TextDecoder().decode((await readWord(state, address, slotKey(slot))).subarray(0, length));
  const words = await Promise.all(dataKeys(slot, length).map((key) => readWord(state, address, key)));
  const bytes = new Uint8Array(words.length * WORD);
  words.forEach((word, index) => bytes.set(word, index * WORD));
  return new TextDecoder().decode(bytes.subarray(0, length));
}

/**
 * Stores `text` (UTF-8) at `slot` of `address`'s storage, clearing the data slots of a longer
 * string stored there before, as Solidity does. The account must exist.
 */
export async function putSolidityString(
  state: StateManagerInterface,
  address: Address,
  slot: bigint,
  text: string,
): Promise<void> {
  const bytes = new TextEncoder().encode(text);
  const previousKeys = dataKeys(slot, await storedLength(state, address, slot));
  const keys = dataKeys(slot, bytes.length);
  if (keys.length === 0) {
    const head = setLengthRight(bytes, WORD);
    head[WORD - 1] = bytes.length * 2;
    await state.putStorage(address, slotKey(slot), head);
  } else {
    await state.putStorage(address, slotKey(slot), bigIntToBytes(BigInt(bytes.length) * 2n + 1n));
  }
  for (const [index, key] of keys.entries()) {
    await state.putStorage(address, key, setLengthRight(bytes.subarray(index * WORD, (index + 1) * WORD), WORD));
  }
  for (const key of previousKeys.slice(keys.length)) await state.putStorage(address, key, new Uint8Array(0));
}
