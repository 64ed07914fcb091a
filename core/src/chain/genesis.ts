import { readFileSync } from 'node:fs';
import { bytesToHex, hexToBytes, isHexString, type PrefixedHexString } from '@ethereumjs/util';
import { bech32 } from '@scure/base';
import { ChainParams } from './chain-params.js';
import { DEV_ACCOUNT_COUNT, devAccounts } from './dev-accounts.js';
import { evmAddressOfKey } from './native/addresses.js';
import { DENOM_PATTERN } from './native/coins.js';
import type { DenomMetadata } from './native/native-types.js';
import type { NetworkName } from '../config/profiles.js';
import { StartupError } from '../node/startup-error.js';

/** One account of the genesis state. */
export interface GenesisAccount {
  /** In wei: usei x 10^12 plus the wei remainder. */
  readonly balance: bigint;
  readonly nonce: bigint;
  readonly code?: Uint8Array;
  readonly storage: ReadonlyMap<PrefixedHexString, PrefixedHexString>;
  /** Balances of denominations other than the base one, in their base units. */
  readonly coins?: ReadonlyMap<string, bigint>;
  /** The account's compressed secp256k1 key: its EVM and native addresses start associated. */
  readonly pubKey?: Uint8Array;
}

/** The chain's starting point: identity, limits and the initial state. */
export interface Genesis {
  readonly chainId: bigint;
  /** Milliseconds since the epoch. */
  readonly timeMs: bigint;
  readonly gasLimit: bigint;
  readonly baseFeePerGas: bigint;
  /** By lower-case 0x address. */
  readonly alloc: ReadonlyMap<PrefixedHexString, GenesisAccount>;
  /** Denominations beside the base one, with the metadata their ERC20 pointers show. */
  readonly denoms: ReadonlyMap<string, DenomMetadata>;
}

/** 10,000 native tokens (18 decimals in wei). */
const DEV_BALANCE = 10_000n * 10n ** 18n;

/** The local network's second denomination, and what each dev account holds of it. */
const TEST_DENOM = 'utest';
const TEST_DENOM_METADATA: DenomMetadata = { name: 'Test', symbol: 'TEST', decimals: 6 };
const DEV_TEST_COINS = 1_000_000n;

/**
 * EIP-2935's history contract, where Prague keeps the last 8191 block hashes in state; deployed at
 * genesis with nonce 1, as geth's dev genesis deploys it.
 */
const HISTORY_STORAGE_ADDRESS = '0x0000f90827f1c53a10cb7a02335b175320002935';
const HISTORY_STORAGE_CODE = hexToBytes(
  '0x3373fffffffffffffffffffffffffffffffffffffffe14604657602036036042575f35600143038111604257611fff81430311604257611fff9006545f5260205ff35b5f5ffd5b5f35611fff60014303065500',
);

/** Built-in genesis time: fixed, so that a network's genesis block hash never changes. */
const BUILT_IN_TIME_MS = BigInt(Date.UTC(2025, 0, 1));

/**
 * The built-in genesis of a network: on `local`, the ten dev accounts holding 10,000 tokens each,
 * then the history contract (last, so that the dev accounts keep their native account numbers).
 */
export function builtInGenesis(network: NetworkName, chainId: bigint): Genesis {
  const alloc = new Map<PrefixedHexString, GenesisAccount>();
  const local = network === 'local';
  if (local) {
    for (const { address, publicKey } of devAccounts(DEV_ACCOUNT_COUNT)) {
      alloc.set(address, {
        balance: DEV_BALANCE,
        nonce: 0n,
        storage: new Map(),
        coins: new Map([[TEST_DENOM, DEV_TEST_COINS]]),
        pubKey: hexToBytes(publicKey),
      });
    }
  }
  alloc.set(HISTORY_STORAGE_ADDRESS, { balance: 0n, nonce: 1n, code: HISTORY_STORAGE_CODE, storage: new Map() });
  return {
    chainId,
    timeMs: BUILT_IN_TIME_MS,
    gasLimit: ChainParams.blockGasLimit,
    baseFeePerGas: ChainParams.initialBaseFee,
    alloc,
    denoms: local ? new Map([[TEST_DENOM, TEST_DENOM_METADATA]]) : new Map(),
  };
}

