/**
 * A client flooding a node from one address, on a thread of its own so that the node's thread
 * is not shared with it: each of `connections` connections sends `body` again as soon as it is
 * answered, until the parent posts a message; the worker then posts how many answers came.
 */
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import WebSocket from 'ws';

export interface FloodOptions {
  readonly transport: 'http' | 'ws';
  readonly url: string;
  readonly localAddress: string;
  readonly connections: number;
  readonly body: string;
}

const { transport, url, localAddress, connections, body } = workerData as FloodOptions;
let stopped = false;
let answers = 0;
parentPort!.once('message', () => {
  stopped = true;
  parentPort!.postMessage(answers);
});

function postOnce(agent: http.Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method: 'POST',
      agent,
      localAddress,
      headers: { 'content-type': 'application/json' },
    });
    request.on('response', (response) => {
      response.on('data', () => undefined);
      response.on('end', () => resolve());
    });
    request.on('error', reject);
    request.end(body);
  });
}

async function httpConnection(agent: http.Agent): Promise<void> {
  while (!stopped) {
    await postOnce(agent);
    answers++;
  }
}

async function wsConnection(): Promise<void> {
  const socket = new WebSocket(url, { localAddress });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  socket.on('message', () => {
    answers++;
    if (stopped) socket.close();
    else socket.send(body);
  });
  socket.send(body);
}

if (transport === 'http') {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  for (let index = 0; index < connections; index++) void httpConnection(agent);
} else {
  for (let index = 0; index < connections; index++) void wsConnection();
}
