/**
 * A result that is already JSON text, served as it is: log queries build their answer from
 * stored JSON instead of parsing it into objects only to serialise them again.
 */
export class RawJson {
  constructor(readonly text: string) {}

  /** The JSON array of `elements`, each already JSON text. */
  static array(elements: readonly string[]): RawJson {
    return new RawJson(`[${elements.join(',')}]`);
  }

  /** For callers that serialise it inside another value. */
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}
