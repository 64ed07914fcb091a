import { expect } from 'chai';
import type { WriteBatch } from '@evmnode/core';
import { BatchPieces } from '@evmnode/core/internal';

type WriteOptions = Parameters<WriteBatch['write']>[0];

/** A batch that records what it holds and when it is written; `fail` makes its write reject. */
class RecordedBatch implements WriteBatch {
  readonly entries: string[] = [];
  written: WriteOptions | undefined;
  #release: (() => void) | undefined;

  constructor(
    private readonly log: string[],
    private readonly fail = false,
  ) {}

  put(key: Uint8Array): this {
    this.entries.push(Buffer.from(key).toString());
    return this;
  }

  del(): this {
    throw new Error('pieces only put');
  }

  get length(): number {
    return this.entries.length;
  }

  write(options: WriteOptions = {}): Promise<void> {
    this.log.push(`write ${this.entries.join(',')}`);
    this.written = options;
    return new Promise((resolve, reject) => {
      this.#release = () => {
        this.log.push(`done ${this.entries.join(',')}`);
        if (this.fail) reject(new Error(`${this.entries.join(',')} failed`));
        else resolve();
      };
    });
  }

  /** Lets the write under way finish. */
  release(): void {
    this.#release?.();
  }
}

const bytes = (text: string) => Buffer.from(text);
const value = (size: number) => new Uint8Array(size);
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Pieces of `pieceBytes`, with the batches they made; the first `failing` of them fail. */
function recordedPieces(pieceBytes: number, failing = 0) {
  const log: string[] = [];
  const batches: RecordedBatch[] = [];
  const pieces = new BatchPieces(() => {
    batches.push(new RecordedBatch(log, batches.length < failing));
    return batches.at(-1)!;
  }, pieceBytes);
  return { log, batches, pieces };
}

describe('BatchPieces', () => {
  it('writes a piece once it holds the bytes given, one after another, without sync, and keeps the last', async () => {
    const { log, batches, pieces } = recordedPieces(100);
    // Keys count too: a and b are 101 bytes, c and d 212, e 2.
    pieces.put(bytes('a'), value(60));
    await settle();
    expect(log).to.deep.equal([]);
    pieces.put(bytes('b'), value(39)).put(bytes('c'), value(10)).put(bytes('d'), value(200)).put(bytes('e'), value(1));
    await settle();
    // The first piece is being written, the second waits for it; the third is the caller's.
    expect(log).to.deep.equal(['write a,b']);
    expect((pieces.last() as RecordedBatch).entries).to.deep.equal(['e']);
    const written = pieces.written();
    batches[0]!.release();
    await settle();
    expect(log).to.deep.equal(['write a,b', 'done a,b', 'write c,d']);
    batches[1]!.release();
    await written;
    expect(log).to.deep.equal(['write a,b', 'done a,b', 'write c,d', 'done c,d']);
    expect(batches.map((batch) => batch.written)).to.deep.equal([{}, {}, undefined]);
  });

  it('gives a small write as one batch, the last', async () => {
    const { log, batches, pieces } = recordedPieces(100);
    pieces.put(bytes('a'), value(10));
    expect((pieces.last() as RecordedBatch).entries).to.deep.equal(['a']);
    await pieces.written();
    expect([log, batches.length]).to.deep.equal([[], 1]);
    // With nothing put, the last batch is a new one.
    expect(recordedPieces(100).pieces.last().length).to.equal(0);
  });

  it('rejects with the first failure and writes no piece after it', async () => {
    const { log, batches, pieces } = recordedPieces(10, 1);
    pieces.put(bytes('a'), value(10));
    pieces.put(bytes('b'), value(10));
    await settle();
    batches[0]!.release();
    await settle();
    let failure: unknown;
    await pieces.written().catch((error: unknown) => (failure = error));
    expect((failure as Error).message).to.equal('a failed');
    expect(log).to.deep.equal(['write a', 'done a']);
  });
});
