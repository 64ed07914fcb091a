import autocannon from 'autocannon';
import { chainIdRequest, readAnswer } from './chain-id-call.js';
import { toLoadResult, type LoadResult } from './load-result.js';

/** Drives `eth_chainId` over keep-alive HTTP/1.1 with `connections` sockets, one request in flight on each. */
export async function runHttpLoad(
  url: string,
  chainId: string,
  connections: number,
  seconds: number,
): Promise<LoadResult> {
  // autocannon's own latency histogram has 1 ms resolution, too coarse for sub-ms answers, so the
  // per-response times (hrtime-based, fractional ms) are collected here instead.
  const latenciesMs: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: chainIdRequest(1),
        connections,
        duration: seconds,
        verifyBody: (body) => {
          const answer = readAnswer(body?.toString() ?? '');
          const ok = answer?.id === 1 && answer.result === chainId;
          // autocannon emits 'response' (recorded below) just before verifying: a wrong answer is no sample.
          // Any status but 200 carries no `result`, so it fails here too and counts as a mismatch.
          if (!ok) latenciesMs.pop();
          return ok;
        },
      },
      (error: Error | null, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on('response', (_client, _statusCode, _bytes, responseTime) => latenciesMs.push(responseTime));
  });
  return toLoadResult(latenciesMs, result.duration, result.errors + result.mismatches);
}
