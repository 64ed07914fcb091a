import type { ResultRoom } from './tracer.js';

/** A share of a room that counts what it took, so that all of it is given back at once. */
export class RoomShare implements ResultRoom {
  #taken = 0;

  constructor(private readonly room: ResultRoom) {}

  take(bytes: number): boolean {
    if (!this.room.take(bytes)) return false;
    this.#taken += bytes;
    return true;
  }

  give(bytes: number): void {
    this.room.give(bytes);
    this.#taken -= bytes;
  }

  /** Gives back all it holds. */
  release(): void {
    this.give(this.#taken);
  }
}
