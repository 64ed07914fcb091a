// Plugins, the built-in ones included, are written against the plugin API alone
// (docs/plugins.md): `@evmnode/core`'s main entry, never core's internals or another plugin's files.
const internals =
  'plugins use only the plugin API that @evmnode/core exports (docs/plugins.md); core internals may change in any release';

/** The ESLint config block that keeps plugins to the plugin API. */
export const pluginBoundaries = {
  files: ['plugins/**/*.ts', 'plugins/**/*.js', 'docs/examples/**/*.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        paths: [
          {
            name: '@evmnode/core',
            importNames: ['Chain', 'ChainStore'],
            message: 'the chain engine is not part of the plugin API: ask for a service (CoreTokens) by its interface',
          },
        ],
        patterns: [
          { group: ['@evmnode/core/*', '!@evmnode/core/testing'], message: internals },
          { group: ['**/core/src/**', '**/core/dist/**'], message: internals },
          {
            group: ['@evmnode/plugin-*/*', '**/plugins/*/src/**', '**/plugins/*/dist/**'],
            message: "a plugin never imports another plugin's files: share a service through provides and deps",
          },
        ],
      },
    ],
  },
};
