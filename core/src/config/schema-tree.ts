/** A convict schema (or fragment): nested objects whose leaves carry a `default`. */
export type ConfigSchema = { readonly [key: string]: unknown };

/** A leaf of a schema: one configuration key. */
export interface SchemaLeaf {
  readonly key: string;
  readonly doc: string;
  readonly default: unknown;
  readonly sensitive: boolean;
}

function isLeaf(node: unknown): node is { default: unknown; doc?: string; sensitive?: boolean } {
  return typeof node === 'object' && node !== null && 'default' in node;
}

/** Every key of a schema, depth first, in declaration order, with dotted names. */
export function schemaLeaves(schema: ConfigSchema, prefix = ''): SchemaLeaf[] {
  const leaves: SchemaLeaf[] = [];
  for (const [name, node] of Object.entries(schema)) {
    const key = prefix === '' ? name : `${prefix}.${name}`;
    if (isLeaf(node)) {
      leaves.push({ key, doc: node.doc ?? '', default: node.default, sensitive: node.sensitive === true });
    } else if (typeof node === 'object' && node !== null) {
      leaves.push(...schemaLeaves(node as ConfigSchema, key));
    }
  }
  return leaves;
}

/** Turns `{ 'a.b': 1 }` into `{ a: { b: 1 } }`. */
export function nestDottedKeys(flat: ReadonlyMap<string, unknown>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of flat) {
    const parts = key.split('.');
    let node = root;
    for (const part of parts.slice(0, -1)) {
      const child = node[part];
      node = (typeof child === 'object' && child !== null ? child : (node[part] = {})) as Record<string, unknown>;
    }
    node[parts[parts.length - 1]!] = value;
  }
  return root;
}
