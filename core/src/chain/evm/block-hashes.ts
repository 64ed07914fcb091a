import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';
import { hexToBytes } from '@ethereumjs/util';
import type { ChainStore } from '../chain-store.js';

/**
 * The EVM's view of past blocks, for BLOCKHASH: our consensus hashes by height (the EVM checks
 * the 256-block window itself). Blocks are never added through it: the store is the record.
 */
export function blockHashes(store: ChainStore): EVMMockBlockchainInterface {
  const view: EVMMockBlockchainInterface = {
    async getBlock(height: number) {
      const blockHash = await store.executionBlockHash(height);
      const hash = blockHash === undefined ? new Uint8Array(32) : hexToBytes(blockHash);
      return { hash: () => hash };
    },
    putBlock: () => Promise.resolve(),
    shallowCopy: () => view,
  };
  return view;
}
