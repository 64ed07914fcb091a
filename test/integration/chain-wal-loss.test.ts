import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { killIfRunning, runCli, startNodeProcess, type NodeProcess } from '../support/cli.js';
import { blockNumber, sleep } from '../support/chain-kit.js';

/** Blocks produced before the kill: enough that the cut below falls well after the genesis block. */
const BLOCKS_BEFORE_KILL = 60;
/** The part of the newest write-ahead log kept by the cut. */
const KEPT_FRACTION = 0.6;

describe('chain durability: a write-ahead log cut short', function () {
  this.timeout(120_000);
  let home: string;
  let running: NodeProcess | undefined;
  before(() => {
    home = mkdtempSync(path.join(tmpdir(), 'evmnode-wal-loss-'));
  });
  after(async () => {
    await killIfRunning(running);
    rmSync(home, { recursive: true, force: true });
  });

  it('refuses to start below the acknowledged head, naming both heights, and starts there when told to', async () => {
    const data = path.join(home, 'data');
    const marker = path.join(data, 'head-marker.json');
    const markedHeight = () => (JSON.parse(readFileSync(marker, 'utf8')) as { height: number }).height;

    running = await startNodeProcess(['--home', home, '--consensus.block_time', '20ms']);
    const first = running;
    let acknowledged = 0;
    while ((acknowledged = await blockNumber(first.url)) < BLOCKS_BEFORE_KILL) await sleep(50);
    // The marker follows published blocks off their path: let it reach the height a client saw.
    while (!existsSync(marker) || markedHeight() < acknowledged) await sleep(20);
    first.child.kill('SIGKILL');
    expect(await first.exited).to.equal(null);
    expect(first.child.signalCode).to.equal('SIGKILL');
    const marked = markedHeight();
    expect(marked).to.be.at.least(acknowledged);

    // Every block since the database was opened is a record of the newest WAL file (`NNNNNN.log`):
    // RocksDB moves the log into a table only when its memtable fills (4 MiB), far beyond these
    // blocks. SIGKILL alone loses nothing (the kernel still holds the file's pages); a power cut
    // before the sync, or a disk that dropped writes, leaves the file's tail missing, which cutting
    // the file reproduces. At open RocksDB replays the log up to its first incomplete record and
    // accepts the loss silently (its default recovery mode, point-in-time), so its head is the
    // last block whose batch lies wholly before the cut: older than the one the marker names.
    const logs = readdirSync(data)
      .filter((name) => /^\d+\.log$/.test(name))
      .sort();
    const newest = path.join(data, logs.at(-1)!);
    truncateSync(newest, Math.floor(statSync(newest).size * KEPT_FRACTION));

    const freePorts = ['--evm.http_port', '0', '--evm.ws_port', '0', '--native.rpc_port', '0'];
    const refused = await runCli(['start', '--home', home, ...freePorts]);
    expect(refused.code, refused.stderr).to.equal(1);
    const databaseHead = Number(/^evmnode: the database's head is block (\d+) /.exec(refused.stderr)?.[1]);
    expect(databaseHead, refused.stderr).to.be.within(1, acknowledged - 1);
    expect(refused.stderr).to.equal(
      `evmnode: the database's head is block ${databaseHead} but this node had acknowledged block ${marked} ` +
        `(head marker ${marker}): its write-ahead log was cut short or the disk lost writes. Restore the data ` +
        `directory from a backup, or start with --state.accept_rollback true to continue from block ${databaseHead}.\n`,
    );
    expect(markedHeight(), 'a refused start leaves the marker').to.equal(marked);

    // Told to accept the loss, it starts at the database's head (no empty blocks: the head stays
    // there), warns with both heights and moves the marker down to it.
    const quiet = ['--home', home, '--consensus.create_empty_blocks', 'false'];
    running = await startNodeProcess([...quiet, '--state.accept_rollback', 'true']);
    expect(await blockNumber(running.url)).to.equal(databaseHead);
    expect(running.logs.find((line) => line.level === 40)).to.deep.include({
      module: 'storage',
      databaseHead,
      acknowledged: marked,
      msg: `continuing from block ${databaseHead} although this node had acknowledged block ${marked} ([state] accept_rollback): the blocks after it were lost`,
    });
    expect(markedHeight()).to.equal(databaseHead);
    running.child.kill('SIGTERM');
    expect(await running.exited).to.equal(0);

    // The marker now agrees with the database: an ordinary start goes through.
    running = await startNodeProcess(quiet);
    expect(await blockNumber(running.url)).to.equal(databaseHead);
    expect(running.logs.filter((line) => line.level === 40)).to.deep.equal([]);
    running.child.kill('SIGTERM');
    expect(await running.exited).to.equal(0);
  });
});
