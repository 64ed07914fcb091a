import type { StateManagerInterface } from '@ethereumjs/common';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { bytesToHex, concatBytes, hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import { keccak256 } from '../native-crypto.js';
import { TxMsgData } from 'cosmjs-types/cosmos/base/abci/v1beta1/abci';
import { encodeNativeAddress } from './addresses.js';
import {
  addressPairOf,
  associate,
  associatedEvmAddress,
  associatedNativeAddress,
  bankAccountOf,
} from './association.js';
import { Auth } from './auth.js';
import { Bank, coinsText, WEI_PER_BASE_UNIT, type Denoms } from './bank.js';
import { NativeError, SdkError } from './native-error.js';
import { gasUsedBy, signatureIsValid, type NativeMessage, type NativeTransaction } from './native-transaction.js';
import type { Coin, NativeAccount, NativeEvent } from './native-types.js';
import { registerPointer } from './pointers.js';
import { ChainParams } from '../chain-params.js';
import { EventLoopTurns } from '../../rpc/event-loop-turns.js';

/** What the checks of a native transaction need beside the state. */
export interface NativeRules {
  /** The native chain ID signatures cover. */
  readonly chainId: string;
  /** Minimum gas price in wei; the fee is paid in the base denomination. */
  readonly minGasPrice: bigint;
  readonly denoms: Denoms;
}

/** The ERC20 `Transfer(address,address,uint256)` event topic. */
const TRANSFER_TOPIC = bytesToHex(keccak256(new TextEncoder().encode('Transfer(address,address,uint256)')));
/** `transfer(address,uint256)`. */
const TRANSFER_SELECTOR = '0xa9059cbb';

/** Synthetic views (decisions.md D5): `ext2` lists bank sends, `ext` (and `ext2`) pointer transfers. */
export type SyntheticKind = 'bank-send' | 'pointer-transfer';

/** A synthetic transaction a native message yields, before its block gives it a place. */
export interface SyntheticDraft {
  readonly kind: SyntheticKind;
  readonly hash: PrefixedHexString;
  readonly from: PrefixedHexString;
  readonly to: PrefixedHexString;
  readonly value: bigint;
  readonly input: PrefixedHexString;
  /** A pointer transfer's ERC20 `Transfer` log, at the pointer's address. */
  readonly transferLog?: {
    readonly address: PrefixedHexString;
    readonly topics: readonly PrefixedHexString[];
    readonly data: PrefixedHexString;
  };
}

/** A delivered transaction's result (DeliverTx) and the synthetic transactions it yields. */
export interface Delivered {
  readonly code: number;
  readonly codespace: string;
  readonly log: string;
  readonly gasUsed: bigint;
  readonly events: readonly NativeEvent[];
  readonly data: Uint8Array;
  readonly synthetic: readonly SyntheticDraft[];
}

/** The fee a gas limit needs at the minimum gas price, in base units, rounded up. */
export function requiredFee(gasLimit: bigint, minGasPrice: bigint): bigint {
  return (gasLimit * minGasPrice + WEI_PER_BASE_UNIT - 1n) / WEI_PER_BASE_UNIT;
}

/** One of a transaction's checks before its messages (the SDK's ante handler). */
interface AnteOutcome {
  /** The signer's account; undefined for a transaction signed by its message, which has no sequence to advance. */
  readonly account: NativeAccount | undefined;
  readonly payer: Uint8Array;
}

/** The auth module's default `MaxMemoCharacters`, which the SDK counts in bytes. */
const MAX_MEMO_BYTES = 256;

/** The SDK's `ValidateMemoDecorator`, the first ante check after the transaction's form. */
function checkMemo(tx: NativeTransaction): void {
  const length = Buffer.byteLength(tx.memo);
  if (length > MAX_MEMO_BYTES) {
    throw NativeError.sdk(
      SdkError.MemoTooLarge,
      `maximum number of characters is ${MAX_MEMO_BYTES} but received ${length} characters`,
    );
  }
}

/**
 * The ante checks, reading `state` only: the memo, gas, fee payer, fee, association rules, sequence
 * (`expectedSequence` counts the signer's transactions waiting ahead of it) and signature. A
 * simulation skips what the SDK's simulate mode skips: the gas limit, the minimum fee and the
 * signature (clients simulate before they know the gas, so before they sign).
 */
export async function checkAnte(
  state: StateManagerInterface,
  tx: NativeTransaction,
  rules: NativeRules,
  pendingAhead: bigint,
  simulation = false,
): Promise<AnteOutcome> {
  checkMemo(tx);
  if (tx.signedByMessage) {
    const payer = await bankAccountOf(state, tx.signer.bytes);
    await checkFreeAssociation(state, tx, new Bank(state, rules.denoms), payer);
    return { account: undefined, payer };
  }
  const gasUsed = gasUsedBy(tx);
  if (!simulation && gasUsed > tx.gasLimit) {
    throw NativeError.sdk(
      SdkError.OutOfGas,
      `out of gas in location: txSize; gasWanted: ${tx.gasLimit}, gasUsed: ${gasUsed}`,
    );
  }
  const account = await new Auth(state).account(tx.signer.bytes);
  if (account === undefined)
    throw NativeError.sdk(SdkError.UnknownAddress, `fee payer address: ${tx.signer.text} does not exist`);
  const bank = new Bank(state, rules.denoms);
  const payer = await bankAccountOf(state, tx.signer.bytes);
  if (tx.associationOnly) await checkFreeAssociation(state, tx, bank, payer);
  else {
    const required = requiredFee(tx.gasLimit, rules.minGasPrice);
    const paid = tx.fee.find(({ denom }) => denom === rules.denoms.base)?.amount ?? 0n;
    if (!simulation && paid < required) {
      throw NativeError.sdk(
        SdkError.InsufficientFee,
        `insufficient fees; got: ${coinsText(tx.fee)} required: ${required}${rules.denoms.base}`,
      );
    }
    const balance = await bank.balance(payer, rules.denoms.base);
    if (balance < paid) {
      throw NativeError.sdk(
        SdkError.InsufficientFunds,
        `spendable balance ${balance}${rules.denoms.base} is smaller than ${paid}${rules.denoms.base}`,
      );
    }
  }
  const expected = account.sequence + pendingAhead;
  if (tx.sequence !== expected) {
    throw NativeError.sdk(
      SdkError.WrongSequence,
      `account sequence mismatch, expected ${expected}, got ${tx.sequence}`,
    );
  }
  if (!simulation && !signatureIsValid(tx, rules.chainId, account.accountNumber)) {
    throw NativeError.sdk(
      SdkError.Unauthorized,
      `signature verification failed; please verify account number (${account.accountNumber}), sequence (${account.sequence}) and chain-id (${rules.chainId})`,
    );
  }
  return { account, payer };
}

/** A fee-free association: only for an unassociated signer that holds at least 1 wei (decisions.md D5). */
async function checkFreeAssociation(
  state: StateManagerInterface,
  tx: NativeTransaction,
  bank: Bank,
  payer: Uint8Array,
): Promise<void> {
  const pair = addressPairOf(tx.pubKey);
  if (
    (await associatedEvmAddress(state, pair.native)) !== undefined ||
    (await associatedNativeAddress(state, pair.evm)) !== undefined
  ) {
    throw new NativeError(AssociationErrors.alreadySet, 'evm', 'account already has association set');
  }
  if ((await bank.weiBalance(payer)) === 0n && (await bank.weiBalance(pair.evm)) === 0n) {
    throw new NativeError(
      AssociationErrors.noFunds,
      'evm',
      'account needs to have at least 1 wei to force association',
    );
  }
}

/** The association errors' codes in the `evm` codespace. */
const AssociationErrors = { alreadySet: 2, noFunds: 3 } as const;

/**
 * Delivers a transaction in a block: the ante checks (a transaction that fails them now is not
 * included: undefined), the fee to the fee collector, the sequence, then its messages, all or
 * none: a failing message leaves only the fee and sequence changes, and its code and log.
 */
export async function deliver(
  state: MerkleStateManager,
  tx: NativeTransaction,
  rules: NativeRules,
): Promise<Delivered | undefined> {
  let ante: AnteOutcome;
  try {
    ante = await checkAnte(state, tx, rules, 0n);
  } catch (error) {
    if (error instanceof NativeError) return undefined;
    throw error;
  }
  return deliverChecked(state, tx, rules, ante);
}

/**
 * What the SDK's simulate does: the ante checks in simulation (their error thrown as the
 * {@link NativeError} it is) and delivery, on `state`, which the caller discards.
 */
export async function simulate(
  state: MerkleStateManager,
  tx: NativeTransaction,
  rules: NativeRules,
): Promise<Delivered> {
  // A simulation runs for a client, beside blocks and other calls: it gives them turns.
  return deliverChecked(state, tx, rules, await checkAnte(state, tx, rules, 0n, true), new EventLoopTurns());
}

async function deliverChecked(
  state: MerkleStateManager,
  tx: NativeTransaction,
  rules: NativeRules,
  ante: AnteOutcome,
  turns?: EventLoopTurns,
): Promise<Delivered> {
  const bank = new Bank(state, rules.denoms);
  await bank.send(
    ante.payer,
    hexToBytes(ChainParams.feeCollector),
    tx.fee.filter(({ denom }) => denom === rules.denoms.base),
  );
  if (ante.account !== undefined) await new Auth(state).signed(ante.account, tx.signer.bytes, tx.pubKey);
  const txEvents = transactionEvents(tx);
  const gasUsed = gasUsedBy(tx);
  let running = 0;
  await state.checkpoint();
  try {
    const events: NativeEvent[] = [];
    const synthetic: SyntheticDraft[] = [];
    for (const [index, message] of tx.messages.entries()) {
      running = index;
      await turns?.pause();
      events.push(...(await executeMessage(state, tx, message, index, rules.denoms, synthetic)));
    }
    await state.commit();
    const data = TxMsgData.encode(
      TxMsgData.fromPartial({
        msgResponses: tx.messages.map((message) => ({
          typeUrl: `${message.typeUrl}Response`,
          value: new Uint8Array(),
        })),
      }),
    ).finish();
    return { code: 0, codespace: '', log: '', gasUsed, events: [...txEvents, ...events], data, synthetic };
  } catch (error) {
    await state.revert();
    if (!(error instanceof NativeError)) throw error;
    return {
      code: error.code,
      codespace: error.codespace,
      log: `failed to execute message; message index: ${running}: ${error.message}`,
      gasUsed,
      events: txEvents,
      data: new Uint8Array(),
      synthetic: [],
    };
  }
}

function transactionEvents(tx: NativeTransaction): NativeEvent[] {
  return [
    {
      type: 'tx',
      attributes: [
        { key: 'fee', value: coinsText(tx.fee) },
        { key: 'fee_payer', value: tx.signer.text },
      ],
    },
    { type: 'tx', attributes: [{ key: 'acc_seq', value: `${tx.signer.text}/${tx.sequence}` }] },
    { type: 'tx', attributes: [{ key: 'signature', value: Buffer.from(tx.signature).toString('base64') }] },
  ];
}

function messageEvent(message: NativeMessage, sender: string, module: string): NativeEvent {
  return {
    type: 'message',
    attributes: [
      { key: 'action', value: message.typeUrl },
      { key: 'sender', value: sender },
      { key: 'module', value: module },
    ],
  };
}

/** The hash of a synthetic transaction: of its native transaction, message, coin and kind. */
function syntheticHash(
  nativeHash: Uint8Array,
  messageIndex: number,
  coinIndex: number,
  kind: SyntheticKind,
): PrefixedHexString {
  const position = new Uint8Array(9);
  const view = new DataView(position.buffer);
  view.setUint32(0, messageIndex);
  view.setUint32(4, coinIndex);
  position[8] = kind === 'bank-send' ? 0 : 1;
  return bytesToHex(keccak256(concatBytes(nativeHash, position)));
}

async function executeMessage(
  state: MerkleStateManager,
  tx: NativeTransaction,
  message: NativeMessage,
  index: number,
  denoms: Denoms,
  synthetic: SyntheticDraft[],
): Promise<NativeEvent[]> {
  const sender = tx.signer.text;
  switch (message.kind) {
    case 'send':
      return send(state, tx, message, index, denoms, synthetic);
    case 'associate': {
      const pair = addressPairOf(tx.pubKey);
      if ((await associatedEvmAddress(state, pair.native)) !== undefined) {
        throw new NativeError(AssociationErrors.alreadySet, 'evm', 'account already has association set');
      }
      await associate(state, pair, denoms);
      return [
        messageEvent(message, sender, 'evm'),
        {
          type: 'address_associated',
          attributes: [
            { key: 'sei_addr', value: encodeNativeAddress(pair.native) },
            { key: 'evm_addr', value: bytesToHex(pair.evm) },
          ],
        },
      ];
    }
    case 'register-pointer': {
      const pointer = await registerPointer(state, message.denom, denoms);
      return [
        messageEvent(message, sender, 'evm'),
        {
          type: 'pointer_registered',
          attributes: [
            { key: 'denom', value: message.denom },
            { key: 'pointer_address', value: bytesToHex(pointer) },
          ],
        },
      ];
    }
  }
}

async function send(
  state: MerkleStateManager,
  tx: NativeTransaction,
  message: Extract<NativeMessage, { kind: 'send' }>,
  index: number,
  denoms: Denoms,
  synthetic: SyntheticDraft[],
): Promise<NativeEvent[]> {
  const bank = new Bank(state, denoms);
  const from = await bankAccountOf(state, tx.signer.bytes);
  const to = await bankAccountOf(state, message.to.bytes);
  await bank.send(from, to, message.coins);
  await new Auth(state).ensure(message.to.bytes);
  const fromHex = bytesToHex(from);
  const toHex = bytesToHex(to);
  const baseAmount = message.coins.find(({ denom }) => denom === denoms.base)?.amount ?? 0n;
  synthetic.push({
    kind: 'bank-send',
    hash: syntheticHash(tx.hash, index, 0, 'bank-send'),
    from: fromHex,
    to: toHex,
    value: baseAmount * WEI_PER_BASE_UNIT,
    input: '0x',
  });
  for (const [coinIndex, coin] of message.coins.entries()) {
    const pointer = coin.denom === denoms.base ? undefined : await bank.pointerOf(coin.denom);
    if (pointer !== undefined)
      synthetic.push(pointerTransfer(tx.hash, index, coinIndex, fromHex, toHex, bytesToHex(pointer), coin));
  }
  const amount = coinsText(message.coins);
  const sender = tx.signer.text;
  const recipient = message.to.text;
  return [
    {
      type: 'coin_spent',
      attributes: [
        { key: 'spender', value: sender },
        { key: 'amount', value: amount },
      ],
    },
    {
      type: 'coin_received',
      attributes: [
        { key: 'receiver', value: recipient },
        { key: 'amount', value: amount },
      ],
    },
    {
      type: 'transfer',
      attributes: [
        { key: 'recipient', value: recipient },
        { key: 'sender', value: sender },
        { key: 'amount', value: amount },
      ],
    },
    messageEvent(message, sender, 'bank'),
  ];
}

/** The ERC20 view of a native send of a denomination with a pointer: `transfer(to, amount)` on the pointer. */
function pointerTransfer(
  nativeHash: Uint8Array,
  messageIndex: number,
  coinIndex: number,
  from: PrefixedHexString,
  to: PrefixedHexString,
  pointer: PrefixedHexString,
  coin: Coin,
): SyntheticDraft {
  const word = (hex: string): string => hex.replace(/^0x/, '').padStart(64, '0');
  return {
    kind: 'pointer-transfer',
    hash: syntheticHash(nativeHash, messageIndex, coinIndex, 'pointer-transfer'),
    from,
    to: pointer,
    value: 0n,
    input: `${TRANSFER_SELECTOR}${word(to)}${word(coin.amount.toString(16))}`,
    transferLog: {
      address: pointer,
      topics: [TRANSFER_TOPIC, `0x${word(from)}`, `0x${word(to)}`],
      data: `0x${word(coin.amount.toString(16))}`,
    },
  };
}
