import type { Socket } from 'node:net';

/** What the writes still buffered in a connection closed early get. */
const CLOSED_UNWRITTEN = new Error('connection closed with output unwritten');

function ignore(): void {}

/**
 * Makes a destroy of `socket` that gives no error while writes are still buffered in it give one,
 * which each such write then gets. Destroyed without one, as ws's `terminate()` and close timeout
 * and node:http's timeouts destroy, Node makes an error for each: 2.8 s of the thread, in one
 * turn, for the notifications twenty stalled subscribers left unread. Nothing need hear of the
 * error: it stands in for none.
 */
export function destroyWithOneError(socket: Socket): void {
  const destroy = socket.destroy.bind(socket);
  socket.destroy = (error?: Error) => {
    // Destroyed already (ws destroys again as it closes): one listener is enough.
    if (error !== undefined || socket.destroyed || socket.writableLength === 0) return destroy(error);
    socket.on('error', ignore);
    return destroy(CLOSED_UNWRITTEN);
  };
}
