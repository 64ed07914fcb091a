import type { Block } from '@ethereumjs/block';
import { Hardfork } from '@ethereumjs/common';
import type { EVM } from '@ethereumjs/evm';
import { isAccessList2930Tx, isFeeMarket1559Tx, isLegacyTx, type TypedTransaction } from '@ethereumjs/tx';
import { Account, type Address } from '@ethereumjs/util';
import { Bloom, type VM } from '@ethereumjs/vm';
import type { TransactionResult } from './block-execution.js';
import { effectiveTip, feeCap } from './pool/pooled-transaction.js';

/** The gas a plain transfer takes: the intrinsic gas of a transaction without data, and nothing more. */
const TRANSFER_GAS = 21_000n;

/** The largest balance an account can hold (2^256 - 1). */
const MAX_BALANCE = (1n << 256n) - 1n;

/**
 * Runs a plain value transfer without the EVM, as ethereumjs' `runTx` would under Prague, or
 * returns undefined, having changed nothing, for any transaction that is not one or that fails a
 * check (the caller then runs it through `runTx`, which throws the check's error).
 *
 * A plain transfer is a legacy, access-list or fee-market transaction with no data and no access
 * list, to an account that holds no code (a delegated EOA holds its designator) and is not a
 * precompile. Its execution is fixed: 21,000 gas, no logs, no refund, the value moved. What
 * `runTx` spends around that (the journal, address warming, a message, its frames and events)
 * was most of a full block of transfers' execution time.
 *
 * The state changes are `runTx`'s, in its order: the `beforeTx` listeners (the sender's
 * association) inside the transaction's checkpoint, the sender charged its gas and the value and
 * its nonce raised, the recipient credited, the coinbase paid the tip, and the touched accounts
 * left empty deleted (EIP-161: the sender's nonce keeps it).
 */
export async function runPlainTransfer(
  vm: VM,
  tx: TypedTransaction,
  block: Block,
): Promise<TransactionResult | undefined> {
  // What follows is Prague's transfer; another hardfork may change it (EIP-7708 adds a log).
  if (vm.common.hardfork() !== Hardfork.Prague) return undefined;
  const to = tx.to;
  if (to === undefined || !isPlainTransferType(tx) || tx.data.length > 0) return undefined;
  // The VM's EVM is ethereumjs' own (createVM builds it); its interface type leaves this out.
  if ((vm.evm as EVM).getPrecompile(to) !== undefined) return undefined;
  const state = vm.stateManager;
  const baseFee = block.header.baseFeePerGas ?? 0n;
  if (tx.gasLimit < TRANSFER_GAS || tx.gasLimit > block.header.gasLimit || feeCap(tx) < baseFee) return undefined;
  const tip = effectiveTip(tx, baseFee);
  const caller = tx.getSenderAddress();
  const coinbase = block.header.coinbase;

  await state.checkpoint();
  try {
    await vm._emit('beforeTx', tx);
    const sender = await state.getAccount(caller);
    const recipient = (await state.getAccount(to)) ?? new Account();
    // runTx's checks, on the most the transaction may cost (EIP-1559: its fee cap, not the price it pays).
    const affordable = sender !== undefined && sender.balance >= tx.value + tx.gasLimit * feeCap(tx);
    if (
      !affordable ||
      sender.nonce !== tx.nonce ||
      sender.isContract() ||
      recipient.isContract() ||
      recipient.balance + tx.value > MAX_BALANCE
    ) {
      await state.revert();
      return undefined;
    }
    sender.balance -= TRANSFER_GAS * (baseFee + tip) + tx.value;
    sender.nonce += 1n;
    await state.putAccount(caller, sender);
    const recipientAfter = await credit(state, to, tx.value);
    // The coinbase's account after its credit is the recipient's too when they are one.
    const coinbaseAfter = await credit(state, coinbase, TRANSFER_GAS * tip);
    if (recipientAfter.isEmpty() && !coinbase.equals(to)) await state.deleteAccount(to);
    if (coinbaseAfter.isEmpty()) await state.deleteAccount(coinbase);
    await state.commit();
  } catch (error) {
    await state.revert();
    throw error;
  }
  return {
    gasUsed: TRANSFER_GAS,
    logs: [],
    bloom: new Bloom(undefined, vm.common),
    returnValue: new Uint8Array(),
    error: undefined,
    createdAddress: undefined,
  };
}

/** Types whose only execution can be a call (no blobs, no authorizations), with no access list to warm. */
function isPlainTransferType(tx: TypedTransaction): boolean {
  if (isLegacyTx(tx)) return true;
  return (isAccessList2930Tx(tx) || isFeeMarket1559Tx(tx)) && tx.accessList.length === 0;
}

/** Adds `amount` to the account at `address` (created if need be); resolves to the account written. */
async function credit(state: VM['stateManager'], address: Address, amount: bigint): Promise<Account> {
  const account = (await state.getAccount(address)) ?? new Account();
  account.balance += amount;
  await state.putAccount(address, account);
  return account;
}