/** `genesis.json`: numbers as decimal or 0x strings (or JSON numbers), addresses as 0x or bech32. */
export interface GenesisJson {
  chainId: number | string;
  /** Milliseconds since the epoch, or an ISO date. */
  genesisTime: number | string;
  gasLimit?: number | string;
  baseFeePerGas?: number | string;
  alloc?: Record<
    string,
    {
      balance?: number | string;
      nonce?: number | string;
      code?: string;
      storage?: Record<string, string>;
      coins?: Record<string, number | string>;
      pubKey?: string;
    }
  >;
  denoms?: Record<string, { name?: string; symbol?: string; decimals?: number }>;
}

/** Writes a genesis as `genesis.json`. */
export function genesisToJson(genesis: Genesis): GenesisJson {
  const alloc: NonNullable<GenesisJson['alloc']> = {};
  for (const [address, account] of genesis.alloc) {
    alloc[address] = {
      balance: `0x${account.balance.toString(16)}`,
      ...(account.nonce === 0n ? {} : { nonce: `0x${account.nonce.toString(16)}` }),
      ...(account.code === undefined ? {} : { code: `0x${Buffer.from(account.code).toString('hex')}` }),
      ...(account.storage.size === 0 ? {} : { storage: Object.fromEntries(account.storage) }),
      ...(account.coins === undefined
        ? {}
        : { coins: Object.fromEntries([...account.coins].map(([denom, amount]) => [denom, amount.toString()])) }),
      ...(account.pubKey === undefined ? {} : { pubKey: bytesToHex(account.pubKey) }),
    };
  }
  return {
    chainId: Number(genesis.chainId),
    genesisTime: new Date(Number(genesis.timeMs)).toISOString(),
    gasLimit: `0x${genesis.gasLimit.toString(16)}`,
    baseFeePerGas: `0x${genesis.baseFeePerGas.toString(16)}`,
    alloc,
    denoms: Object.fromEntries(genesis.denoms),
  };
}

class GenesisError extends StartupError {
  constructor(file: string, field: string, problem: string) {
    super(`${file}: ${field} ${problem}`);
  }
}

function quantity(file: string, field: string, value: unknown): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'string' && /^(0x[0-9a-fA-F]+|\d+)$/.test(value)) return BigInt(value);
  throw new GenesisError(
    file,
    field,
    `must be a non-negative integer (decimal or 0x hex); got ${JSON.stringify(value)}`,
  );
}

/** A 0x address or a bech32 one (any prefix), as lower-case 0x hex. */
function addressOf(file: string, field: string, text: string): PrefixedHexString {
  if (/^0x[0-9a-fA-F]{40}$/.test(text)) return text.toLowerCase() as PrefixedHexString;
  try {
    const bytes = bech32.fromWords(bech32.decode(text as `${string}1${string}`).words);
    if (bytes.length === 20) return `0x${Buffer.from(bytes).toString('hex')}`;
  } catch {
    // Reported below.
  }
  throw new GenesisError(file, field, 'is neither a 0x address nor a bech32 address of 20 bytes');
}

function bytes32(file: string, field: string, value: unknown): PrefixedHexString {
  if (typeof value === 'string' && isHexString(value) && value.length <= 66) {
    return `0x${value.slice(2).toLowerCase().padStart(64, '0')}`;
  }
  throw new GenesisError(file, field, 'must be 0x hex of at most 32 bytes');
}

