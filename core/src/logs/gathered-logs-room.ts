import { LimitExceededError } from '../errors/rpc-error.js';
import { HELD_ANSWERS_BUSY, type HeldAnswers } from '../transport/held-answers.js';

/**
 * The room a log query's logs take, as they are found, among the answers the node holds for
 * clients (`max_held_answer_bytes`): a closed range of 2,000 busy blocks, or an open-ended one of
 * 10,000 large logs, finds hundreds of megabytes, and 30 such queries a second may run. All of it
 * is given back at once when the query ends.
 */
export class GatheredLogsRoom {
  #taken = 0;

  constructor(
    private readonly room: Pick<HeldAnswers, 'take' | 'give' | 'limit'>,
    /** What a caller is told when its logs alone pass the node's room (`mib` of it). */
    private readonly tooLarge = (mib: number) =>
      `log response too large: the logs found pass ${mib} MiB; query fewer blocks`,
  ) {}

  /** Takes room for a log of `bytes`; -32005 when the query alone passes the node's room, or others hold it. */
  take(bytes: number): void {
    if (this.room.take(bytes)) {
      this.#taken += bytes;
      return;
    }
    if (this.#taken + bytes <= this.room.limit) throw new LimitExceededError(HELD_ANSWERS_BUSY);
    throw new LimitExceededError(this.tooLarge(Math.floor(this.room.limit / 1024 / 1024)));
  }

  release(): void {
    this.room.give(this.#taken);
    this.#taken = 0;
  }
}
