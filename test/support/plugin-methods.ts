import { pino } from 'pino';
import type { MethodDefinition, PluginManifest } from '@evmnode/core';

/**
 * The methods a plugin registers: its setup run with a context that records `rpc.register`. The
 * setup receives `deps` as given; it only wires them into handlers, which are not called here.
 */
export async function methodsRegisteredBy(
  manifest: PluginManifest<any, any>,
  deps: Record<string, unknown>,
): Promise<MethodDefinition[]> {
  const registered: MethodDefinition[] = [];
  const { default: setup } = await manifest.setup();
  await setup({
    id: manifest.id,
    config: {},
    home: '',
    env: {},
    deps,
    logger: pino({ level: 'silent' }),
    rpc: { register: (methods) => void registered.push(...methods), addHook: () => undefined },
    provide: () => undefined,
  });
  return registered;
}

/** A service a setup may hold but must not use while it sets up: any use throws. */
export function unusedDuringSetup(name: string): unknown {
  return new Proxy(
    {},
    {
      get: (_, property) => {
        throw new Error(`${name}.${String(property)} was used during setup`);
      },
    },
  );
}
