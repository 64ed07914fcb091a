/**
 * Prepares a chain for the method bench: TestToken deployed by the first dev account, which gives
 * every other dev account a share, then a few blocks of ETH and token transfers from all of them.
 */
import { getAddress } from 'ethers';
import type { ChainServer } from './chain-servers.js';
import {
  deployToken,
  devSenders,
  ingest,
  SENDER_COUNT,
  signEthTransfers,
  signTokenTransfers,
  TOKEN_SUPPLY,
} from './chain-workload.js';
import type { Fixture } from './method-calls.js';

/** Rounds of one ETH and one token transfer per sender, each round mined before the next is sent. */
const ROUNDS = 5;
const IN_FLIGHT = 32;
const FIXTURE_MS = 120_000;
const RECIPIENT = getAddress('0x000000000000000000000000000000000000beef');

export async function prepareFixture(server: ChainServer): Promise<Fixture> {
  const deadline = performance.now() + FIXTURE_MS;
  const senders = await devSenders(server.url);
  const token = await deployToken(server.url, server.chainId, senders, deadline);
  for (let round = 0; round < ROUNDS; round++) {
    const eth = await signEthTransfers(senders, server.chainId, 1);
    const tokens = await signTokenTransfers(senders, server.chainId, token, 1);
    await ingest(
      server.url,
      eth.map((txs, sender) => [...txs, ...(tokens[sender] ?? [])]),
      IN_FLIGHT,
      deadline,
    );
  }
  // The second sender got its share from the deployer and has sent one token per round since.
  const holder = senders[1]!.wallet.address;
  return { token, holder, holderTokens: TOKEN_SUPPLY / BigInt(SENDER_COUNT) - BigInt(ROUNDS), recipient: RECIPIENT };
}
