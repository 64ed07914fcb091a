import { fileURLToPath } from 'node:url';

/** The absolute path of a compiled fixture plugin, as an operator would list it in [node] plugins. */
export function fixturePlugin(name: string): string {
  return fileURLToPath(new URL(`./${name}.js`, import.meta.url));
}
