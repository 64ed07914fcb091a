import { Address, bigIntToAddressBytes, bigIntToBytes, setLengthLeft } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';

/**
 * EIP-2935's system call at the start of block `number` (Prague): the history contract stores the
 * parent's hash in slot `(number - 1) mod 8191`, where contracts read past block hashes from state.
 * Written as ethereumjs' runBlock writes it (`accumulateParentBlockHash`, which the package does not
 * export), with the same outcome as geth's call into the contract; nothing when the contract has no
 * code, as in both.
 */
export async function storeParentHash(vm: VM, number: bigint, parentHash: Uint8Array): Promise<void> {
  const history = new Address(bigIntToAddressBytes(vm.common.param('historyStorageAddress')));
  if ((await vm.stateManager.getCode(history)).length === 0) return;
  const slot = (number - 1n) % vm.common.param('historyServeWindow');
  await vm.stateManager.putStorage(history, setLengthLeft(bigIntToBytes(slot), 32), parentHash);
}
