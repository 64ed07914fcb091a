/**
 * The on-demand row of `bench:chain`: what a test suite that sends one transaction and waits for
 * its receipt sees. Pre-signed ETH transfers from one dev account, each sent when the previous
 * one's receipt came back; a receipt is polled for at once and then every millisecond, the same
 * for every server.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { receiptOf, rpc } from './chain-rpc.js';
import type { ChainServer } from './chain-servers.js';
import { devSenders, signEthTransfers } from './chain-workload.js';
import { percentile } from './load-result.js';

const POLL_MS = 1;

export interface RoundTrips {
  readonly rounds: number;
  /** Wall time of all rounds, in seconds. */
  readonly totalSeconds: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** `rounds` send-and-wait round trips on `server`, after `warmUp` untimed ones; stops the server. */
export async function sendAndWait(server: ChainServer, rounds: number, warmUp: number): Promise<RoundTrips> {
  try {
    const [sender] = await devSenders(server.url);
    const [txs] = await signEthTransfers([sender!], server.chainId, warmUp + rounds);
    const times: number[] = [];
    const started = performance.now();
    let measuredFrom = started;
    for (const [index, tx] of txs!.entries()) {
      if (index === warmUp) measuredFrom = performance.now();
      const sent = performance.now();
      await rpc(server.url, 'eth_sendRawTransaction', [tx.raw]);
      for (;;) {
        const receipt = await receiptOf(server.url, tx.hash);
        if (receipt !== null) {
          if (receipt.status !== '0x1') throw new Error(`${server.name}: transfer ${tx.hash} failed`);
          break;
        }
        await sleep(POLL_MS);
      }
      if (index >= warmUp) times.push(performance.now() - sent);
    }
    const sorted = times.sort((a, b) => a - b);
    return {
      rounds,
      totalSeconds: (performance.now() - measuredFrom) / 1000,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
    };
  } finally {
    await server.stop();
  }
}
