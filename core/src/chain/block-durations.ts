/** How much each new observation weighs in the running estimates. */
const WEIGHT = 0.25;

/** Blocks with less gas than this share of the limit teach the time of an empty block. */
const EMPTY_SHARE = 0.01;

/** Blocks with at least this share teach the time per gas: in smaller ones the fixed part swamps it. */
const LOADED_SHARE = 0.1;

/**
 * How many mean deviations of the predictions a block starts early by: enough that a block
 * finishes after its due time about once in a few hundred (for normally spread times).
 */
const MARGIN_DEVIATIONS = 2.5;

/**
 * ...and at least this share of its predicted time. Under a stream of transactions the times are
 * not normally spread: most full blocks take about the same, and one in twenty or forty, whose
 * flush or write meets a garbage collection or a slow disk, takes up to 1.6 times as long. A run of
 * steady blocks shrinks the deviations, and with them the margin, just before such a block.
 */
const MARGIN_SHARE = 0.6;

const ewma = (estimate: number, observed: number): number => estimate + WEIGHT * (observed - estimate);

/**
 * Predicts how long the block producer takes to select, execute and commit a block, from the gas
 * limits of its candidates, so that it can start a block that long before the block is due and
 * blocks come out `block_time` apart whatever they hold (decisions.md D4's cadence). The
 * estimates follow the node's own blocks: the time of an empty block, the time per gas used
 * above it, the gas a block uses per gas its transactions' limits allow (transactions seldom use
 * all), and how far the actual times stray from the predicted ones.
 */
export class BlockDurations {
  #emptyMs: number;
  #msPerGas: number;
  #usedPerLimit = 1;
  /** The mean absolute difference between a block's time and the time predicted for its gas. */
  #deviationMs: number;

  constructor(
    private readonly blockGasLimit: number,
    /** A first guess for a full block, until the node has made some. */
    fullBlockMs: number,
  ) {
    this.#emptyMs = fullBlockMs / 20;
    this.#msPerGas = (fullBlockMs - this.#emptyMs) / blockGasLimit;
    this.#deviationMs = this.#emptyMs;
  }

  /**
   * How long before its due time a block whose candidates' gas limits add up to
   * `candidateGasLimits` starts: its predicted time, and a margin for the spread of the times.
   */
  lead(candidateGasLimits: number): number {
    const gasUsed = Math.min(candidateGasLimits * this.#usedPerLimit, this.blockGasLimit);
    const predicted = this.#timeFor(gasUsed);
    return predicted + Math.max(MARGIN_DEVIATIONS * this.#deviationMs, MARGIN_SHARE * predicted);
  }

  /** Whether candidates whose gas limits add up to `candidateGasLimits` are expected to fill a block. */
  fills(candidateGasLimits: number): boolean {
    return candidateGasLimits * this.#usedPerLimit >= this.blockGasLimit;
  }

  /** The lead of a full block: the most any block needs. */
  fullLead(): number {
    return this.lead(Infinity);
  }

  /** Learns from a block that used `gasUsed` of its transactions' `gasLimits` and took `durationMs`. */
  observe(gasLimits: number, gasUsed: number, durationMs: number): void {
    this.#deviationMs = ewma(this.#deviationMs, Math.abs(durationMs - this.#timeFor(gasUsed)));
    if (gasLimits > 0) this.#usedPerLimit = ewma(this.#usedPerLimit, gasUsed / gasLimits);
    if (gasUsed < EMPTY_SHARE * this.blockGasLimit) this.#emptyMs = ewma(this.#emptyMs, durationMs);
    else if (gasUsed >= LOADED_SHARE * this.blockGasLimit)
      this.#msPerGas = ewma(this.#msPerGas, Math.max(0, durationMs - this.#emptyMs) / gasUsed);
  }

  #timeFor(gasUsed: number): number {
    return this.#emptyMs + this.#msPerGas * gasUsed;
  }
}