/** Reads and checks `genesis.json`; a bad field stops the node, named. */
export function readGenesisFile(file: string): Genesis {
  let json: GenesisJson;
  try {
    json = JSON.parse(readFileSync(file, 'utf8')) as GenesisJson;
  } catch (error) {
    throw new StartupError(`cannot read the genesis file ${file}: ${(error as Error).message}`);
  }
  if (typeof json !== 'object' || json === null) throw new GenesisError(file, 'the file', 'must hold a JSON object');
  const time =
    typeof json.genesisTime === 'string' && !/^\d+$/.test(json.genesisTime)
      ? Date.parse(json.genesisTime)
      : json.genesisTime;
  if (typeof time === 'number' && Number.isNaN(time))
    throw new GenesisError(file, 'genesisTime', 'must be milliseconds or an ISO date');
  const alloc = new Map<PrefixedHexString, GenesisAccount>();
  for (const [key, account] of Object.entries(json.alloc ?? {})) {
    const field = `alloc.${key}`;
    const address = addressOf(file, field, key);
    const storage = new Map<PrefixedHexString, PrefixedHexString>();
    for (const [slot, value] of Object.entries(account.storage ?? {})) {
      storage.set(
        bytes32(file, `${field}.storage key ${slot}`, slot),
        bytes32(file, `${field}.storage.${slot}`, value),
      );
    }
    if (
      account.code !== undefined &&
      !(typeof account.code === 'string' && isHexString(account.code) && account.code.length % 2 === 0)
    ) {
      throw new GenesisError(file, `${field}.code`, 'must be 0x hex bytecode');
    }
    const coins = new Map<string, bigint>();
    for (const [denom, amount] of Object.entries(account.coins ?? {})) {
      if (json.denoms?.[denom] === undefined) {
        throw new GenesisError(file, `${field}.coins.${denom}`, 'names a denomination that `denoms` does not list');
      }
      coins.set(denom, quantity(file, `${field}.coins.${denom}`, amount));
    }
    alloc.set(address, {
      balance: quantity(file, `${field}.balance`, account.balance ?? 0),
      nonce: quantity(file, `${field}.nonce`, account.nonce ?? 0),
      ...(account.code === undefined ? {} : { code: Buffer.from(account.code.slice(2), 'hex') }),
      storage,
      ...(coins.size === 0 ? {} : { coins }),
      ...(account.pubKey === undefined ? {} : { pubKey: publicKey(file, `${field}.pubKey`, account.pubKey, address) }),
    });
  }
  const denoms = new Map<string, DenomMetadata>();
  for (const [denom, metadata] of Object.entries(json.denoms ?? {})) {
    if (!DENOM_PATTERN.test(denom) || denom === ChainParams.baseDenom) {
      throw new GenesisError(file, `denoms.${denom}`, 'is not a valid denomination other than the base one');
    }
    denoms.set(denom, {
      name: metadata.name ?? denom,
      symbol: metadata.symbol ?? denom.toUpperCase(),
      decimals: metadata.decimals ?? 0,
    });
  }
  return {
    chainId: quantity(file, 'chainId', json.chainId),
    timeMs: quantity(file, 'genesisTime', time),
    gasLimit: quantity(file, 'gasLimit', json.gasLimit ?? `0x${ChainParams.blockGasLimit.toString(16)}`),
    baseFeePerGas: quantity(
      file,
      'baseFeePerGas',
      json.baseFeePerGas ?? `0x${ChainParams.initialBaseFee.toString(16)}`,
    ),
    alloc,
    denoms,
  };
}

/** A compressed public key given as 0x hex, checked to be the key of the account it is given for. */
function publicKey(file: string, field: string, text: string, address: PrefixedHexString): Uint8Array {
  let key: Uint8Array;
  try {
    key = hexToBytes(text as PrefixedHexString);
    if (bytesToHex(evmAddressOfKey(key)) === address && key.length === 33) return key;
  } catch {
    // Reported below.
  }
  throw new GenesisError(file, field, `must be the 33-byte compressed secp256k1 key of ${address}`);
}
