import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EvmNode } from '../node/evm-node.js';

export interface TestNodeOptions {
  /** Configuration as a nested object (`{ evm: { slow: true } }`); it wins over everything else. */
  readonly config?: Record<string, unknown>;
  /** An operator profile of `config/profiles` (`--profile NAME`). */
  readonly profile?: string;
  /** `[node] plugins`; defaults to the node's default list. */
  readonly plugins?: readonly string[];
  /** Environment variables to read instead of none. */
  readonly env?: Readonly<Record<string, string>>;
  /** `--<section>.<key> value` flags. */
  readonly flags?: readonly string[];
  /** A home folder to use (and keep) instead of a fresh temporary one. */
  readonly home?: string;
}

/** A node started for a test, on loopback with free ports and its own data directory. */
export interface TestNode {
  readonly node: EvmNode;
  readonly home: string;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** `ws://127.0.0.1:<port>` */
  readonly wsUrl: string;
  /** `http://127.0.0.1:<port>` of the native gateway (plugin `native-gateway`), or '' when it does not run. */
  readonly nativeUrl: string;
  /** Every log line the node wrote, parsed. */
  readonly logs: readonly Record<string, unknown>[];
  /** Stops the node and removes its temporary home. */
  stop(): Promise<void>;
}

function merge(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const existing = merged[key];
    merged[key] =
      typeof value === 'object' &&
      value !== null &&
      !Array.isArray(value) &&
      typeof existing === 'object' &&
      existing !== null
        ? merge(existing as Record<string, unknown>, value as Record<string, unknown>)
        : value;
  }
  return merged;
}

/**
 * Starts a real node (RocksDB in a temporary folder, HTTP and WebSocket on 127.0.0.1 with free
 * ports) that reads no environment or config file unless given.
 */
export async function startTestNode(options: TestNodeOptions = {}): Promise<TestNode> {
  const home = options.home ?? mkdtempSync(path.join(tmpdir(), 'evmnode-test-'));
  const logs: Record<string, unknown>[] = [];
  const base: Record<string, unknown> = {
    evm: { http_port: 0, ws_port: 0, listen_address: '127.0.0.1' },
    native: { rpc_port: 0 },
    logging: { level: 'info' },
    ...(options.plugins === undefined ? {} : { node: { plugins: [...options.plugins] } }),
  };
  let node: EvmNode;
  try {
    node = await EvmNode.start({
      sources: {
        home,
        profile: options.profile,
        env: options.env ?? {},
        flags: options.flags ?? [],
        overrides: merge(base, options.config ?? {}),
      },
      logDestination: { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) },
    });
  } catch (error) {
    if (options.home === undefined) rmSync(home, { recursive: true, force: true });
    throw error;
  }
  // The gateway announces its bound port in its start line, written before EvmNode.start resolves.
  const gateway = logs.find((line) => line.msg === 'native gateway listening');
  return {
    node,
    home,
    url: node.httpAddress === undefined ? '' : `http://127.0.0.1:${node.httpAddress.port}`,
    wsUrl: node.wsAddress === undefined ? '' : `ws://127.0.0.1:${node.wsAddress.port}`,
    nativeUrl: gateway === undefined ? '' : `http://127.0.0.1:${String(gateway.port)}`,
    logs,
    async stop() {
      await node.stop();
      if (options.home === undefined) rmSync(home, { recursive: true, force: true });
    },
  };
}
