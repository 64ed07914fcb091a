import { expect } from 'chai';
import { hexToBytes } from '@ethereumjs/util';
import { installCodeAnalysisCache } from '@evmnode/core/internal';

interface Analysis {
  readonly jumps: Uint8Array;
  readonly pushes: Record<number, bigint>;
  readonly opcodesCached: readonly unknown[];
}

type Analyse = (this: unknown, code: Uint8Array) => Analysis;

/** PUSH1 4, JUMP, STOP, JUMPDEST, STOP. */
const CODE = '0x600456005b00';

/** ethereumjs' interpreter analysis, as the node runs it once the cache is installed. */
async function interpreterAnalysis(): Promise<Analyse> {
  const url = new URL('./interpreter.js', import.meta.resolve('@ethereumjs/evm'));
  const { Interpreter } = (await import(url.href)) as {
    Interpreter: { prototype: { _getValidJumpDestinations: Analyse } };
  };
  return Interpreter.prototype._getValidJumpDestinations;
}

/** What the analysis reads of an interpreter: its EVM's opcode table and its Common. */
function interpreterWith(table: Record<number, unknown>) {
  return {
    _evm: { _opcodeMap: table },
    lookupOpInfo: (opcode: number) => table[opcode],
    common: { isActivatedEIP: () => false },
  };
}

const opcodeTable = (): Record<number, unknown> =>
  Object.fromEntries(Array.from({ length: 256 }, (_, opcode) => [opcode, { opcode }]));

describe('code analysis cache', () => {
  let analyse: Analyse;
  before(async () => {
    expect(await installCodeAnalysisCache()).to.equal(true);
    analyse = await interpreterAnalysis();
  });

  it("gives ethereumjs' analysis: jump destinations, push values and each byte's opcode", () => {
    const table = opcodeTable();
    const analysis = analyse.call(interpreterWith(table), hexToBytes(CODE));
    expect([...analysis.jumps]).to.deep.equal([0, 0, 0, 0, 1, 0]);
    expect(analysis.pushes).to.deep.equal({ 1: 4n });
    expect(analysis.opcodesCached[4]).to.equal(table[0x5b]);
  });

  it('analyses a code object once per opcode table', () => {
    const [table, other] = [opcodeTable(), opcodeTable()];
    const code = hexToBytes(CODE);
    const first = analyse.call(interpreterWith(table), code);
    expect(analyse.call(interpreterWith(table), code)).to.equal(first);
    // Another VM's table holds other handlers: its own analysis.
    const forOther = analyse.call(interpreterWith(other), code);
    expect(forOther).to.not.equal(first);
    expect(forOther.opcodesCached[4]).to.equal(other[0x5b]);
  });

  it('analyses again a code that is another object or a view of memory (a CREATE’s init code)', () => {
    const table = opcodeTable();
    const first = analyse.call(interpreterWith(table), hexToBytes(CODE));
    const again = analyse.call(interpreterWith(table), hexToBytes(CODE));
    expect(again).to.not.equal(first);
    expect(again.pushes).to.deep.equal(first.pushes);
    const memory = hexToBytes(`${CODE}0000`);
    const view = memory.subarray(0, 6);
    const fromView = analyse.call(interpreterWith(table), view);
    expect(analyse.call(interpreterWith(table), view)).to.not.equal(fromView);
    expect([...fromView.jumps]).to.deep.equal([0, 0, 0, 0, 1, 0]);
  });
});
