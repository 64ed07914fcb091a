/**
 * The WebAssembly memory JS tracers' sandboxes grow, counted for all of them together. Each may
 * grow to its own bound (`js-sandbox-worker.ts`), but ten traces at once, each holding its
 * sandbox full, took the node to 1.2 GB: together they grow at most {@link ALL_GROWTH_BYTES}, and
 * a growth past it fails in the script as running out of memory does.
 */
const WASM_PAGE = 64 * 1024;
/** As much as two sandboxes grown to their bound (96 MiB, the first 16 of which every one has). */
const ALL_GROWTH_BYTES = 160 * 1024 * 1024;
const ALL_GROWTH_PAGES = ALL_GROWTH_BYTES / WASM_PAGE;

/** Indices in a thread's own cells. */
const GROWN = 0;
const REFUSED = 1;

/** What a sandbox thread shares with the node's thread of its memory's growth. */
export interface GrowthCells {
  /** One Int32: the pages all sandboxes have grown. */
  readonly all: SharedArrayBuffer;
  /** Two Int32s: the pages this thread's memory has grown, and 1 once a growth was refused. */
  readonly own: SharedArrayBuffer;
}

const allGrown = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);

/** The node's side of one sandbox thread's growth. */
export class SandboxGrowth {
  readonly #own = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));

  get cells(): GrowthCells {
    return { all: allGrown, own: this.#own.buffer };
  }

  /** Whether a growth was refused since {@link startTrace}: the other sandboxes held what was left. */
  get refused(): boolean {
    return Atomics.load(this.#own, REFUSED) === 1;
  }

  startTrace(): void {
    Atomics.store(this.#own, REFUSED, 0);
  }

  /** Once the thread has ended: what its memory grew is the others' again. */
  giveBack(): void {
    Atomics.sub(new Int32Array(allGrown), 0, Atomics.exchange(this.#own, GROWN, 0));
  }
}

/**
 * The sandbox's side: `memory`, of at most `maximumBytes`, grows only within what all sandboxes
 * may grow together. QuickJS's build grows its memory through the `grow` of the memory it was
 * given, and treats a failure as its allocator running out.
 */
export function boundGrowth(memory: WebAssembly.Memory, maximumBytes: number, cells: GrowthCells): void {
  const all = new Int32Array(cells.all);
  const own = new Int32Array(cells.own);
  const grow = memory.grow.bind(memory);
  memory.grow = (pages: number): number => {
    // Past its own bound it could never grow, whatever the others hold: its own error says so.
    if (memory.buffer.byteLength + pages * WASM_PAGE > maximumBytes) return grow(pages);
    if (Atomics.add(all, 0, pages) + pages > ALL_GROWTH_PAGES) {
      Atomics.sub(all, 0, pages);
      Atomics.store(own, REFUSED, 1);
      throw new RangeError("the JS tracers' sandboxes hold all the memory they may grow");
    }
    try {
      const previous = grow(pages);
      Atomics.add(own, GROWN, pages);
      return previous;
    } catch (error) {
      Atomics.sub(all, 0, pages);
      throw error;
    }
  };
}
