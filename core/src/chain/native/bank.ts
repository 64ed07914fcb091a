import type { StateManagerInterface } from '@ethereumjs/common';
import { Account, Address, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import { keccak256 } from '../native-crypto.js';
import { NativeError, SdkError } from './native-error.js';
import type { Coin, DenomMetadata } from './native-types.js';
import { recordSlot, SystemAccount } from './system-account.js';

/** The bank precompile's address (the reference chain's); its account holds the bank's records. */
export const BANK_ADDRESS = hexToBytes('0x0000000000000000000000000000000000001001');

/** 1 usei = 10^12 wei (interface.md §1.7). */
export const WEI_PER_BASE_UNIT = 10n ** 12n;

/** Record kinds of the bank account's storage. */
const Records = { balance: 1, supply: 2, pointer: 3 } as const;

/** The chain's denominations: the base one (the EVM balance) and every other known one, with metadata. */
export interface Denoms {
  readonly base: string;
  readonly metadata: ReadonlyMap<string, DenomMetadata>;
}

/** `12usei,5utest`: the SDK's way of writing coins in messages. */
export function coinsText(coins: readonly Coin[]): string {
  return coins.map(({ amount, denom }) => `${amount}${denom}`).join(',');
}

/**
 * The bank module (decisions.md D5). The base denomination is the EVM balance itself: an
 * account's `usei` is its wei balance divided by 10^12, and the remainder below 10^12 is its wei
 * remainder, so EVM value transfers and gas payments move the same balances a native send does.
 * Every other denomination is a record in the bank account's storage. Accounts are EVM addresses;
 * callers resolve native addresses first (see {@link NativeAccounts}).
 */
export class Bank {
  readonly #records: SystemAccount;

  constructor(
    private readonly state: StateManagerInterface,
    readonly denoms: Denoms,
  ) {
    this.#records = new SystemAccount(state, BANK_ADDRESS);
  }

  /** Whether `denom` exists on this chain. */
  knows(denom: string): boolean {
    return denom === this.denoms.base || this.denoms.metadata.has(denom);
  }

  async balance(account: Uint8Array, denom: string): Promise<bigint> {
    if (denom === this.denoms.base) return (await this.weiBalance(account)) / WEI_PER_BASE_UNIT;
    return this.#records.readNumber(balanceSlot(denom, account));
  }

  /** The whole EVM balance: base units times 10^12 plus the wei remainder. */
  async weiBalance(account: Uint8Array): Promise<bigint> {
    return (await this.state.getAccount(new Address(account)))?.balance ?? 0n;
  }

  /** Non-zero balances of every known denomination, sorted by denomination. */
  async allBalances(account: Uint8Array): Promise<Coin[]> {
    const coins: Coin[] = [];
    for (const denom of [this.denoms.base, ...this.denoms.metadata.keys()].sort()) {
      const amount = await this.balance(account, denom);
      if (amount > 0n) coins.push({ denom, amount });
    }
    return coins;
  }

  /** Moves coins; refuses all of them, changing nothing, when one is short or unknown. */
  async send(from: Uint8Array, to: Uint8Array, coins: readonly Coin[]): Promise<void> {
    for (const coin of coins) {
      if (!this.knows(coin.denom)) throw NativeError.sdk(SdkError.InvalidCoins, `unknown denomination ${coin.denom}`);
      const spendable = await this.balance(from, coin.denom);
      if (spendable < coin.amount) {
        throw NativeError.sdk(
          SdkError.InsufficientFunds,
          `spendable balance ${spendable}${coin.denom} is smaller than ${coin.amount}${coin.denom}`,
        );
      }
    }
    for (const coin of coins) {
      if (coin.denom === this.denoms.base) await this.sendWei(from, to, coin.amount * WEI_PER_BASE_UNIT);
      else {
        await this.#addRecord(from, coin.denom, -coin.amount);
        await this.#addRecord(to, coin.denom, coin.amount);
      }
    }
  }

  /** Moves wei between EVM balances; the caller has checked that `from` holds them. */
  async sendWei(from: Uint8Array, to: Uint8Array, wei: bigint): Promise<void> {
    if (wei === 0n) return;
    await this.#addWei(from, -wei);
    await this.#addWei(to, wei);
  }

  /** Moves everything `from` holds, wei remainder included, to `to` (association does it). */
  async sendAll(from: Uint8Array, to: Uint8Array): Promise<void> {
    await this.sendWei(from, to, await this.weiBalance(from));
    for (const denom of this.denoms.metadata.keys()) {
      const amount = await this.balance(from, denom);
      if (amount === 0n) continue;
      await this.#addRecord(from, denom, -amount);
      await this.#addRecord(to, denom, amount);
    }
  }

  /** Creates coins of a denomination other than the base one (genesis does). */
  async mint(to: Uint8Array, coin: Coin): Promise<void> {
    await this.#addRecord(to, coin.denom, coin.amount);
    await this.#records.writeNumber(supplySlot(coin.denom), (await this.supply(coin.denom)) + coin.amount);
  }

  /** Total supply; the base denomination's is set at genesis (fees move it, nothing burns it). */
  async supply(denom: string): Promise<bigint> {
    return this.#records.readNumber(supplySlot(denom));
  }

  async setBaseSupply(amount: bigint): Promise<void> {
    await this.#records.writeNumber(supplySlot(this.denoms.base), amount);
  }

  metadata(denom: string): DenomMetadata | undefined {
    return this.denoms.metadata.get(denom);
  }

  /** The address of the ERC20 pointer registered for `denom`, if any. */
  async pointerOf(denom: string): Promise<Uint8Array | undefined> {
    const value = await this.#records.read(recordSlot(Records.pointer, denomKey(denom)));
    // Storage drops leading zero bytes.
    return value.length === 0 ? undefined : setLengthLeft(value, 20);
  }

  async recordPointer(denom: string, pointer: Uint8Array): Promise<void> {
    await this.#records.write(recordSlot(Records.pointer, denomKey(denom)), pointer);
  }

  async #addRecord(account: Uint8Array, denom: string, delta: bigint): Promise<void> {
    const slot = balanceSlot(denom, account);
    await this.#records.writeNumber(slot, (await this.#records.readNumber(slot)) + delta);
  }

  async #addWei(account: Uint8Array, delta: bigint): Promise<void> {
    const address = new Address(account);
    const state = (await this.state.getAccount(address)) ?? new Account();
    state.balance += delta;
    await this.state.putAccount(address, state);
  }
}

function denomKey(denom: string): Uint8Array {
  return keccak256(new TextEncoder().encode(denom));
}

function balanceSlot(denom: string, account: Uint8Array): Uint8Array {
  return recordSlot(Records.balance, denomKey(denom), account);
}

function supplySlot(denom: string): Uint8Array {
  return recordSlot(Records.supply, denomKey(denom));
}
