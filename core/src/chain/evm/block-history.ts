import { Address, bigIntToAddressBytes, bigIntToBytes, setLengthLeft } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';

/** The history contract and the key of the slot that holds the parent hash of block `number`. */
function parentHashSlot(vm: VM, number: bigint): { history: Address; key: Uint8Array } {
  const history = new Address(bigIntToAddressBytes(vm.common.param('historyStorageAddress')));
  const slot = (number - 1n) % vm.common.param('historyServeWindow');
  return { history, key: setLengthLeft(bigIntToBytes(slot), 32) };
}

/**
 * EIP-2935's system call at the start of block `number` (Prague): the history contract stores the
 * parent's hash in slot `(number - 1) mod 8191`, where contracts read past block hashes from state.
 * Written as ethereumjs' runBlock writes it (`accumulateParentBlockHash`, which the package does not
 * export), with the same outcome as geth's call into the contract; nothing when the contract has no
 * code, as in both.
 */
export async function storeParentHash(vm: VM, number: bigint, parentHash: Uint8Array): Promise<void> {
  const { history, key } = parentHashSlot(vm, number);
  if ((await vm.stateManager.getCode(history)).length === 0) return;
  await vm.stateManager.putStorage(history, key, parentHash);
}

/**
 * Reads the slot {@link storeParentHash} writes for block `number`, so that its trie path is in
 * memory when the block's writes are flushed. Nothing else in a block reads it: the flush read it
 * from the database, and on a busy node the admissions that ran during that read stretched the
 * flush of a full block from about 40 ms to 90–200.
 */
export async function readParentHashSlot(vm: VM, number: bigint): Promise<void> {
  const { history, key } = parentHashSlot(vm, number);
  await vm.stateManager.getStorage(history, key);
}
