/**
 * `npm run bench:native [-- --count <n>]`: end-to-end throughput of native bank `MsgSend`s. A
 * local evmnode (400 ms blocks) gets `count` transfers, signed beforehand with cosmjs by the ten
 * dev accounts, through its native gateway's `broadcast_tx_sync`, one lane per signer (a signer's
 * sequences must arrive in order); the clock runs from the first broadcast until the gateway's `tx`
 * finds every lane's last transaction committed. No peer serves native transactions, so the
 * figure stands alone.
 */
import { encodeSecp256k1Pubkey } from '@cosmjs/amino';
import { DirectSecp256k1Wallet, encodePubkey, makeAuthInfoBytes, makeSignDoc, Registry } from '@cosmjs/proto-signing';
import { defaultRegistryTypes } from '@cosmjs/stargate';
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { devAccounts } from '@evmnode/core';
import { startEvmnode } from './chain-servers.js';
import { freePort } from './child-processes.js';

const SIGNERS = 10;
const GAS = 200_000;
/** The local minimum: 200,000 gas at 1 gwei. */
const FEE = [{ denom: 'usei', amount: '200' }];
const registry = new Registry(defaultRegistryTypes);

function countArg(fallback: number): number {
  const index = process.argv.indexOf('--count');
  const value = index === -1 ? fallback : Number(process.argv[index + 1]);
  if (!Number.isSafeInteger(value) || value < SIGNERS) throw new Error(`--count must be an integer >= ${SIGNERS}`);
  return value;
}

/** Each signer's transfers, signed with account number = dev index (genesis order) and sequences from 0. */
async function signLanes(count: number): Promise<string[][]> {
  const lanes: string[][] = [];
  for (const [index, { privateKey }] of devAccounts(SIGNERS).entries()) {
    const wallet = await DirectSecp256k1Wallet.fromKey(Buffer.from(privateKey.slice(2), 'hex'), 'sei');
    const [account] = await wallet.getAccounts();
    const lane: string[] = [];
    for (let sequence = 0; sequence < Math.ceil(count / SIGNERS); sequence++) {
      const bodyBytes = registry.encodeTxBody({
        messages: [
          {
            typeUrl: '/cosmos.bank.v1beta1.MsgSend',
            value: {
              fromAddress: account!.address,
              toAddress: account!.address,
              amount: [{ denom: 'usei', amount: '1' }],
            },
          },
        ],
      });
      const pubkey = encodePubkey(encodeSecp256k1Pubkey(account!.pubkey));
      const authInfoBytes = makeAuthInfoBytes([{ pubkey, sequence }], FEE, GAS, undefined, undefined);
      const signDoc = makeSignDoc(bodyBytes, authInfoBytes, 'sei-chain', index);
      const { signature } = await wallet.signDirect(account!.address, signDoc);
      const raw = TxRaw.encode({ bodyBytes, authInfoBytes, signatures: [Buffer.from(signature.signature, 'base64')] });
      lane.push(Buffer.from(raw.finish()).toString('base64'));
    }
    lanes.push(lane);
  }
  return lanes;
}

/** The parts of the gateway's answers the bench reads. */
interface GatewayAnswer {
  readonly result?: { readonly code?: number; readonly hash?: string; readonly tx_result?: { readonly code: number } };
}

async function call(url: string, method: string, params: Record<string, unknown>): Promise<GatewayAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await response.json()) as GatewayAnswer;
}

async function runLane(url: string, lane: readonly string[]): Promise<void> {
  let last: string | undefined;
  for (const tx of lane) {
    const answer = await call(url, 'broadcast_tx_sync', { tx });
    if (answer.result?.code !== 0) throw new Error(`refused: ${JSON.stringify(answer)}`);
    last = answer.result.hash;
  }
  for (;;) {
    const found = await call(url, 'tx', { hash: `0x${last}` });
    if (found.result?.tx_result !== undefined) {
      if (found.result.tx_result.code !== 0) throw new Error(`failed: ${JSON.stringify(found.result.tx_result)}`);
      return;
    }
    await sleep(20);
  }
}

async function main(): Promise<void> {
  const count = countArg(2_000);
  const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
  const lanes = await signLanes(count);
  const port = await freePort();
  const node = await startEvmnode(repoRoot, '400ms', ['--native.rpc_port', String(port)]);
  try {
    const url = `http://127.0.0.1:${port}/`;
    const started = performance.now();
    await Promise.all(lanes.map((lane) => runLane(url, lane)));
    const seconds = (performance.now() - started) / 1000;
    const sent = lanes.reduce((total, lane) => total + lane.length, 0);
    console.log(`native MsgSend: ${sent} transfers from ${SIGNERS} signers over the gateway, 400 ms blocks`);
    console.log(
      `${(sent / seconds).toFixed(0)} tx/s end to end (${seconds.toFixed(2)} s, peak RSS ${Math.round((await node.peakRssBytes()) / 2 ** 20)} MB)`,
    );
  } finally {
    await node.stop();
  }
}

await main();
