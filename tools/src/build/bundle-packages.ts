/**
 * Bundles core's and the built-in plugins' compiled modules, with the libraries they import, into a
 * few files under each package's `dist/bundle/`, which its package exports point to. Node 20 loads
 * ES modules one file at a time (resolution, read, compile): core, the plugins and their libraries
 * are about 1,400 files, which took most of a node's start-up. Run after `tsc -b` (`npm run build`).
 *
 * Every entry of a package's exports is an entry of its bundle, and code splitting puts what entries share in
 * shared chunks, so that every importer (plugins, tools, tests) still gets one instance of each core
 * module and of each token. Packages of evmnode stay outside each other's bundles for the same
 * reason. Threads and the loader hook that core starts from a file next to its own module are
 * entries too, named as those modules name them.
 */
import { build } from 'esbuild';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

/** What every bundle imports from node_modules rather than carrying. */
const EXTERNAL = [
  // Each package of evmnode is one instance, whoever imports it.
  '@evmnode/*',
  // One copy of ethereumjs for core, plugins and tests: its objects cross between them.
  '@ethereumjs/*',
  // ethereumjs' loggers: core tunes the instance they share.
  'debug',
  // Native bindings.
  'rocksdb',
  'secp256k1',
  // ws' optional native helpers.
  'bufferutil',
  'utf-8-validate',
  // Loaded on demand: koa for the operator endpoints, pino-pretty for a terminal's logs.
  'koa',
  'koa-compress',
  '@koa/cors',
  'pino-pretty',
  // Finds its WebAssembly module from its own folder.
  'quickjs-emscripten',
];

async function bundle(dist: string, entryPoints: Record<string, string>): Promise<void> {
  const outdir = `${dist}bundle`;
  rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints: Object.fromEntries(Object.entries(entryPoints).map(([name, file]) => [name, `${dist}${file}`])),
    outdir,
    // Flat, so that `new URL('./precompile-worker.js', import.meta.url)` finds the entry from any chunk.
    entryNames: '[name]',
    chunkNames: 'chunk-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Off: it names every function a closure creates, at each creation (about a seventh of an
    // `eth_chainId` answer's time). Names stay as written, but for a clash in one bundle and for a
    // class that names itself in its body, which becomes `_Name` (the error classes' names are tested).
    keepNames: false,
    sourcemap: 'linked',
    external: EXTERNAL,
    // CommonJS libraries in a bundle require Node's modules.
    banner: {
      js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
}

/**
 * A package's entries, from its exports: each `default` names a file of `dist/bundle/`, built from
 * the module that `tsc` compiled beside its `types`.
 */
function exportedEntries(packageFolder: string): Record<string, string> {
  const { exports } = JSON.parse(readFileSync(`${packageFolder}package.json`, 'utf8')) as {
    exports: Record<string, string | { types: string; default: string }>;
  };
  const entries: Record<string, string> = {};
  for (const target of Object.values(exports)) {
    if (typeof target === 'string') continue; // ./package.json
    const name = /^\.\/dist\/bundle\/(.+)\.js$/.exec(target.default)?.[1];
    if (name === undefined) throw new Error(`${packageFolder}package.json: ${target.default} is not in dist/bundle/`);
    entries[name] = target.types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.js');
  }
  return entries;
}

await bundle(`${root}core/dist/`, {
  ...exportedEntries(`${root}core/`),
  'precompile-worker': 'chain/evm/precompile-worker.js',
  'sender-recovery-worker': 'chain/follower/sender-recovery-worker.js',
  'admission-recovery-worker': 'chain/pool/admission-recovery-worker.js',
  'request-json-worker': 'rpc/request-json-worker.js',
  'core-resolve-hook': 'plugins/core-resolve-hook.js',
});
/** The threads a built-in plugin starts from a file next to its own module. */
const PLUGIN_THREADS: Record<string, Record<string, string>> = {
  'debug-trace': { 'js-sandbox-worker': 'tracers/js-sandbox-worker.js' },
};
for (const plugin of readdirSync(`${root}plugins`)) {
  const folder = `${root}plugins/${plugin}/`;
  await bundle(`${folder}dist/`, { ...exportedEntries(folder), ...PLUGIN_THREADS[plugin] });
}
