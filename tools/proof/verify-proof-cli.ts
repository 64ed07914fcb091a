/**
 * `npm run verify-proof -- <rpc-url> <address> <key> [block]`: asks an evmnode for the proof of
 * one storage slot (`key`: 0x hex of at most 32 bytes) at a block (number, tag or hash; `latest`
 * by default), verifies it against that block's `stateRoot` and prints the proven value as JSON.
 * Exits 1 when the proof does not verify.
 */
import { bytesToHex, hexToBytes, setLengthLeft, type PrefixedHexString } from '@ethereumjs/util';
import { InvalidProofError, verifyProofResult, type ProofResult } from './verify-proof.js';

interface BlockHeader {
  readonly number: PrefixedHexString;
  readonly hash: PrefixedHexString;
  readonly stateRoot: PrefixedHexString;
}

async function call<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const answer = (await response.json()) as { result?: T; error?: { code: number; message: string } };
  if (answer.error !== undefined) throw new Error(`${method}: ${answer.error.message} (${answer.error.code})`);
  return answer.result as T;
}

async function blockAt(url: string, block: string): Promise<BlockHeader> {
  const header =
    block.length === 66
      ? await call<BlockHeader | null>(url, 'eth_getBlockByHash', [block, false])
      : await call<BlockHeader | null>(url, 'eth_getBlockByNumber', [block, false]);
  if (header === null) throw new Error(`no block ${block}`);
  return header;
}

async function main(): Promise<void> {
  const [url, address, key, block = 'latest'] = process.argv.slice(2);
  if (url === undefined || address === undefined || key === undefined) {
    throw new Error('usage: verify-proof <rpc-url> <address> <key> [block]');
  }
  if (!/^0x[0-9a-fA-F]{0,64}$/.test(key)) throw new Error(`key ${key} is not 0x hex of at most 32 bytes`);
  const header = await blockAt(url, block);
  // Asked by hash, so that the proof and the state root are of the same block.
  const result = await call<ProofResult>(url, 'eth_getProof', [address, [key], { blockHash: header.hash }]);
  const slot = bytesToHex(setLengthLeft(hexToBytes(key as PrefixedHexString), 32));
  if (result.address !== address.toLowerCase() || result.storageProof[0]?.key !== slot) {
    throw new InvalidProofError(`the answer proves ${result.storageProof[0]?.key} of ${result.address}`);
  }
  const [value] = await verifyProofResult(result, header.stateRoot);
  const output = { block: Number(header.number), stateRoot: header.stateRoot, address: result.address, key: slot };
  console.log(JSON.stringify({ ...output, value: bytesToHex(value!) }));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
