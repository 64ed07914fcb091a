import ms from 'ms';
import { stringify } from 'smol-toml';
import type { ConfigSchema } from './schema-tree.js';

function isLeaf(node: unknown): node is { doc?: string; format?: unknown } {
  return typeof node === 'object' && node !== null && 'default' in node;
}

function valueAt(values: Record<string, unknown>, path: readonly string[]): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], values);
}

/** A TOML value for one key; durations are written the way people write them ("30s"). */
function tomlLine(key: string, value: unknown, format: unknown): string {
  const written = format === 'duration' && typeof value === 'number' ? ms(value) : value;
  return stringify({ [key]: written }).trim();
}

/**
 * Writes `values` as a commented app.toml: every section of `schema` with every key, its doc as a
 * comment, and its value.
 */
export function renderAppToml(schema: ConfigSchema, values: Record<string, unknown>, header: string): string {
  const sections: string[] = [header.trimEnd()];
  const visit = (node: ConfigSchema, path: readonly string[]): void => {
    const leaves = Object.entries(node).filter(([, child]) => isLeaf(child));
    if (leaves.length > 0) {
      const lines = [`[${path.join('.')}]`];
      for (const [key, leaf] of leaves) {
        const { doc, format } = leaf as { doc?: string; format?: unknown };
        if (doc) lines.push(`# ${doc}`);
        lines.push(tomlLine(key, valueAt(values, [...path, key]), format));
      }
      sections.push(lines.join('\n'));
    }
    for (const [key, child] of Object.entries(node)) {
      if (!isLeaf(child) && typeof child === 'object' && child !== null) visit(child as ConfigSchema, [...path, key]);
    }
  };
  visit(schema, []);
  return sections.join('\n\n') + '\n';
}
