/**
 * The thread that checks long request bodies before the node's thread parses them: their JSON and
 * its limits (`request-json-limits.ts`). Its answer to each body is the fault, or undefined, with
 * the body handed back.
 */
import { parentPort } from 'node:worker_threads';
import { limitFault } from './request-json-limits.js';
import type { BodyCheck, BodyVerdict } from './request-json.js';

parentPort!.on('message', ({ id, bytes }: BodyCheck) => {
  let fault: string | undefined;
  try {
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    fault = limitFault(JSON.parse(text));
  } catch (error) {
    fault = (error as Error).message;
  }
  parentPort!.postMessage({ id, fault, bytes } satisfies BodyVerdict, [bytes.buffer as ArrayBuffer]);
});
