import { defineMethod, InvalidInputError, string, type PluginSetup } from '@evmnode/core';
import type { Deps, HelloWorldConfig } from './deps.js';

const setup: PluginSetup<Deps, HelloWorldConfig> = ({ config, deps, logger, rpc }) => {
  const helloWorld = defineMethod({
    name: 'hello_world',
    // One optional string parameter; a wrong type gets geth's "invalid argument 0: ..." error.
    params: [string.optional('world')],
    handler: ([name]) => {
      if (name.trim() === '') throw new InvalidInputError('name must not be empty');
      return `${config.greeting}, ${name}! (chain ${deps.chain.chainId})`;
    },
  });
  rpc.register([helloWorld]);

  return {
    start: () => logger.info('hello-world is serving hello_world'),
    stop: () => logger.info('hello-world stopped'),
  };
};

export default setup;
