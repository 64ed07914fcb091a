import { FailFastLimiter } from '../../rpc/fail-fast-limiter.js';

/**
 * Transactions a follower forwards to its producer at once; more are refused at once (-32005). A
 * producer that answers slowly otherwise let clients pile up 15,000 forwards in flight, each on a
 * connection of its own (2.6 GB and as many descriptors), for as long as it was slow.
 */
export const MAX_FORWARDS_IN_FLIGHT = 128;

/**
 * A limit of {@link MAX_FORWARDS_IN_FLIGHT} forwards at once, for one kind of transaction, of
 * which one client may hold `clientShare` (`[evm] max_client_share`): one sending as fast as the
 * producer lets it leaves room for the others.
 */
export function forwardLimit(clientShare: number): FailFastLimiter {
  return new FailFastLimiter(
    MAX_FORWARDS_IN_FLIGHT,
    clientShare,
    () => 'server busy: too many transactions being forwarded to the producer',
  );
}
