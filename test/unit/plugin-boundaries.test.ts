import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** Lints `code` as if it were a file of a plugin (or of core, by `filePath`) with the project's boundary rule alone. */
async function boundaryErrors(code: string, filePath = 'plugins/example/src/setup.ts'): Promise<string[]> {
  const { pluginBoundaries } = (await import(new URL('eslint/plugin-boundaries.js', `file://${repoRoot}`).href)) as {
    pluginBoundaries: Linter.Config;
  };
  const eslint = new ESLint({
    cwd: repoRoot,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, pluginBoundaries],
  });
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.map((message) => `${message.ruleId}: ${message.message}`);
}

const INTERNALS =
  'plugins use only the plugin API that @evmnode/core exports (docs/plugins.md); core internals may change in any release';

describe('the plugin boundary lint rule', () => {
  it('lets a plugin import the plugin API and core/testing', async () => {
    expect(
      await boundaryErrors(
        "import { CoreTokens, type ChainReader } from '@evmnode/core';\nimport { startTestNode } from '@evmnode/core/testing';\n",
      ),
    ).to.deep.equal([]);
  });

  it("fails a plugin that imports core's internals, by entry or by path", async () => {
    expect(await boundaryErrors("import { ChainStore } from '@evmnode/core/internal';\n")).to.deep.equal([
      `no-restricted-imports: '@evmnode/core/internal' import is restricted from being used by a pattern. ${INTERNALS}`,
    ]);
    expect(await boundaryErrors("import type { Chain } from '../../../core/src/chain/chain.js';\n")).to.deep.equal([
      `no-restricted-imports: '../../../core/src/chain/chain.js' import is restricted from being used by a pattern. ${INTERNALS}`,
    ]);
  });

  it('fails a plugin that names the chain engine, even as a type', async () => {
    expect(await boundaryErrors("import type { Chain } from '@evmnode/core';\n")).to.deep.equal([
      "no-restricted-imports: 'Chain' import from '@evmnode/core' is restricted. the chain engine is not part of the plugin API: ask for a service (CoreTokens) by its interface",
    ]);
  });

  it("fails a plugin that imports another plugin's files", async () => {
    expect(
      await boundaryErrors("import { FilterManager } from '@evmnode/plugin-filters/dist/filter-manager.js';\n"),
    ).to.deep.equal([
      "no-restricted-imports: '@evmnode/plugin-filters/dist/filter-manager.js' import is restricted from being used by a pattern. a plugin never imports another plugin's files: share a service through provides and deps",
    ]);
  });

  it('leaves core and the tests free to use the internals', async () => {
    expect(
      await boundaryErrors("import { ChainStore } from '@evmnode/core/internal';\n", 'test/unit/x.test.ts'),
    ).to.deep.equal([]);
  });
});
