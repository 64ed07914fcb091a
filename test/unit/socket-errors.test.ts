import { expect } from 'chai';
import { createServer, connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { destroyWithOneError } from '@evmnode/core/internal';

/** A connected pair on loopback whose far end never reads. */
async function stalledPair(): Promise<{ near: Socket; far: Socket; close: () => void }> {
  const server = createServer({ pauseOnConnect: true });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const accepted = once(server, 'connection') as Promise<[Socket]>;
  const near = connect(port, '127.0.0.1');
  await once(near, 'connect');
  const [far] = await accepted;
  return { near, far, close: () => (far.destroy(), server.close()) };
}

/** Resolves to whether `socket` closed with an error (`once` would reject at the error itself). */
function closed(socket: Socket): Promise<boolean> {
  return new Promise((resolve) => socket.once('close', resolve));
}

/** Writes chunks until the kernel takes no more and `count` wait in the socket; their callbacks' errors. */
function fillBuffered(socket: Socket, count: number): (Error | null | undefined)[] {
  const errors: (Error | null | undefined)[] = [];
  const chunk = Buffer.alloc(64 * 1024);
  while (socket.writableLength < 8 * 1024 * 1024) socket.write(chunk, (error) => errors.push(error));
  for (let i = 0; i < count; i++) socket.write('x', (error) => errors.push(error));
  return errors;
}

describe('sockets destroyed with writes buffered', () => {
  it('give every buffered write one error, where Node makes one for each', async () => {
    const plain = await stalledPair();
    const plainErrors = fillBuffered(plain.near, 1_000);
    plain.near.destroy();
    await closed(plain.near);
    const guarded = await stalledPair();
    destroyWithOneError(guarded.near);
    const guardedErrors = fillBuffered(guarded.near, 1_000);
    guarded.near.destroy();
    // Destroyed again, as ws does as it closes: no more listeners than the one.
    for (let again = 0; again < 20; again++) guarded.near.destroy();
    expect(guarded.near.listenerCount('error')).to.equal(1);
    await closed(guarded.near);
    plain.close();
    guarded.close();

    const failed = (errors: (Error | null | undefined)[]) => errors.filter((error) => error instanceof Error);
    expect(failed(plainErrors).length).to.be.at.least(1_000);
    expect(new Set(failed(plainErrors)).size).to.equal(failed(plainErrors).length);
    expect(failed(guardedErrors).length).to.be.at.least(1_000);
    expect(new Set(failed(guardedErrors)).size).to.equal(1);
    expect(failed(guardedErrors)[0]!.message).to.equal('connection closed with output unwritten');
  });

  it('destroy a socket with nothing buffered as before: no error to hear', async () => {
    const pair = await stalledPair();
    destroyWithOneError(pair.near);
    let heard: unknown;
    pair.near.on('error', (error) => (heard = error));
    pair.near.destroy();
    const hadError = await closed(pair.near);
    pair.close();
    expect(hadError).to.equal(false);
    expect(heard).to.equal(undefined);
  });
});
