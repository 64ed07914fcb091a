/**
 * The cost of the legacy gate on an ungated call: `eth_blockNumber` on two evmnode nodes that
 * differ only in `enabled_legacy_ext_apis` (the default three names, and every legacy method), in
 * alternating turns. An ungated call pays a prefix check whatever the list, so the two rates should
 * differ by less than the turn-to-turn spread of either node.
 */
import { LEGACY_METHODS } from '@evmnode/core/internal';
import { startEvmnode, type ChainServer } from './chain-servers.js';
import {
  runHttpLoad,
  sampleHttpLoad,
  summarize,
  type HttpLoadResult,
  type HttpSamples,
  type PostedCall,
} from './http-load.js';

export interface GateCost {
  readonly defaultList: HttpLoadResult;
  readonly longList: HttpLoadResult;
  /** The largest spread of one node's turn rates, as a fraction of its mean: the noise. */
  readonly noise: number;
}

export interface GateCostSettings {
  readonly repoRoot: string;
  readonly options: readonly string[];
  readonly call: PostedCall;
  readonly inFlight: number;
  readonly warmupSeconds: number;
  readonly seconds: number;
  readonly slices: number;
}

export const LEGACY_METHOD_COUNT = LEGACY_METHODS.length;
/** The option that enables every legacy method. */
const ALL_LEGACY_ENABLED = ['--evm.enabled_legacy_ext_apis', LEGACY_METHODS.join(',')];

export async function measureGateCost(settings: GateCostSettings): Promise<GateCost> {
  const nodes: ChainServer[] = [];
  try {
    nodes.push(await startEvmnode(settings.repoRoot, '400ms', settings.options));
    nodes.push(await startEvmnode(settings.repoRoot, '400ms', [...settings.options, ...ALL_LEGACY_ENABLED]));
    const runs: HttpSamples[][] = nodes.map(() => []);
    for (const node of nodes) await runHttpLoad(node.url, settings.call, settings.inFlight, settings.warmupSeconds);
    for (let slice = 0; slice < settings.slices; slice++) {
      for (const [index, node] of nodes.entries()) {
        const turn = await sampleHttpLoad(
          node.url,
          settings.call,
          settings.inFlight,
          settings.seconds / settings.slices,
        );
        runs[index]!.push(turn);
      }
    }
    return { defaultList: summarize(runs[0]!), longList: summarize(runs[1]!), noise: Math.max(...runs.map(spread)) };
  } finally {
    await Promise.all(nodes.map((node) => node.stop()));
  }
}

/** (highest - lowest) / mean of the right answers per second of each turn. */
function spread(turns: readonly HttpSamples[]): number {
  const rates = turns.map((turn) => turn.latenciesMs.length / turn.seconds);
  const mean = rates.reduce((total, rate) => total + rate, 0) / rates.length;
  return (Math.max(...rates) - Math.min(...rates)) / mean;
}
