import { sha256 } from '@noble/hashes/sha2.js';
import { BinaryReader, WireType } from 'cosmjs-types/binary';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys';
import { SignMode } from 'cosmjs-types/cosmos/tx/signing/v1beta1/signing';
import { AuthInfo, SignDoc, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import secp256k1 from 'secp256k1';
import { decodeNativeAddress, encodeNativeAddress, nativeAddressOfKey, NativeAddressError } from './addresses.js';
import { parseCoins } from './coins.js';
import { MsgAssociate, MsgAssociateBySignature, MsgRegisterPointer } from './messages.js';
import { NativeError, SdkError } from './native-error.js';
import type { Coin } from './native-types.js';
import { keccak256 } from '../native-crypto.js';
import { EVM_TX_TYPE_URL } from '../native-tx.js';

/** A native address as written in a message, and its bytes. */
export interface NamedAddress {
  readonly text: string;
  readonly bytes: Uint8Array;
}

/** A message this chain executes. */
export type NativeMessage =
  | { readonly kind: 'send'; readonly typeUrl: string; readonly to: NamedAddress; readonly coins: readonly Coin[] }
  | { readonly kind: 'associate'; readonly typeUrl: string }
  | { readonly kind: 'register-pointer'; readonly typeUrl: string; readonly denom: string };

/** A decoded native transaction whose form is valid (the SDK's `ValidateBasic`); its signature is checked against an account. */
export interface NativeTransaction {
  readonly raw: Uint8Array;
  readonly hash: Uint8Array;
  readonly messages: readonly NativeMessage[];
  /** Its body's note, which the ante bounds. */
  readonly memo: string;
  /** The one signer: its compressed key and native address. */
  readonly pubKey: Uint8Array;
  readonly signer: NamedAddress;
  readonly sequence: bigint;
  readonly fee: readonly Coin[];
  readonly gasLimit: bigint;
  /** Whether it only associates its signer: such a transaction needs no fee (decisions.md D5). */
  readonly associationOnly: boolean;
  /**
   * Whether its signer is the key recovered from its one {@link MsgAssociateBySignature}: it has
   * no signature, sequence or fee of its own, and needs no account.
   */
  readonly signedByMessage: boolean;
  readonly bodyBytes: Uint8Array;
  readonly authInfoBytes: Uint8Array;
  readonly signature: Uint8Array;
}

const SECP256K1_PUBKEY_URL = '/cosmos.crypto.secp256k1.PubKey';

/** Gas a native transaction uses, as the SDK meters it: per byte, per signature and per message. */
export const NativeGas = {
  perTxByte: 10n,
  signature: 1_000n,
  send: 20_000n,
  perCoin: 5_000n,
  associate: 50_000n,
  registerPointer: 200_000n,
} as const;

function decodeProto<T>(what: string, decode: () => T): T {
  try {
    return decode();
  } catch (error) {
    throw NativeError.sdk(SdkError.TxDecode, `${what}: ${(error as Error).message}`);
  }
}

function addressField(field: string, text: string): NamedAddress {
  try {
    return { text, bytes: decodeNativeAddress(text) };
  } catch (error) {
    if (!(error instanceof NativeAddressError)) throw error;
    throw NativeError.sdk(SdkError.InvalidAddress, `invalid ${field} address: ${error.message}`);
  }
}

/** TxRaw's fields: body bytes (1), auth info bytes (2), signatures (3, repeated). */
const TX_RAW_FIELDS = 3;

/** How many bytes the shortest varint of `value` takes. */
function varintLength(value: number): number {
  let length = 1;
  for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 0x80)) length++;
  return length;
}

/**
 * Refuses TxRaw bytes that decode as the SDK's decoder does: fields out of ADR-027's order or with
 * a longer length prefix than needed (`rejectNonADR027TxRaw`), then a field TxRaw does not have.
 * TxRaw is not signed: other bytes for the same transaction would let anyone who sees it send it
 * again under another hash.
 */
function checkTxRawForm(raw: Uint8Array): void {
  const reader = new BinaryReader(raw);
  let previous = 0;
  let unknown: number | undefined;
  try {
    while (reader.pos < reader.len) {
      const [field, wireType] = reader.tag();
      if (wireType !== WireType.Bytes) throw new Error(`expected ${WireType.Bytes} wire type, got ${wireType}`);
      if (field < previous) throw new Error(`txRaw must follow ADR-027, got tagNum ${field} after tagNum ${previous}`);
      previous = field;
      const start = reader.pos;
      const length = reader.uint32();
      const shortest = varintLength(length);
      if (reader.pos - start !== shortest) {
        throw new Error(
          `length prefix varint for tagNum ${field} is not as short as possible, read ${reader.pos - start}, only need ${shortest}`,
        );
      }
      reader.skip(length);
      if (field > TX_RAW_FIELDS) unknown ??= field;
    }
  } catch (error) {
    throw NativeError.sdk(SdkError.TxDecode, (error as Error).message);
  }
  if (unknown !== undefined) {
    throw NativeError.sdk(SdkError.TxDecode, `errUnknownField "*tx.TxRaw": {TagNum: ${unknown}, WireType:"bytes"}`);
  }
}

