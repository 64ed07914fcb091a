import autocannon from 'autocannon';
import { toLoadResult, type LoadResult } from './load-result.js';

/** One request body posted again and again, and how to tell a right answer from a wrong one. */
export interface PostedCall {
  readonly body: string;
  /** What is wrong with a response body, or undefined when it is the right answer. */
  readonly problem: (body: string) => string | undefined;
}

export interface HttpLoadResult extends LoadResult {
  /** Why the first wrong answer was wrong, so that a non-zero `errors` comes with a reason. */
  readonly firstProblem: string | undefined;
}

/** What one run gave before it is reduced to figures, so that several runs can be reduced as one. */
export interface HttpSamples {
  /** The round trip of every right answer. */
  readonly latenciesMs: readonly number[];
  readonly seconds: number;
  readonly errors: number;
  readonly firstProblem: string | undefined;
}

/** Posts `call` over keep-alive HTTP/1.1 with `connections` sockets, one request in flight on each. */
export async function runHttpLoad(
  url: string,
  call: PostedCall,
  connections: number,
  seconds: number,
): Promise<HttpLoadResult> {
  return summarize([await sampleHttpLoad(url, call, connections, seconds)]);
}

/** Runs taken one after another, reduced as if they were one run as long as all of them. */
export function summarize(runs: readonly HttpSamples[]): HttpLoadResult {
  const sum = (figure: (run: HttpSamples) => number): number => runs.reduce((total, run) => total + figure(run), 0);
  return {
    ...toLoadResult(
      runs.flatMap((run) => run.latenciesMs),
      sum((run) => run.seconds),
      sum((run) => run.errors),
    ),
    firstProblem: runs.find((run) => run.firstProblem !== undefined)?.firstProblem,
  };
}

/** `runHttpLoad` without the reduction: every latency is kept. */
export async function sampleHttpLoad(
  url: string,
  call: PostedCall,
  connections: number,
  seconds: number,
): Promise<HttpSamples> {
  // autocannon's own latency histogram has 1 ms resolution, too coarse for sub-ms answers, so the
  // per-response times (hrtime-based, fractional ms) are collected here instead.
  const latenciesMs: number[] = [];
  let firstProblem: string | undefined;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: call.body,
        connections,
        duration: seconds,
        verifyBody: (body) => {
          const problem = call.problem(body?.toString() ?? '');
          // autocannon emits 'response' (recorded below) just before verifying: a wrong answer is no sample.
          // Any status but 200 carries no right answer, so it fails here too and counts as a mismatch.
          if (problem !== undefined) {
            latenciesMs.pop();
            firstProblem ??= problem;
          }
          return problem === undefined;
        },
      },
      (error: Error | null, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on('response', (_client, _statusCode, _bytes, responseTime) => latenciesMs.push(responseTime));
  });
  // autocannon's `errors` are connection errors and timeouts, which reach no verifyBody.
  if (result.errors > 0) firstProblem ??= `${result.errors} connection errors or timeouts`;
  return { latenciesMs, seconds: result.duration, errors: result.errors + result.mismatches, firstProblem };
}
