import { receiptOf } from './chain-kit.js';
import { rpc } from './rpc-client.js';

/** A callTracer frame, as JSON. */
export type Frame = Record<string, any> & { calls?: Frame[] };

/** What flatCallTracer gives every frame of transaction `hash`: its block and position. */
export async function placeOf(url: string, hash: string) {
  const receipt = await receiptOf(url, hash);
  return {
    blockHash: (await rpc(url, 'eth_getBlockByNumber', [receipt.blockNumber, false])).result.hash,
    blockNumber: Number(receipt.blockNumber),
    transactionHash: hash,
    transactionPosition: Number(receipt.transactionIndex),
  };
}

/** A CALL-family frame of callTracer as flatCallTracer's entry, its error given as `error`. */
export function flatCall(
  frame: Frame,
  traceAddress: number[],
  place: object,
  error = frame.error as string | undefined,
) {
  return {
    action: {
      callType: (frame.type as string).toLowerCase(),
      from: frame.from,
      gas: frame.gas,
      input: frame.input,
      to: frame.to,
      value: frame.value ?? '0x0',
    },
    ...place,
    ...(error === undefined ? {} : { error }),
    ...(frame.error === undefined || frame.error === 'execution reverted'
      ? { result: { gasUsed: frame.gasUsed, output: frame.output ?? '0x' } }
      : {}),
    subtraces: frame.calls?.length ?? 0,
    traceAddress,
    type: 'call',
  };
}
