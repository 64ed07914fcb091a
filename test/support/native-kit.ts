import { DirectSecp256k1Wallet, Registry, makeAuthInfoBytes, makeSignDoc, encodePubkey } from '@cosmjs/proto-signing';
import { encodeSecp256k1Pubkey } from '@cosmjs/amino';
import { fromHex } from '@cosmjs/encoding';
import { defaultRegistryTypes } from '@cosmjs/stargate';
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { MsgAssociate, MsgRegisterPointer, type NativeLayer, type NativeTxRecord } from '@evmnode/core';

/** The local network's native chain ID. */
export const NATIVE_CHAIN_ID = 'sei-chain';

/** Cosmos SDK and evmnode message types, for signing. */
export const nativeRegistry = new Registry([
  ...defaultRegistryTypes,
  [MsgAssociate.typeUrl, MsgAssociate],
  [MsgRegisterPointer.typeUrl, MsgRegisterPointer],
]);

export interface NativeSigner {
  readonly wallet: DirectSecp256k1Wallet;
  /** Bech32. */
  readonly address: string;
  readonly pubkey: Uint8Array;
}

/** A native signer of a 0x private key, as cosmjs makes one. */
export async function nativeSigner(privateKey: string): Promise<NativeSigner> {
  const wallet = await DirectSecp256k1Wallet.fromKey(fromHex(privateKey.replace(/^0x/, '')), 'sei');
  const [account] = await wallet.getAccounts();
  return { wallet, address: account!.address, pubkey: account!.pubkey };
}

export interface NativeTxFields {
  readonly messages: readonly { typeUrl: string; value: unknown }[];
  readonly sequence: bigint;
  readonly accountNumber: bigint;
  readonly fee?: readonly { denom: string; amount: string }[];
  readonly gas?: bigint;
  readonly chainId?: string;
  readonly memo?: string;
}

/** A signed `TxRaw` (SIGN_MODE_DIRECT), built with cosmjs as Cosmos tooling builds it. */
export async function signNative(signer: NativeSigner, fields: NativeTxFields): Promise<Uint8Array> {
  const bodyBytes = nativeRegistry.encodeTxBody({ messages: [...fields.messages], memo: fields.memo ?? '' });
  const authInfoBytes = makeAuthInfoBytes(
    [{ pubkey: encodePubkey(encodeSecp256k1Pubkey(signer.pubkey)), sequence: Number(fields.sequence) }],
    [...(fields.fee ?? [{ denom: 'usei', amount: '200' }])],
    Number(fields.gas ?? 200_000n),
    undefined,
    undefined,
  );
  const signDoc = makeSignDoc(
    bodyBytes,
    authInfoBytes,
    fields.chainId ?? NATIVE_CHAIN_ID,
    Number(fields.accountNumber),
  );
  const { signature, signed } = await signer.wallet.signDirect(signer.address, signDoc);
  return TxRaw.encode({
    bodyBytes: signed.bodyBytes,
    authInfoBytes: signed.authInfoBytes,
    signatures: [Buffer.from(signature.signature, 'base64')],
  }).finish();
}

/** Signs with the signer's current account number and sequence, submits, and waits for the block. */
export async function sendNative(
  native: NativeLayer,
  signer: NativeSigner,
  messages: NativeTxFields['messages'],
  extra: Partial<NativeTxFields> = {},
): Promise<NativeTxRecord> {
  const account = await native.account(signer.address);
  if (account === undefined) throw new Error(`${signer.address} has no account`);
  const raw = await signNative(signer, {
    messages,
    sequence: account.sequence,
    accountNumber: account.accountNumber,
    ...extra,
  });
  const checked = await native.submit(raw);
  if (checked.code !== 0) throw new Error(`refused: ${checked.code} ${checked.log}`);
  const record = await native.whenIncluded(checked.hash, 20_000);
  if (record === undefined) throw new Error('not included');
  return record;
}

/** Registers the ERC20 pointer of native `denom`, signed by `registrar`; its committed record. */
export function registerPointer(native: NativeLayer, registrar: NativeSigner, denom: string): Promise<NativeTxRecord> {
  return sendNative(
    native,
    registrar,
    [{ typeUrl: MsgRegisterPointer.typeUrl, value: { sender: registrar.address, denom } }],
    { gas: 300_000n, fee: [{ denom: 'usei', amount: '300' }] },
  );
}
