import { DirectSecp256k1Wallet, Registry, type Coin, type EncodeObject } from '@cosmjs/proto-signing';
import { defaultRegistryTypes, SigningStargateClient, type DeliverTxResponse } from '@cosmjs/stargate';
import { ChainParams, MsgAssociate, MsgRegisterPointer } from '@evmnode/core';
import { UsageError } from '../cli/usage-error.js';
import { coinFlag } from './coin-flag.js';
import type { CommandLine } from './command-line.js';
import { readSigningKey } from './signing-key.js';

/** The flags every command that sends a native transaction takes. */
export const TX_FLAGS: readonly string[] = ['key', 'passphrase-file', 'node', 'gas', 'fees'];

/** The native gateway of a node on this machine with the default `[native] rpc_port`. */
export const DEFAULT_NODE = 'http://127.0.0.1:26657';
export const DEFAULT_GAS = 200_000n;
/** The local network's `[mempool] min_gas_price`: the default fee pays exactly that. */
const LOCAL_MIN_GAS_PRICE_WEI = 1_000_000_000n;
const WEI_PER_USEI = 10n ** 12n;
/** Blocks come every 400 ms: cosmjs' default of 3 s between lookups would make every command that slow. */
const POLL_INTERVAL_MS = 200;

const registry = new Registry([
  ...defaultRegistryTypes,
  [MsgAssociate.typeUrl, MsgAssociate],
  [MsgRegisterPointer.typeUrl, MsgRegisterPointer],
]);

/** The fee that pays `gas` at the local minimum gas price: ceil(gas x 1 gwei / 10^12) usei. */
export function defaultFees(gas: bigint): Coin {
  const amount = (gas * LOCAL_MIN_GAS_PRICE_WEI + WEI_PER_USEI - 1n) / WEI_PER_USEI;
  return { denom: 'usei', amount: amount.toString() };
}

function gasFlag(text: string | undefined, defaultGas: bigint): bigint {
  if (text === undefined) return defaultGas;
  if (!/^[1-9][0-9]*$/.test(text)) throw new UsageError(`--gas ${text} is not a positive whole number`);
  return BigInt(text);
}

async function connect(node: string, wallet: DirectSecp256k1Wallet): Promise<SigningStargateClient> {
  try {
    return await SigningStargateClient.connectWithSigner(node, wallet, {
      registry,
      broadcastPollIntervalMs: POLL_INTERVAL_MS,
    });
  } catch (error) {
    // fetch's own message is "fetch failed"; the reason (refused, unknown host) is its cause.
    const { message, cause } = error as Error;
    const reason = cause instanceof Error ? cause.message : message;
    throw new Error(`cannot reach the native gateway at ${node}: ${reason}`);
  }
}

/**
 * Signs the messages `build` makes for the signer's native address (SIGN_MODE_DIRECT, with the
 * command line's key, gas (`defaultGas` unless --gas) and fees), broadcasts them to the node's
 * native gateway, waits for the block that includes them, and prints the transaction's hash,
 * height and code. A non-zero code is thrown with the transaction's log.
 */
export async function signAndSend(
  line: CommandLine,
  build: (sender: string) => readonly EncodeObject[],
  defaultGas = DEFAULT_GAS,
): Promise<DeliverTxResponse> {
  const key = await readSigningKey(line.requiredFlag('key'), line.flag('passphrase-file'), process.env);
  const gas = gasFlag(line.flag('gas'), defaultGas);
  const fees = line.flag('fees');
  const fee = { amount: [fees === undefined ? defaultFees(gas) : coinFlag('fees', fees)], gas: gas.toString() };
  const wallet = await DirectSecp256k1Wallet.fromKey(key, ChainParams.bech32Prefix);
  // A wallet made from one key has one account.
  const { address: sender } = (await wallet.getAccounts())[0]!;
  const client = await connect(line.flag('node') ?? DEFAULT_NODE, wallet);
  try {
    const result = await client.signAndBroadcast(sender, build(sender), fee);
    process.stdout.write(`txhash: ${result.transactionHash}\nheight: ${result.height}\ncode: ${result.code}\n`);
    if (result.code !== 0) throw new Error(`transaction failed with code ${result.code}: ${result.rawLog ?? ''}`);
    return result;
  } finally {
    client.disconnect();
  }
}
