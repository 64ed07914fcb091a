import { MemoryStore } from '@evmnode/core';

/** A database that counts the keys read from it, one at a time or together (the node store's misses). */
export class CountingReads extends MemoryStore {
  gets = 0;

  override get(key: Uint8Array) {
    this.gets++;
    return super.get(key);
  }

  override getMany(keys: readonly Uint8Array[]) {
    this.gets += keys.length;
    return super.getMany(keys);
  }
}
