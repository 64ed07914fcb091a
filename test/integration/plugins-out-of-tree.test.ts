import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { CORE_API_VERSION } from '@evmnode/core';
import { startTestNode } from '@evmnode/core/testing';
import { rpc } from '../support/rpc-client.js';

const checkout = fileURLToPath(new URL('../../../', import.meta.url));
const coreFolder = path.join(checkout, 'core');
const tsc = path.join(checkout, 'node_modules/typescript/bin/tsc');
/** The range a plugin written for this core declares, whatever its version. */
const coreApi = `^${CORE_API_VERSION.split('.')[0]}.0.0`;

const temporaryFolders: string[] = [];

/** A folder under the system's temporary folder, outside the checkout and any node_modules, with these files. */
function folderWith(files: Record<string, string>): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'evmnode-plugin-'));
  temporaryFolders.push(folder);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(folder, name)), { recursive: true });
    writeFileSync(path.join(folder, name), text);
  }
  return folder;
}

/** A third party's plugin in plain JavaScript, with no build step: package.json, manifest and setup. */
const javaScriptPlugin = {
  'package.json': JSON.stringify({
    name: 'evmnode-plugin-outside',
    version: '1.0.0',
    type: 'module',
    exports: './index.js',
    peerDependencies: { '@evmnode/core': '*' },
  }),
  'index.js': `import { CoreTokens, definePlugin } from '@evmnode/core';

export default definePlugin({
  id: 'outside',
  coreApi: '${coreApi}',
  deps: { chain: CoreTokens.ChainInfo },
  setup: () => import('./setup.js'),
});
`,
  'setup.js': `import { defineMethod } from '@evmnode/core';

export default ({ deps, rpc }) => {
  rpc.register([
    defineMethod({ name: 'outside_chainId', params: [], handler: () => \`chain \${deps.chain.chainId}\` }),
    defineMethod({
      name: 'outside_coreModules',
      params: [],
      handler: () => [import.meta.resolve('@evmnode/core'), import.meta.resolve('@evmnode/core/testing')],
    }),
  ]);
};
`,
};

/** A copy of core the plugin's folder holds, with tokens of its own: the node breaks if a plugin gets it. */
const ownCopyOfCore = {
  'node_modules/@evmnode/core/package.json': JSON.stringify({
    name: '@evmnode/core',
    version: '0.0.1',
    type: 'module',
    exports: { '.': './index.js', './testing': './testing.js' },
  }),
  'node_modules/@evmnode/core/index.js': `export const CoreTokens = { ChainInfo: Symbol('ChainInfo') };
export const definePlugin = (manifest) => manifest;
export const defineMethod = (method) => method;
`,
  'node_modules/@evmnode/core/testing.js': 'export {};\n',
};

/** The checkout's own core modules, as the node imports them (its package exports name them). */
const nodeCoreModules = [import.meta.resolve('@evmnode/core'), import.meta.resolve('@evmnode/core/testing')];

async function typeCheck(folder: string): Promise<{ code: number; output: string }> {
  return promisify(execFile)(process.execPath, [tsc, '-p', folder, '--pretty', 'false'], { cwd: folder }).then(
    ({ stdout }) => ({ code: 0, output: stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, output: error.stdout }),
  );
}

