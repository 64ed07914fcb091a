import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** The workspace packages that ship: core, each plugin and the tools. */
const SHIPPED = ['core', 'tools', ...readdirSync(path.join(repoRoot, 'plugins')).map((name) => `plugins/${name}`)];

/** The text of every source file of a package (built output and installed modules left out). */
function sourcesOf(folder: string): string {
  const texts: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) texts.push(sourcesOf(full));
    else if (/\.(ts|js|mjs|cjs)$/.test(entry.name)) texts.push(readFileSync(full, 'utf8'));
  }
  return texts.join('\n');
}

/** Whether `source` names `dependency` as a module: in an import, a dynamic import or a module string (pino's transports). */
function names(source: string, dependency: string): boolean {
  const escaped = dependency.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return new RegExp(`['"]${escaped}(/[^'"]*)?['"]`).test(source);
}

describe('dependencies', () => {
  for (const pkg of SHIPPED) {
    it(`${pkg} declares no dependency its sources never use`, () => {
      const manifest = JSON.parse(readFileSync(path.join(repoRoot, pkg, 'package.json'), 'utf8')) as {
        dependencies?: Record<string, string>;
      };
      const sources = sourcesOf(path.join(repoRoot, pkg));
      const unused = Object.keys(manifest.dependencies ?? {}).filter((dependency) => !names(sources, dependency));
      expect(unused).to.deep.equal([]);
    });
  }
});
