import { EventLoopTurns } from '@evmnode/core';

/**
 * Undefined when `client`'s (`clientOf` an address) next request may be served now, else a
 * promise of its turn of the node's thread, shared by client with the node's other ports: a
 * client on many connections, or streaming requests on one, gets no more of the thread than
 * another client.
 */
export function clientTurn(client: string): Promise<void> | undefined {
  // A turn length of 0: every request asks for its turn.
  return new EventLoopTurns(0, client).pause();
}
