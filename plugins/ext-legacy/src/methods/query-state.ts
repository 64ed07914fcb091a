import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { keccak_256 } from '@noble/hashes/sha3.js';
import {
  blockRef,
  castEvmAddress,
  castNativeAddress,
  defineMethod,
  LATEST_BLOCK,
  toQuantity,
  type ChainReader,
  type NativeLayer,
} from '@evmnode/core';
import { accountAddress, type AccountAddress } from './account-address.js';

/** Both addresses of an account after `height`, and whether they are associated or only cast (decisions.md D5). */
async function addressesOf(chain: ChainReader, account: AccountAddress, height: number) {
  if ('evm' in account) {
    const native = await chain.nativeAddressOf(account.evm, height);
    return { evm: account.evm, native: native ?? castNativeAddress(hexToBytes(account.evm)), associated: !!native };
  }
  const evm = await chain.evmAddressOf(account.native, height);
  const cast = bytesToHex(castEvmAddress(account.native));
  return { evm: evm ?? cast, native: account.native, associated: evm !== undefined };
}

/** `ext_queryState(address, block?)`: an account's addresses, balances of every denomination, nonce and code hash. */
export function queryStateMethod(chain: ChainReader, native: NativeLayer) {
  return defineMethod({
    name: 'ext_queryState',
    params: [accountAddress, blockRef.optional(LATEST_BLOCK)],
    handler: async ([account, block]) => {
      const height = await chain.resolveHeight(block);
      const { evm, native: nativeAddress, associated } = await addressesOf(chain, account, height);
      const [state, code, balances] = await Promise.all([
        chain.accountAt(evm, height),
        chain.codeAt(evm, height),
        native.allBalances(nativeAddress, height),
      ]);
      return {
        evmAddress: evm,
        nativeAddress,
        association: associated ? 'associated' : 'cast',
        balances: balances.map(({ denom, amount }) => ({ denom, amount: amount.toString() })),
        nonce: toQuantity(state.nonce),
        codeHash: bytesToHex(keccak_256(code)),
        blockNumber: toQuantity(height),
      };
    },
  });
}