/** Reads the bytes of a native transaction and checks its form; throws {@link NativeError} with the SDK's code. */
export function decodeNativeTransaction(raw: Uint8Array): NativeTransaction {
  const txRaw = decodeProto('TxRaw', () => TxRaw.decode(raw));
  checkTxRawForm(raw);
  const body = decodeProto('TxBody', () => TxBody.decode(txRaw.bodyBytes));
  const authInfo = decodeProto('AuthInfo', () => AuthInfo.decode(txRaw.authInfoBytes));
  if (body.messages.length === 0) throw NativeError.sdk(SdkError.InvalidRequest, 'must contain at least one message');
  if (authInfo.signerInfos.length === 0 && txRaw.signatures.length === 0) {
    const association = decodeAssociationBySignature(raw, txRaw, body);
    if (association !== undefined) return association;
  }
  const [signerInfo, ...otherSigners] = authInfo.signerInfos;
  if (signerInfo === undefined || otherSigners.length > 0) {
    throw NativeError.sdk(
      SdkError.Unauthorized,
      `wrong number of signers; expected 1, got ${authInfo.signerInfos.length}`,
    );
  }
  if (txRaw.signatures.length === 0) throw NativeError.sdk(SdkError.NoSignatures);
  if (txRaw.signatures.length > 1) {
    throw NativeError.sdk(SdkError.Unauthorized, `wrong number of signers; expected 1, got ${txRaw.signatures.length}`);
  }
  if (signerInfo.modeInfo?.single?.mode !== SignMode.SIGN_MODE_DIRECT) {
    throw NativeError.sdk(SdkError.Unauthorized, 'only SIGN_MODE_DIRECT single signatures are supported');
  }
  if (signerInfo.publicKey?.typeUrl !== SECP256K1_PUBKEY_URL) {
    throw NativeError.sdk(
      SdkError.InvalidPubKey,
      `unsupported public key type ${signerInfo.publicKey?.typeUrl ?? '(none)'}`,
    );
  }
  const pubKey = decodeProto('PubKey', () => PubKey.decode(signerInfo.publicKey!.value)).key;
  if (pubKey.length !== 33 || !secp256k1.publicKeyVerify(pubKey)) {
    throw NativeError.sdk(SdkError.InvalidPubKey, 'not a compressed secp256k1 key');
  }
  const signerBytes = nativeAddressOfKey(pubKey);
  const signer = { text: encodeNativeAddress(signerBytes), bytes: signerBytes };
  const messages = body.messages.map(({ typeUrl, value }) => decodeMessage(typeUrl, value, signer.text));
  const fee = authInfo.fee;
  return {
    raw,
    hash: sha256(raw),
    messages,
    memo: body.memo,
    pubKey,
    signer,
    sequence: signerInfo.sequence,
    fee: fee === undefined || fee.amount.length === 0 ? [] : parseCoins(fee.amount),
    gasLimit: fee?.gasLimit ?? 0n,
    associationOnly: messages.every((message) => message.kind === 'associate'),
    signedByMessage: false,
    bodyBytes: txRaw.bodyBytes,
    authInfoBytes: txRaw.authInfoBytes,
    signature: txRaw.signatures[0]!,
  };
}

/** Hex with or without `0x`, as bytes; undefined when it is not hex. */
function hexField(text: string): Uint8Array | undefined {
  const digits = text.replace(/^0x/i, '');
  return /^([0-9a-f]{2})*$/i.test(digits) ? Uint8Array.from(Buffer.from(digits, 'hex')) : undefined;
}

/** The compressed key that signed keccak256(customMessage); throws the SDK's unauthorized error when none did. */
function associationKey(fields: Record<'customMessage' | 'r' | 's' | 'v', string>): Uint8Array {
  const [r, s] = [hexField(fields.r), hexField(fields.s)];
  // v is a number in hex (`0x0`, `0x1`, `1`): the recovery id.
  const recovery = /^(0x)?[0-9a-f]{1,64}$/i.test(fields.v)
    ? Number(BigInt(`0x${fields.v.replace(/^0x/i, '')}`))
    : undefined;
  if (r === undefined || s === undefined || r.length > 32 || s.length > 32 || (recovery !== 0 && recovery !== 1)) {
    throw NativeError.sdk(
      SdkError.Unauthorized,
      'invalid association signature: r and s must be hex of at most 32 bytes and v 0 or 1',
    );
  }
  const signature = new Uint8Array(64);
  signature.set(r, 32 - r.length);
  signature.set(s, 64 - s.length);
  try {
    return secp256k1.ecdsaRecover(signature, recovery, keccak256(new TextEncoder().encode(fields.customMessage)), true);
  } catch {
    throw NativeError.sdk(SdkError.Unauthorized, 'invalid association signature: no key recovers from it');
  }
}

