import { EventLoopTurns, RawJson } from '@evmnode/core';

/** Items serialised at once: a few hundred microseconds of `JSON.stringify` for struct logs. */
const ITEMS_PER_PIECE = 256;

/**
 * The JSON array of `items`, serialised a piece at a time, with turns of the event loop between
 * pieces: the struct logs of one trace come to tens of megabytes, whose `JSON.stringify` in one
 * piece would hold the node's thread for most of a tenth of a second.
 */
export async function jsonArrayInTurns(items: readonly unknown[]): Promise<RawJson> {
  const turns = new EventLoopTurns();
  const pieces: string[] = [];
  for (let start = 0; start < items.length; start += ITEMS_PER_PIECE) {
    // A piece's elements, without its brackets: the array joins the pieces as it joins elements.
    pieces.push(JSON.stringify(items.slice(start, start + ITEMS_PER_PIECE)).slice(1, -1));
    await turns.pause();
  }
  return RawJson.array(pieces);
}
