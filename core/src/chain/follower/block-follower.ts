import type { TxOptions } from '@ethereumjs/tx';
import { bytesToHex } from '@ethereumjs/util';
import type { Logger } from 'pino';
import type { Chain } from '../chain.js';
import { failureFields, type HealthReport } from '../../node/health.js';
import { ReplicaMismatch, type BlockProducer, type UpstreamBlock } from '../block-producer.js';
import { decodeNativeTransaction, type NativeTransaction } from '../native/native-transaction.js';
import type { PooledTransaction } from '../pool/pooled-transaction.js';
import { decodeSignedTransaction, fastTxOptions } from '../pool/raw-transaction.js';
import { SenderRecoveryThread, type RecoveredTransaction } from './sender-recovery-thread.js';
import type { CometBlock, UpstreamGateway } from './upstream-gateway.js';

/** Blocks fetched while earlier ones replicate: catching up waits for the network once, not at every block. */
const FETCH_AHEAD = 16;

/**
 * The producer's blocks up to `last`, fetched, their senders recovered and decoded up to
 * {@link FETCH_AHEAD} ahead of the one taken. A block is decoded as soon as it arrives, which
 * is mostly while blocks before it execute and are written: not between two blocks.
 */
class BlocksAhead {
  readonly #fetching = new Map<number, Promise<UpstreamBlock>>();

  constructor(
    private readonly upstream: UpstreamGateway,
    private readonly last: number,
    private readonly prepare: (height: number, comet: CometBlock) => Promise<UpstreamBlock>,
  ) {}

  take(height: number): Promise<UpstreamBlock> {
    for (let next = height; next <= Math.min(height + FETCH_AHEAD - 1, this.last); next++) {
      if (this.#fetching.has(next)) continue;
      const fetched = this.upstream.block(next).then((comet) => this.prepare(next, comet));
      // Awaited when taken; one abandoned after an earlier failure must not be an unhandled rejection.
      fetched.catch(() => undefined);
      this.#fetching.set(next, fetched);
    }
    const block = this.#fetching.get(height)!;
    this.#fetching.delete(height);
    return block;
  }
}

/**
 * A follower's replication of its producer's chain: it asks the producer's native gateway for the
 * blocks after its own head (fetching a few ahead) and hands each in turn to the block producer's
 * own code to execute again and commit only if it comes out the same (`BlockProducer.replicate`). A producer
 * that cannot be reached is asked again every poll interval; a block that does not replicate stops
 * following, loudly, and the node keeps serving the blocks it has.
 */
export class BlockFollower {
  readonly #stopping = new AbortController();
  #following: Promise<void> = Promise.resolve();
  readonly #txOptions: TxOptions;
  readonly #recovery: SenderRecoveryThread;
  /** Set when a block did not replicate: following stopped there. */
  mismatch: ReplicaMismatch | undefined;
  /** The producer's head when it last answered. */
  #upstreamHeight = 0;
  /** Set once the producer's head is known from its `status`. */
  #upstreamKnown = false;
  /** Ends the pause between polls early: a block was pushed. */
  #wake: (() => void) | undefined;
  /** The last block pushed since the producer's head was last asked for. */
  #pushed: CometBlock | undefined;
  #unreachable = false;

  constructor(
    private readonly chain: Chain,
    private readonly producer: BlockProducer,
    private readonly upstream: UpstreamGateway,
    private readonly pollIntervalMs: number,
    private readonly logger: Logger,
  ) {
    this.#txOptions = fastTxOptions(chain.common);
    this.#recovery = new SenderRecoveryThread(chain.chainId);
  }

