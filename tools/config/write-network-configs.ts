/**
 * Writes config/<network>/app.toml for every network: the file `evmnode init --node.network
 * <network>` writes, kept in the repository so that operators can read every key and default.
 * Run it (npm run config:write) after changing the schema; a test fails while they differ.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { initialConfig } from '@evmnode/core/internal';

const configDir = fileURLToPath(new URL('../../../config', import.meta.url));

for (const network of ['local', 'testnet', 'mainnet']) {
  const file = path.join(configDir, network, 'app.toml');
  mkdirSync(path.dirname(file), { recursive: true });
  // Defaults and the network only: no file, environment or flag of this machine.
  const { appToml } = await initialConfig({ home: '/nonexistent', env: {}, flags: ['--node.network', network] });
  writeFileSync(file, appToml);
  process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
}
