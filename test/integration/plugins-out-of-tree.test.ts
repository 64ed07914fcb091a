import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { CORE_API_VERSION } from '@evmnode/core';
import { startTestNode } from '@evmnode/core/testing';
import { rpc } from '../support/rpc-client.js';

const checkout = fileURLToPath(new URL('../../../', import.meta.url));
const coreFolder = path.join(checkout, 'core');
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

/** The checkout's own core modules, as the node imports them. */
const nodeCoreModules = [
  pathToFileURL(path.join(coreFolder, 'dist/index.js')).href,
  pathToFileURL(path.join(coreFolder, 'dist/testing/index.js')).href,
];

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
});
