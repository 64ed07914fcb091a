/**
 * Requests a hostile client sends to hold a node's thread: bodies slow to parse, parameters slow
 * to decode or apply, batches of calls that answer without I/O, traces of tens of megabytes. Each
 * is a whole JSON-RPC body, for the isolation bench.
 */

const ADDRESS = '0x00000000000000000000000000000000000000aa';

/** `count` JSON-RPC calls of `method` in one batch. */
const batchOf = (count: number, method: string, params: (index: number) => unknown[]): string =>
  JSON.stringify(Array.from({ length: count }, (_, id) => ({ jsonrpc: '2.0', id, method, params: params(id) })));

const call = (method: string, params: unknown[]): string => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

/** An account override for each of `count` addresses. */
const overrides = (count: number): Record<string, object> =>
  Object.fromEntries(
    Array.from({ length: count }, (_, index) => [`0x${index.toString(16).padStart(40, '0')}`, { balance: '0x1' }]),
  );

/**
 * Init code that grows memory to 1.5 KiB and loops 1,024 times: with `enableMemory`, 7,000 steps
 * of 48 memory words each, about 24 MB of struct logs.
 */
const MEMORY_LOOP = '0x600161' + '05e052' + '610400' + '5b' + '600190' + '03' + '80' + '6009' + '57' + '00';

/** A call of `method` whose one parameter is an object of `count` members of long names, about 5 MiB. */
const manyMembers = (count: number): string =>
  call('eth_chainId', [
    Object.fromEntries(Array.from({ length: count }, (_, index) => [String(index).padStart(100, 'k'), 1])),
  ]);

export const HOSTILE_REQUESTS: readonly { readonly name: string; readonly body: string }[] = [
  { name: '4.8 MB of 1.2M tiny arrays', body: `[${Array(1_200_000).fill('[1]').join(',')}]` },
  { name: '5 MB, an object of 49,000 members', body: manyMembers(49_000) },
  {
    name: 'a batch of 1,000 eth_estimateGas',
    body: batchOf(1000, 'eth_estimateGas', (id) => [{ to: ADDRESS, data: `0x${id.toString(16).padStart(4, '0')}` }]),
  },
  { name: 'eth_call, 16,000 state overrides', body: call('eth_call', [{ to: ADDRESS }, 'latest', overrides(16_000)]) },
  {
    name: 'eth_call, 2 MB of call data',
    body: call('eth_call', [{ to: ADDRESS, data: `0x${'ff'.repeat(2_000_000)}` }, 'latest']),
  },
  {
    name: 'eth_call, 2.6 MB of call data',
    body: call('eth_call', [{ to: ADDRESS, data: `0x${'ff'.repeat(2_600_000)}` }, 'latest']),
  },
  { name: 'eth_feeHistory, a count of 1M digits', body: call('eth_feeHistory', ['9'.repeat(1_000_000), 'latest', []]) },
  {
    name: 'debug_traceCall, 24 MB of struct logs',
    body: call('debug_traceCall', [
      { to: ADDRESS, gas: '0x989680' },
      'latest',
      { enableMemory: true, stateOverrides: { [ADDRESS]: { code: MEMORY_LOOP } } },
    ]),
  },
];