/** A transaction holding one {@link MsgAssociateBySignature} and nothing else; undefined when it is not one. */
function decodeAssociationBySignature(
  raw: Uint8Array,
  txRaw: TxRaw,
  { messages, memo }: TxBody,
): NativeTransaction | undefined {
  const [message, ...others] = messages;
  if (message?.typeUrl !== MsgAssociateBySignature.typeUrl || others.length > 0) return undefined;
  const pubKey = associationKey(
    decodeProto('MsgAssociateBySignature', () => MsgAssociateBySignature.decode(message.value)),
  );
  const signerBytes = nativeAddressOfKey(pubKey);
  return {
    raw,
    hash: sha256(raw),
    messages: [{ kind: 'associate', typeUrl: message.typeUrl }],
    memo,
    pubKey,
    signer: { text: encodeNativeAddress(signerBytes), bytes: signerBytes },
    sequence: 0n,
    fee: [],
    gasLimit: 0n,
    associationOnly: true,
    signedByMessage: true,
    bodyBytes: txRaw.bodyBytes,
    authInfoBytes: txRaw.authInfoBytes,
    signature: new Uint8Array(),
  };
}

/** The bytes of the transaction `ext_associate` broadcasts: one {@link MsgAssociateBySignature}, no signer info. */
export function associationBySignatureTx(fields: Record<'customMessage' | 'r' | 's' | 'v', string>): Uint8Array {
  const bodyBytes = TxBody.encode(
    TxBody.fromPartial({
      messages: [{ typeUrl: MsgAssociateBySignature.typeUrl, value: MsgAssociateBySignature.encode(fields).finish() }],
    }),
  ).finish();
  const authInfoBytes = AuthInfo.encode(AuthInfo.fromPartial({})).finish();
  return TxRaw.encode({ bodyBytes, authInfoBytes, signatures: [] }).finish();
}

/** A message's content, checked; every message must be signed by the transaction's signer. */
function decodeMessage(typeUrl: string, value: Uint8Array, signer: string): NativeMessage {
  const requireSigner = (claimed: string): void => {
    addressField('sender', claimed);
    if (claimed !== signer) {
      throw NativeError.sdk(
        SdkError.InvalidPubKey,
        `pubKey does not match signer address ${claimed} with signer index: 0`,
      );
    }
  };
  switch (typeUrl) {
    case MsgSend.typeUrl: {
      const message = decodeProto('MsgSend', () => MsgSend.decode(value));
      requireSigner(message.fromAddress);
      const to = addressField('to', message.toAddress);
      return { kind: 'send', typeUrl, to, coins: parseCoins(message.amount) };
    }
    case MsgAssociate.typeUrl:
      requireSigner(decodeProto('MsgAssociate', () => MsgAssociate.decode(value)).sender);
      return { kind: 'associate', typeUrl };
    case MsgRegisterPointer.typeUrl: {
      const message = decodeProto('MsgRegisterPointer', () => MsgRegisterPointer.decode(value));
      requireSigner(message.sender);
      return { kind: 'register-pointer', typeUrl, denom: message.denom };
    }
    case EVM_TX_TYPE_URL:
      throw NativeError.sdk(SdkError.UnknownRequest, 'EVM transactions are submitted with eth_sendRawTransaction');
    default:
      throw NativeError.sdk(SdkError.TxDecode, `unable to resolve type URL ${typeUrl}`);
  }
}

/** The gas a transaction uses: the same whatever state it meets, so admission knows it. */
export function gasUsedBy(tx: NativeTransaction): bigint {
  let gas = NativeGas.perTxByte * BigInt(tx.raw.length) + NativeGas.signature;
  for (const message of tx.messages) {
    if (message.kind === 'send') gas += NativeGas.send + NativeGas.perCoin * BigInt(message.coins.length);
    else if (message.kind === 'associate') gas += NativeGas.associate;
    else gas += NativeGas.registerPointer;
  }
  return gas;
}

/** Whether the signature is the signer's over the SIGN_MODE_DIRECT sign document. */
export function signatureIsValid(tx: NativeTransaction, chainId: string, accountNumber: bigint): boolean {
  const signDoc = SignDoc.encode({
    bodyBytes: tx.bodyBytes,
    authInfoBytes: tx.authInfoBytes,
    chainId,
    accountNumber,
  }).finish();
  // libsecp256k1 refuses high-S signatures, as the SDK does.
  return tx.signature.length === 64 && secp256k1.ecdsaVerify(tx.signature, sha256(signDoc), tx.pubKey);
}
