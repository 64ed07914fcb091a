import { SimulationVm } from './simulation-vm.js';
import type { Chain } from '../chain.js';

/**
 * A few simulation VMs shared by every simulated call; a call waits for a free one. JavaScript
 * runs one call at a time anyway, so more VMs would not add throughput: they would only split
 * the warm caches between them and make every one of them cold again after each block.
 */
export class SimulationPool {
  readonly #idle: SimulationVm[] = [];
  readonly #waiting: ((simulation: SimulationVm) => void)[] = [];
  #created = 0;

  constructor(
    private readonly chain: Chain,
    private readonly size: number,
  ) {}

  async acquire(): Promise<SimulationVm> {
    const idle = this.#idle.pop();
    if (idle !== undefined) return idle;
    if (this.#created < this.size) {
      this.#created++;
      return SimulationVm.create(this.chain).catch((error: unknown) => {
        this.#created--;
        throw error;
      });
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Returns a VM after a call; a VM left in an unknown state is dropped and replaced on demand. */
  release(simulation: SimulationVm, reusable: boolean): void {
    if (!reusable) {
      this.#created--;
      const waiter = this.#waiting.shift();
      if (waiter !== undefined) void this.acquire().then(waiter);
      return;
    }
    const waiter = this.#waiting.shift();
    if (waiter !== undefined) waiter(simulation);
    else this.#idle.push(simulation);
  }
}
