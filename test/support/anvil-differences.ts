import { expect } from 'chai';
import { keccak256 } from 'ethers';

/**
 * The differences between anvil's traces and geth's that tracers.md lists, undone: each helper
 * normalises one of them and nothing else.
 */

/** Accounts as prestateTracer prints them. */
export type StateMap = Record<string, Record<string, unknown>>;

/** One struct log step, as JSON. */
export interface Step {
  readonly op: string;
  readonly gas: number;
  readonly gasCost: number;
  readonly depth: number;
  readonly [key: string]: unknown;
}

/** The struct logger's result, as JSON. */
export interface StructTrace {
  readonly gas: number;
  readonly failed: boolean;
  readonly returnValue: string;
  readonly structLogs: Step[];
}

/** anvil's struct logs without the `refund: 0`, `memory: []` and `returnData: "0x"` geth leaves out. */
export function structLogsAsGeth(trace: StructTrace): StructTrace {
  return {
    ...trace,
    structLogs: trace.structLogs.map(({ refund, memory, returnData, ...rest }) => ({
      ...rest,
      ...(refund === undefined || refund === 0 ? {} : { refund }),
      ...(memory === undefined || (memory as unknown[]).length === 0 ? {} : { memory }),
      ...(returnData === undefined || returnData === '0x' ? {} : { returnData }),
    })),
  };
}

/** evmnode's accounts without `codeHash`, which anvil does not print; each is checked to hash the code beside it. */
export function withoutCodeHash(accounts: StateMap): StateMap {
  return Object.fromEntries(
    Object.entries(accounts).map(([address, { codeHash, ...account }]) => {
      if (account.code !== undefined) expect(codeHash, address).to.equal(keccak256(account.code as string));
      return [address, account];
    }),
  );
}

/** anvil's diff `pre` without the accounts empty before the transaction, which geth drops. */
export function withoutEmpty(accounts: StateMap): StateMap {
  return Object.fromEntries(
    Object.entries(accounts).filter(([, account]) => JSON.stringify(account) !== '{"balance":"0x0"}'),
  );
}

/** `accounts` without `address`'s entry. */
export function without(accounts: StateMap, address: string): StateMap {
  return Object.fromEntries(Object.entries(accounts).filter(([key]) => key !== address));
}
