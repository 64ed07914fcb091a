import type { StateManagerInterface } from '@ethereumjs/common';
import type { Account, Address, PrefixedHexString } from '@ethereumjs/util';
import type { Turns } from '../../rpc/event-loop-turns.js';

/**
 * How many trie walks run at once: a block's worth (a 60M-gas block of transfers has under 3,000
 * recipients), so that RocksDB's reader threads finish many reads between two turns of the event
 * loop. Each turn also runs the admissions that arrived meanwhile; with 16 walks, a full block's
 * 595 new recipients took a turn for every 16 reads, and under a stream of transactions the
 * prefetch grew from 20 ms to 200-400 ms as the trie grew. Walks share the node reads under way
 * (`readNode`), so starting them all at once reads the upper levels once, as 16 at a time did.
 */
const CONCURRENT_WALKS = 1_024;

/**
 * Reads the accounts of `addresses` (each once, in their order), several at a time. An account missing from the
 * state's cache is a walk down the trie, node by node from RocksDB; a block of transfers to new
 * addresses that reads them one after another waits for each walk in turn (about three quarters
 * of a full block's execution time), while concurrent walks overlap their waits. The accounts
 * land in the state's cache, so a block's transactions then find them there. The walks a batch of
 * reads wakes go on together, through nodes already in memory: between two accounts, a walk gives
 * other work a turn when `turns` says so.
 */
export async function readAccounts(
  state: Pick<StateManagerInterface, 'getAccount'>,
  addresses: Iterable<Address>,
  turns?: Turns,
): Promise<Map<PrefixedHexString, Account | undefined>> {
  const distinct = new Map<PrefixedHexString, Address>();
  for (const address of addresses) distinct.set(address.toString(), address);
  const pending = [...distinct.values()];
  const found = new Array<Account | undefined>(pending.length);
  let next = 0;
  const walker = async () => {
    while (next < pending.length) {
      const at = next++;
      found[at] = await state.getAccount(pending[at]!);
      const turn = turns?.pause();
      if (turn !== undefined) await turn;
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENT_WALKS, pending.length) }, walker));
  return new Map([...distinct.keys()].map((key, at) => [key, found[at]]));
}