describe('plugins from outside the node', () => {
  afterEach(() => {
    for (const folder of temporaryFolders.splice(0)) rmSync(folder, { recursive: true, force: true });
  });

  describe('a plain-JavaScript plugin in a folder of its own', () => {
    it('imports the node’s copy of @evmnode/core and serves its methods when listed by absolute path', async () => {
      const folder = folderWith(javaScriptPlugin);
      const node = await startTestNode({ plugins: [folder] });
      try {
        expect((await rpc(node.url, 'outside_chainId')).result).to.equal('chain 713714');
        expect((await rpc(node.url, 'outside_coreModules')).result).to.deep.equal(nodeCoreModules);
      } finally {
        await node.stop();
      }
    });

    it('gets the node’s copy even beside a copy of its own, when listed relative to the working directory', async () => {
      const folder = folderWith({ ...javaScriptPlugin, ...ownCopyOfCore });
      const relative = path.relative(process.cwd(), folder);
      expect(relative.startsWith('..')).to.equal(true);
      const node = await startTestNode({ plugins: [relative] });
      try {
        expect((await rpc(node.url, 'outside_chainId')).result).to.equal('chain 713714');
        expect((await rpc(node.url, 'outside_coreModules')).result).to.deep.equal(nodeCoreModules);
      } finally {
        await node.stop();
      }
    });
  });

  describe('the types of @evmnode/core', () => {
    /** A plugin written in TypeScript, with core linked into its node_modules as `npm link` would. */
    function typeScriptPlugin(files: Record<string, string>): string {
      const folder = folderWith({
        'package.json': JSON.stringify({ name: 'evmnode-plugin-typed', type: 'module' }),
        // skipLibCheck as in any project: @ethereumjs's own .d.ts import `debug`, which ships no types.
        'tsconfig.json': JSON.stringify({
          compilerOptions: { module: 'nodenext', target: 'es2022', strict: true, skipLibCheck: true, noEmit: true },
          include: ['*.ts'],
        }),
        'index.ts': `import { CoreTokens, definePlugin } from '@evmnode/core';

export const deps = { chain: CoreTokens.ChainInfo };

export default definePlugin({ id: 'typed', coreApi: '${coreApi}', deps, setup: () => import('./setup.js') });
`,
        'setup.ts': `import { defineMethod, type PluginSetup } from '@evmnode/core';
import type { deps } from './index.js';

const setup: PluginSetup<typeof deps> = ({ deps: { chain }, rpc }) => {
  const chainId: bigint = chain.chainId;
  rpc.register([defineMethod({ name: 'typed_chainId', params: [], handler: () => chainId.toString() })]);
};

export default setup;
`,
        'node-options.ts': `import type { TestNodeOptions } from '@evmnode/core/testing';

export const options: TestNodeOptions = { plugins: ['eth-query'] };
`,
        ...files,
      });
      mkdirSync(path.join(folder, 'node_modules/@evmnode'), { recursive: true });
      symlinkSync(coreFolder, path.join(folder, 'node_modules/@evmnode/core'), 'dir');
      return folder;
    }

    it('type-check a plugin outside the workspace', async function () {
      this.timeout(120_000);
      expect(await typeCheck(typeScriptPlugin({}))).to.deep.equal({ code: 0, output: '' });
    });

    it('refuse a plugin that uses a service under a wrong type', async function () {
      this.timeout(120_000);
      const folder = typeScriptPlugin({
        'wrong.ts': `import type { PluginSetup } from '@evmnode/core';
import type { deps } from './index.js';

export const wrong: PluginSetup<typeof deps> = ({ deps: { chain } }) => {
  const chainId: string = chain.chainId;
  void chainId;
};
`,
      });
      expect(await typeCheck(folder)).to.deep.equal({
        code: 2,
        output: "wrong.ts(5,9): error TS2322: Type 'bigint' is not assignable to type 'string'.\n",
      });
    });

    it('name only files of core’s package and packages core depends on', () => {
      const manifest = JSON.parse(readFileSync(path.join(coreFolder, 'package.json'), 'utf8'));
      const entries = ['.', './testing'].map((entry) => path.join(coreFolder, manifest.exports[entry].types));
      const allowed = new Set([...Object.keys(manifest.dependencies), ...builtinModules]);
      const strays: string[] = [];
      const seen = new Set<string>();
      const pending = [...entries];
      for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
        if (seen.has(file)) continue;
        seen.add(file);
        if (!existsSync(file)) {
          strays.push(path.relative(coreFolder, file));
          continue;
        }
        // Without doc comments, whose examples show imports too.
        const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
        const specifiers = text.matchAll(/(?:from |import\(|import |reference (?:path|types)=)['"]([^'"]+)['"]/g);
        for (const [, specifier] of specifiers) {
          if (specifier!.startsWith('.')) {
            const target = path.resolve(path.dirname(file), specifier!.replace(/\.js$/, '.d.ts'));
            if (target.startsWith(coreFolder + path.sep)) pending.push(target);
            else strays.push(`${path.relative(coreFolder, file)}: ${specifier}`);
            continue;
          }
          const name = specifier!
            .replace(/^node:/, '')
            .split('/')
            .slice(0, specifier!.startsWith('@') ? 2 : 1)
            .join('/');
          if (!allowed.has(name)) strays.push(`${path.relative(coreFolder, file)}: ${specifier}`);
        }
      }
      expect(strays).to.deep.equal([]);
      expect([...seen].map((file) => path.relative(coreFolder, file))).to.include.members([
        'dist/index.d.ts',
        'dist/testing/index.d.ts',
        'dist/plugins/define-plugin.d.ts',
        'dist/di/service-token.d.ts',
      ]);
    });
  });
});
