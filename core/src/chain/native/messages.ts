import { BinaryReader, BinaryWriter } from 'cosmjs-types/binary';

/**
 * A protobuf message of string fields only, numbered from 1 in the order given, with the codec
 * shape Cosmos tooling expects of a generated type (cosmjs' `Registry` takes it as is).
 */
export interface StringFieldsType<Fields extends string> {
  readonly typeUrl: string;
  encode(message: Record<Fields, string>, writer?: BinaryWriter): BinaryWriter;
  decode(input: Uint8Array | BinaryReader, length?: number): Record<Fields, string>;
  fromPartial(partial: Partial<Record<Fields, string>>): Record<Fields, string>;
}

function stringFieldsType<Fields extends string>(typeUrl: string, fields: readonly Fields[]): StringFieldsType<Fields> {
  const empty = (): Record<Fields, string> =>
    Object.fromEntries(fields.map((field) => [field, ''])) as Record<Fields, string>;
  return {
    typeUrl,
    encode(message, writer = BinaryWriter.create()) {
      fields.forEach((field, index) => {
        // Field number index + 1, wire type 2 (length-delimited); proto3 leaves out empty strings.
        if (message[field] !== '') writer.uint32(((index + 1) << 3) | 2).string(message[field]);
      });
      return writer;
    },
    decode(input, length) {
      const reader = input instanceof BinaryReader ? input : new BinaryReader(input);
      const end = length === undefined ? reader.len : reader.pos + length;
      const message = empty();
      while (reader.pos < end) {
        const tag = reader.uint32();
        const field = fields[(tag >>> 3) - 1];
        if (field !== undefined && (tag & 7) === 2) message[field] = reader.string();
        else reader.skipType(tag & 7);
      }
      return message;
    },
    fromPartial: (partial) => ({ ...empty(), ...partial }),
  };
}

/**
 * Associates the signer's EVM and native addresses (decisions.md D5). The reference chain's
 * message has the same two fields; the custom message is free text.
 */
export const MsgAssociate = stringFieldsType('/evmnode.native.v1.MsgAssociate', ['sender', 'customMessage']);

/** Registers the ERC20 pointer of a native denomination, at its deterministic address. */
export const MsgRegisterPointer = stringFieldsType('/evmnode.native.v1.MsgRegisterPointer', ['sender', 'denom']);

/**
 * Associates the key that signed keccak256(customMessage) (`ext_associate`, decisions.md D5): `r`
 * and `s` in hex, `v` the recovery id (0 or 1). It travels alone in a transaction with no signer
 * info, signature or fee of its own: the signature in the message authenticates it.
 */
export const MsgAssociateBySignature = stringFieldsType('/evmnode.native.v1.MsgAssociateBySignature', [
  'customMessage',
  'r',
  's',
  'v',
]);
