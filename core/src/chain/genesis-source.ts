import { existsSync } from 'node:fs';
import path from 'node:path';
import { builtInGenesis, readGenesisFile, type Genesis } from './genesis.js';
import type { CoreConfig } from '../config/core-schema.js';

/** Where a node's genesis file lives. */
export function genesisFilePath(home: string): string {
  return path.join(home, 'config', 'genesis.json');
}

/** `<home>/config/genesis.json` when it exists, else the network's built-in genesis. */
export function loadGenesis(home: string, config: CoreConfig): Genesis {
  const file = genesisFilePath(home);
  return existsSync(file) ? readGenesisFile(file) : builtInGenesis(config.node.network, BigInt(config.node.chain_id));
}
