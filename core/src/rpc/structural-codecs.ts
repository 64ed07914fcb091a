import {
  codec,
  CodecError,
  collectionCodec,
  decodeInto,
  eachInTurns,
  isCodecError,
  jsonKind,
  NO_TURNS,
  whenDecoded,
  type ParamCodec,
  type RequiredCodec,
} from './codec.js';

/** A JSON boolean (Go `bool`); null decodes to false, as Go leaves the zero value. */
export const boolean = codec('bool', (value): boolean => {
  if (value === null) return false;
  if (typeof value !== 'boolean') throw new CodecError(jsonKind(value), 'bool');
  return value;
});

/** A JSON string (Go `string`). */
export const string = codec('string', (value): string => {
  if (typeof value !== 'string') throw new CodecError(jsonKind(value), 'string');
  return value;
});

/** A JSON array whose elements all decode with `element`. */
export function arrayOf<T>(element: ParamCodec<T>): RequiredCodec<T[]> {
  const goType = `[]${element.goType}`;
  return collectionCodec(goType, (value, turns): T[] | Promise<T[]> => {
    if (value === null) return [];
    if (!Array.isArray(value)) throw new CodecError(jsonKind(value), goType);
    const items = value as unknown[];
    const decoded = new Array<T>(items.length);
    const set = (index: number, item: T): void => void (decoded[index] = item);
    const done = eachInTurns(items.length, (index) => decodeInto(element, items[index], turns, index, set), turns);
    return whenDecoded(done, () => decoded);
  });
}

type FieldCodecs = Record<string, ParamCodec<unknown>>;

/**
 * An object's keys by their lower case (the first of any that fold alike): a field missing under
 * its exact name is looked up here once, whatever the object's key count.
 */
function foldedKeys(input: Record<string, unknown>): Map<string, string> {
  const folded = new Map<string, string>();
  for (const key of Object.keys(input)) {
    const lower = key.toLowerCase();
    if (!folded.has(lower)) folded.set(lower, key);
  }
  return folded;
}

type Decoded<C> = C extends ParamCodec<infer T> ? T : never;

/**
 * The decoded form of an object codec's fields. A field whose codec may yield undefined is an
 * optional key, never present as undefined.
 */
export type DecodedObject<F extends FieldCodecs> = {
  [K in keyof F as undefined extends Decoded<F[K]> ? never : K]: Decoded<F[K]>;
} & {
  [K in keyof F as undefined extends Decoded<F[K]> ? K : never]?: Exclude<Decoded<F[K]>, undefined>;
};

/**
 * A JSON object with known fields (a Go struct named `structName`). Unknown fields are ignored,
 * as Go does; a field's failure is reported as Go reports a struct field's.
 */
export function objectOf<F extends FieldCodecs>(structName: string, fields: F): RequiredCodec<DecodedObject<F>> {
  const entries = Object.entries(fields).map(([name, field]) => [name, name.toLowerCase(), field] as const);
  // Go names a field's struct without its package (`TransactionArgs.gas`), its own type with it.
  const fieldStruct = structName.slice(structName.lastIndexOf('.') + 1);

  /** The value of each field, in `entries`' order, found as Go's decoder finds struct fields. */
  const rawFields = (value: unknown): unknown[] => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new CodecError(jsonKind(value), structName);
    }
    const input = value as Record<string, unknown>;
    let exactKeys = 0;
    for (const [name] of entries) if (name in input) exactKeys++;
    // Keys that are not a field's exact name may name one in another case; when there are none
    // (the usual object), no fold is made: 16,000 state overrides made 16,000 of them.
    const folded = exactKeys < Object.keys(input).length ? foldedKeys(input) : undefined;
    return entries.map(([name, lowerName]) => {
      // By its exact name, else by a case-insensitive match.
      if (name in input) return input[name];
      const key = folded?.get(lowerName);
      return key === undefined ? undefined : input[key];
    });
  };
  const inField = (index: number, error: unknown): unknown =>
    isCodecError(error) ? new CodecError(error.inField(fieldStruct, entries[index]![0])) : error;

  // An object's few fields take no turns of their own; a collection among them does.
  return collectionCodec(structName, (value, turns): DecodedObject<F> | Promise<DecodedObject<F>> => {
    const raws = rawFields(value);
    const output: Record<string, unknown> = {};
    const set = (index: number, decoded: unknown): void => {
      if (decoded !== undefined) output[entries[index]![0]] = decoded;
    };
    const step = (index: number): void | Promise<void> => {
      const [name, , field] = entries[index]!;
      const raw = raws[index];
      if ((raw === undefined || raw === null) && !field.isOptional) {
        throw new CodecError(`missing required field ${structName}.${name}`);
      }
      return decodeInto(field, raw, turns, index, set, inField);
    };
    return whenDecoded(eachInTurns(entries.length, step, NO_TURNS), () => output as DecodedObject<F>);
  });
}
