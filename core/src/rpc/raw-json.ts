/**
 * A result that is already JSON, as UTF-8 bytes, served as it is: log queries build their answer
 * from stored JSON instead of parsing it into objects only to serialise them again.
 */
export class RawJson {
  constructor(readonly bytes: Buffer) {}

  /** The JSON array of `elements`, each already JSON (text, or UTF-8 bytes). */
  static array(elements: readonly (string | Uint8Array)[]): RawJson {
    const parts: Uint8Array[] = [OPEN];
    elements.forEach((element, index) => {
      if (index > 0) parts.push(COMMA);
      parts.push(typeof element === 'string' ? Buffer.from(element, 'utf8') : element);
    });
    parts.push(CLOSE);
    return new RawJson(Buffer.concat(parts));
  }

  /** For callers that serialise it inside another value. */
  toJSON(): unknown {
    return JSON.parse(this.bytes.toString('utf8'));
  }
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');