  start(): void {
    // Blocks are pushed as the producer commits them; the poll interval is the fallback.
    const pushed = (block: CometBlock) => {
      this.#pushed = block;
      this.#wake?.();
    };
    this.upstream.watchNewBlocks(pushed, this.pollIntervalMs, this.#stopping.signal);
    this.#following = this.#follow();
  }

  /** Stops following; resolves once a block being replicated is committed. */
  async stop(): Promise<void> {
    this.#stopping.abort();
    await this.#following;
    await this.producer.written().catch(() => undefined);
    await this.#recovery.stop();
  }

  /**
   * `/health`: unhealthy beyond `maxLagBlocks` behind the producer or ahead of it, once following
   * stopped, or while its replicated blocks fail to be written. A producer that cannot be reached leaves every
   * follower as far behind as the others, so that alone does not take one out.
   */
  health(maxLagBlocks: number): HealthReport {
    const height = this.chain.head().height;
    const lagBlocks = Math.max(0, this.#upstreamHeight - height);
    const failure = this.producer.failure();
    // A follower only ever takes the producer's blocks: a producer whose head is well below this
    // node's lost blocks, or is another chain, and this node's are not its.
    const aheadBlocks = this.#upstreamKnown ? height - this.#upstreamHeight : 0;
    let status = lagBlocks > maxLagBlocks ? 'behind' : 'ok';
    let problem: Record<string, unknown> = {};
    if (aheadBlocks > maxLagBlocks) {
      status = 'ahead';
      problem = {
        error: `the producer's head ${this.#upstreamHeight} is ${aheadBlocks} blocks below this node's: it lost blocks, or is another chain`,
      };
    }
    if (this.mismatch !== undefined) {
      status = 'stopped';
      problem = { error: this.mismatch.message };
    } else if (failure !== undefined) {
      status = 'failing';
      problem = failureFields(failure);
    }
    return {
      healthy: status === 'ok',
      body: {
        status,
        role: 'follower',
        height,
        upstreamHeight: this.#upstreamHeight,
        lagBlocks,
        upstreamReachable: !this.#unreachable,
        ...problem,
      },
    };
  }

  /**
   * One block replicated (its write started), then old state pruned when due, between blocks as a
   * producer does: once no block is being written, as pruning deletes nodes from the store.
   */
  async #replicate(block: UpstreamBlock): Promise<void> {
    await this.producer.replicate(block);
    if (!this.chain.pruneDue()) return;
    await this.producer.written();
    await this.chain.pruneIfDue();
  }

  async #follow(): Promise<void> {
    while (!this.#stopping.signal.aborted) {
      try {
        const pushed = this.#pushed;
        this.#pushed = undefined;
        const height = this.producer.lastBuilt().height + 1;
        if (pushed !== undefined && Number(pushed.block.header.height) === height) {
          // The block right after the head came with the push: no round trip to the producer.
          this.#upstreamHeight = Math.max(this.#upstreamHeight, height);
          await this.#replicate(await this.#prepare(height, pushed));
          await this.producer.written();
          continue;
        }
        this.#upstreamHeight = await this.upstream.latestHeight();
        this.#upstreamKnown = true;
        const ahead = new BlocksAhead(this.upstream, this.#upstreamHeight, (height, comet) =>
          this.#prepare(height, comet),
        );
        // Each block executes while the one before it is written.
        while (!this.#stopping.signal.aborted && this.producer.lastBuilt().height < this.#upstreamHeight)
          await this.#replicate(await ahead.take(this.producer.lastBuilt().height + 1));
        await this.producer.written();
        if (this.#unreachable) this.logger.info({ upstream: this.upstream.url }, 'producer reachable again');
        this.#unreachable = false;
      } catch (error) {
        if (error instanceof ReplicaMismatch) {
          this.mismatch = error;
          this.logger.error({ err: error }, 'follower stopped: a block from the producer does not replicate');
          return;
        }
        if (!this.#unreachable)
          this.logger.warn({ err: error, upstream: this.upstream.url }, 'cannot reach the producer');
        this.#unreachable = true;
      }
      await this.#pause();
    }
  }

  /** Waits the poll interval, or less: until a new block is pushed (or was, meanwhile) or following stops. */
  #pause(): Promise<void> {
    // An abort before the listener is added would never call it.
    if (this.#pushed !== undefined || this.#stopping.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#stopping.signal.removeEventListener('abort', done);
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, this.pollIntervalMs);
      this.#stopping.signal.addEventListener('abort', done, { once: true });
      this.#wake = done;
    });
  }

  /** Block `height` as the producer serves it, its senders recovered on the recovery thread, decoded. */
  async #prepare(height: number, comet: CometBlock): Promise<UpstreamBlock> {
    return this.#decode(height, comet, await this.#recovery.recover(comet.block.data.txs ?? []));
  }

  /** The block as the producer serves it: native transactions first, then the EVM ones it wraps. */
  #decode(height: number, comet: CometBlock, received: readonly RecoveredTransaction[]): UpstreamBlock {
    const { header } = comet.block;
    if (Number(header.height) !== height) throw new ReplicaMismatch(height, `the producer sent block ${header.height}`);
    const natives: NativeTransaction[] = [];
    const transactions: PooledTransaction[] = [];
    for (const [index, recovered] of received.entries()) {
      try {
        if (recovered.kind === 'native') {
          if (transactions.length > 0) throw new Error('a native transaction follows an EVM one');
          natives.push(decodeNativeTransaction(recovered.bytes));
          continue;
        }
        if (recovered.kind === 'invalid') throw new Error(recovered.reason);
        const { raw } = recovered;
        const tx = decodeSignedTransaction(raw, this.#txOptions, recovered);
        const sender = tx.getSenderAddress().toString();
        const { hash, nativeHash } = recovered;
        transactions.push({ tx, raw, hash: bytesToHex(hash), sender, nonce: tx.nonce, arrival: index, nativeHash });
      } catch (error) {
        throw new ReplicaMismatch(height, `its transaction ${index} does not decode: ${(error as Error).message}`);
      }
    }
    return {
      height,
      hash: `0x${comet.block_id.hash.toLowerCase()}`,
      timeMs: BigInt(Date.parse(header.time)),
      proposer: `0x${header.proposer_address.toLowerCase()}`,
      natives,
      transactions,
    };
  }
}
