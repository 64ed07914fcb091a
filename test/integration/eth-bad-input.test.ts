import { expect } from 'chai';
import debugTrace from '@evmnode/plugin-debug-trace';
import ethQuery from '@evmnode/plugin-eth-query';
import txpool from '@evmnode/plugin-txpool';
import { Database } from '@evmnode/core';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { CHAIN_ID } from '../support/chain-kit.js';
import { methodsRegisteredBy, unusedDuringSetup } from '../support/plugin-methods.js';
import { post } from '../support/rpc-client.js';

// Malformed parameters get -32602 with geth's wording (decisions.md D3). Each expected message is
// what geth's rpc package answers for the Go type of the parameter: parseArgumentArray's
// `missing value for required argument N`, `too many arguments, want at most N` and
// `invalid argument N: <decoding error>`, where the decoding error is encoding/json's (`json:
// cannot unmarshal <kind> into Go value of type <T>`, `... into Go struct field <Struct>.<field> of
// type <T>`) or the type's own UnmarshalJSON: hexutil wraps its syntax errors in json's form but
// not its length errors; rpc.BlockNumber and rpc.BlockNumberOrHash return theirs bare.

/** A malformed `params` member and the message geth answers it with. */
interface BadInput {
  readonly params: unknown;
  readonly message: string;
}

const ADDRESS = `0x${'11'.repeat(20)}`;
const SHORT_ADDRESS = `0x${'11'.repeat(19)}`;
const HASH = `0x${'22'.repeat(32)}`;
const NOT_HEX_HASH = `0x${'zz'.repeat(32)}`;
/** encoding/json's error for a value it cannot decode into `goType`. */
const unmarshal = (what: string, goType: string): string =>
  `json: cannot unmarshal ${what} into Go value of type ${goType}`;
/** The same, for a field of a trace config. */
const traceField = (what: string, name: string, goType: string): string =>
  `json: cannot unmarshal ${what} into Go struct field TraceConfig.${name} of type ${goType}`;
/** The same, for a field of a call object. */
const field = (what: string, name: string, goType: string): string =>
  `json: cannot unmarshal ${what} into Go struct field TransactionArgs.${name} of type ${goType}`;

const missing = (index: number): string => `missing value for required argument ${index}`;
const tooMany = (most: number): string => `too many arguments, want at most ${most}`;
const invalid = (index: number, reason: string): string => `invalid argument ${index}: ${reason}`;

/** A method without parameters. */
const NO_PARAMS: BadInput[] = [
  { params: [1], message: tooMany(0) },
  { params: ['latest'], message: tooMany(0) },
  { params: [null], message: tooMany(0) },
];

/** One `common.Hash`. */
const ONE_HASH: BadInput[] = [
  { params: [], message: missing(0) },
  { params: [ADDRESS], message: invalid(0, 'hex string has length 40, want 64 for common.Hash') },
  { params: [HASH.slice(0, -1)], message: invalid(0, unmarshal('hex string of odd length', 'common.Hash')) },
  { params: [HASH.slice(2)], message: invalid(0, unmarshal('hex string without 0x prefix', 'common.Hash')) },
  { params: [NOT_HEX_HASH], message: invalid(0, unmarshal('invalid hex string', 'common.Hash')) },
  { params: [true], message: invalid(0, unmarshal('non-string', 'common.Hash')) },
  { params: [null], message: invalid(0, unmarshal('non-string', 'common.Hash')) },
  { params: [HASH, true], message: tooMany(1) },
];

/** One `rpc.BlockNumberOrHash`. */
const ONE_BLOCK_REF: BadInput[] = [
  { params: [], message: missing(0) },
  { params: [5], message: invalid(0, unmarshal('number', 'string')) },
  { params: [true], message: invalid(0, unmarshal('bool', 'string')) },
  { params: ['Latest'], message: invalid(0, 'hex string without 0x prefix') },
  { params: ['0x01'], message: invalid(0, 'hex number with leading zero digits') },
  { params: ['0xzz'], message: invalid(0, 'invalid hex string') },
  { params: [NOT_HEX_HASH], message: invalid(0, 'invalid hex string') },
  { params: ['0x8000000000000000'], message: invalid(0, 'blocknumber too high') },
  {
    params: [{ blockNumber: '0x1', blockHash: HASH }],
    message: invalid(0, 'cannot specify both BlockHash and BlockNumber, choose one or the other'),
  },
  // geth decodes the object as a struct first and, when that fails, reports the string fallback's error.
  { params: [{ blockHash: '0x12' }], message: invalid(0, unmarshal('object', 'string')) },
  { params: ['latest', true], message: tooMany(1) },
];

/** A `common.Address` and an optional `rpc.BlockNumberOrHash`. */
const ADDRESS_AND_BLOCK: BadInput[] = [
  { params: [], message: missing(0) },
  { params: [SHORT_ADDRESS, 'latest'], message: invalid(0, 'hex string has length 38, want 40 for common.Address') },
  {
    params: [ADDRESS.slice(2), 'latest'],
    message: invalid(0, unmarshal('hex string without 0x prefix', 'common.Address')),
  },
  { params: [[ADDRESS], 'latest'], message: invalid(0, unmarshal('non-string', 'common.Address')) },
  { params: [ADDRESS, 'Latest'], message: invalid(1, 'hex string without 0x prefix') },
  { params: [ADDRESS, 'earliest '], message: invalid(1, 'hex string without 0x prefix') },
  { params: [ADDRESS, 1], message: invalid(1, unmarshal('number', 'string')) },
  { params: [ADDRESS, { blockHash: HASH.slice(0, -2) }], message: invalid(1, unmarshal('object', 'string')) },
  { params: [ADDRESS, 'latest', true], message: tooMany(2) },
];

/** A transaction call object (`ethapi.TransactionArgs`) first. */
const CALL_OBJECT: BadInput[] = [
  { params: [], message: missing(0) },
  { params: ['0x'], message: invalid(0, unmarshal('string', 'ethapi.TransactionArgs')) },
  { params: [[]], message: invalid(0, unmarshal('array', 'ethapi.TransactionArgs')) },
  { params: [{ to: '0x12' }], message: invalid(0, 'hex string has length 2, want 40 for common.Address') },
  {
    params: [{ to: ADDRESS.slice(2) }],
    message: invalid(0, field('hex string without 0x prefix', 'to', 'common.Address')),
  },
  { params: [{ from: 5 }], message: invalid(0, field('non-string', 'from', 'common.Address')) },
  { params: [{ gas: 21_000 }], message: invalid(0, field('non-string', 'gas', 'hexutil.Uint64')) },
  { params: [{ nonce: '0x' }], message: invalid(0, field('hex string "0x"', 'nonce', 'hexutil.Uint64')) },
  {
    params: [{ value: '0x01' }],
    message: invalid(0, field('hex number with leading zero digits', 'value', '*hexutil.Big')),
  },
  { params: [{ input: '0xabc' }], message: invalid(0, field('hex string of odd length', 'input', 'hexutil.Bytes')) },
];

const BAD_INPUTS: Readonly<Record<string, readonly BadInput[]>> = {
  eth_chainId: NO_PARAMS,
  net_version: NO_PARAMS,
  web3_clientVersion: NO_PARAMS,
  eth_blockNumber: NO_PARAMS,
  eth_coinbase: NO_PARAMS,
  eth_gasPrice: NO_PARAMS,
  eth_maxPriorityFeePerGas: NO_PARAMS,
  eth_syncing: NO_PARAMS,
  eth_blobBaseFee: NO_PARAMS,
  eth_feeHistory: [
    { params: [], message: missing(0) },
    { params: ['0x1'], message: missing(1) },
    // geth's rewardPercentiles is a []float64, not a pointer: it is required (null is an empty list).
    { params: ['0x1', 'latest'], message: missing(2) },
    // math.HexOrDecimal64 parses the raw JSON text of the value, quotes removed.
    { params: [true, 'latest', []], message: invalid(0, 'invalid hex or decimal integer "true"') },
    { params: [1.5, 'latest', []], message: invalid(0, 'invalid hex or decimal integer "1.5"') },
    { params: ['-1', 'latest', []], message: invalid(0, 'invalid hex or decimal integer "-1"') },
    { params: ['0x', 'latest', []], message: invalid(0, 'invalid hex or decimal integer "0x"') },
    { params: [{}, 'latest', []], message: invalid(0, 'invalid hex or decimal integer "{}"') },
    {
      params: ['18446744073709551616', 'latest', []],
      message: invalid(0, 'invalid hex or decimal integer "18446744073709551616"'),
    },
    // Refused before the digits are read as a number: a million decimal digits took most of a second.
    ...[`0x1${'0'.repeat(16)}`, '9'.repeat(100_000)].map((count) => ({
      params: [count, 'latest', []],
      message: invalid(0, `invalid hex or decimal integer "${count}"`),
    })),
    { params: ['0x1', 'Latest', []], message: invalid(1, 'hex string without 0x prefix') },
    { params: ['0x1', 'latest', 50], message: invalid(2, unmarshal('number', '[]float64')) },
    { params: ['0x1', 'latest', ['50']], message: invalid(2, unmarshal('string', 'float64')) },
    { params: ['0x1', 'latest', [], 1], message: tooMany(3) },
  ],
  eth_getBlockByNumber: [
    { params: [], message: missing(0) },
    { params: ['latest'], message: missing(1) },
    { params: ['Latest', false], message: invalid(0, 'hex string without 0x prefix') },
    { params: ['1', false], message: invalid(0, 'hex string without 0x prefix') },
    { params: [1, false], message: invalid(0, 'hex string without 0x prefix') },
    { params: ['', false], message: invalid(0, 'empty hex string') },
    { params: ['0x', false], message: invalid(0, 'hex string "0x"') },
    { params: ['0x01', false], message: invalid(0, 'hex number with leading zero digits') },
    { params: ['0xg', false], message: invalid(0, 'invalid hex string') },
    { params: ['0x10000000000000000', false], message: invalid(0, 'hex number > 64 bits') },
    { params: ['0x8000000000000000', false], message: invalid(0, 'block number larger than int64') },
    { params: ['latest', 'true'], message: invalid(1, unmarshal('string', 'bool')) },
    { params: ['latest', 1], message: invalid(1, unmarshal('number', 'bool')) },
    { params: ['latest', false, true], message: tooMany(2) },
  ],
  eth_getBlockByHash: [
    { params: [], message: missing(0) },
    { params: [HASH], message: missing(1) },
    { params: [HASH.slice(0, -2), true], message: invalid(0, 'hex string has length 62, want 64 for common.Hash') },
    { params: ['latest', true], message: invalid(0, unmarshal('hex string without 0x prefix', 'common.Hash')) },
    { params: [1, true], message: invalid(0, unmarshal('non-string', 'common.Hash')) },
    { params: [HASH, 'false'], message: invalid(1, unmarshal('string', 'bool')) },
    { params: [HASH, true, 1], message: tooMany(2) },
  ],
  eth_getBlockTransactionCountByNumber: [
    { params: [], message: missing(0) },
    { params: ['pending '], message: invalid(0, 'hex string without 0x prefix') },
    { params: [{}], message: invalid(0, 'hex string without 0x prefix') },
    { params: ['0x01'], message: invalid(0, 'hex number with leading zero digits') },
    { params: ['latest', 1], message: tooMany(1) },
  ],
  eth_getBlockTransactionCountByHash: ONE_HASH,
  eth_getBlockReceipts: ONE_BLOCK_REF,
  eth_getTransactionByHash: ONE_HASH,
  eth_getTransactionReceipt: ONE_HASH,
  eth_getTransactionByBlockNumberAndIndex: [
    { params: [], message: missing(0) },
    { params: ['latest'], message: missing(1) },
    // The index is geth's hexutil.Uint.
    { params: ['latest', 0], message: invalid(1, unmarshal('non-string', 'hexutil.Uint')) },
    { params: ['latest', '1'], message: invalid(1, unmarshal('hex string without 0x prefix', 'hexutil.Uint')) },
    { params: ['latest', '0x'], message: invalid(1, unmarshal('hex string "0x"', 'hexutil.Uint')) },
    {
      params: ['latest', '0x00'],
      message: invalid(1, unmarshal('hex number with leading zero digits', 'hexutil.Uint')),
    },
    {
      params: ['latest', '0x10000000000000000'],
      message: invalid(1, unmarshal('hex number > 64 bits', 'hexutil.Uint')),
    },
    { params: ['earliest ', '0x0'], message: invalid(0, 'hex string without 0x prefix') },
    { params: ['latest', '0x0', 1], message: tooMany(2) },
  ],
  eth_getTransactionByBlockHashAndIndex: [
    { params: [HASH], message: missing(1) },
    { params: ['latest', '0x0'], message: invalid(0, unmarshal('hex string without 0x prefix', 'common.Hash')) },
    { params: [HASH, 1], message: invalid(1, unmarshal('non-string', 'hexutil.Uint')) },
    { params: [HASH, '0xg'], message: invalid(1, unmarshal('invalid hex string', 'hexutil.Uint')) },
    { params: [HASH, '0x0', 1], message: tooMany(2) },
  ],
  eth_getTransactionCount: ADDRESS_AND_BLOCK,
  eth_getNonce: [
    { params: [], message: missing(0) },
    { params: [SHORT_ADDRESS], message: invalid(0, 'hex string has length 38, want 40 for common.Address') },
    { params: [1], message: invalid(0, unmarshal('non-string', 'common.Address')) },
    // Latest state only: no block parameter.
    { params: [ADDRESS, 'latest'], message: tooMany(1) },
  ],
  eth_getVMError: ONE_HASH,
  eth_getTransactionErrorByHash: ONE_HASH,
  eth_getBalance: ADDRESS_AND_BLOCK,
  eth_getCode: ADDRESS_AND_BLOCK,
  eth_getAccountInfo: ADDRESS_AND_BLOCK,
  eth_getStorageAt: [
    { params: [], message: missing(0) },
    { params: [ADDRESS], message: missing(1) },
    // The key is a Go string, decoded into a slot only after the arguments and the block.
    { params: [ADDRESS, 0], message: invalid(1, unmarshal('number', 'string')) },
    { params: [ADDRESS, ['0x0']], message: invalid(1, unmarshal('array', 'string')) },
    { params: [ADDRESS, '0x0', 'pending!'], message: invalid(2, 'hex string without 0x prefix') },
    { params: [ADDRESS, `0x${'11'.repeat(33)}`, 'bogus'], message: invalid(2, 'hex string without 0x prefix') },
    { params: [ADDRESS, '0x0', 'latest', 1], message: tooMany(3) },
  ],
  eth_getProof: [
    { params: [ADDRESS], message: missing(1) },
    { params: [SHORT_ADDRESS, []], message: invalid(0, 'hex string has length 38, want 40 for common.Address') },
    { params: [ADDRESS, '0x0'], message: invalid(1, unmarshal('string', '[]string')) },
    { params: [ADDRESS, [0]], message: invalid(1, unmarshal('number', 'string')) },
    { params: [ADDRESS, [], 'Latest'], message: invalid(2, 'hex string without 0x prefix') },
    { params: [ADDRESS, [], 'latest', 1], message: tooMany(3) },
  ],
  eth_call: [
    ...CALL_OBJECT,
    { params: [{}, 'Latest'], message: invalid(1, 'hex string without 0x prefix') },
    { params: [{}, 'latest', {}, {}, 1], message: tooMany(4) },
  ],
  eth_estimateGas: [
    ...CALL_OBJECT,
    { params: [{}, 5], message: invalid(1, unmarshal('number', 'string')) },
    { params: [{}, 'latest', {}, 1], message: tooMany(3) },
  ],
  eth_estimateGasAfterCalls: [
    { params: [{}], message: missing(1) },
    { params: ['0x', []], message: invalid(0, unmarshal('string', 'ethapi.TransactionArgs')) },
    { params: [{}, {}], message: invalid(1, unmarshal('object', '[]ethapi.TransactionArgs')) },
    { params: [{}, ['0x']], message: invalid(1, unmarshal('string', 'ethapi.TransactionArgs')) },
    { params: [{}, [{ to: '0x12' }]], message: invalid(1, 'hex string has length 2, want 40 for common.Address') },
    { params: [{}, [], 'Latest'], message: invalid(2, 'hex string without 0x prefix') },
    { params: [{}, [], 'latest', {}, 1], message: tooMany(4) },
  ],
  eth_createAccessList: [
    ...CALL_OBJECT,
    { params: [{}, 'pending!'], message: invalid(1, 'hex string without 0x prefix') },
    { params: [{}, 'latest', 1], message: tooMany(2) },
  ],
  eth_newPendingTransactionFilter: [
    { params: ['yes'], message: invalid(0, unmarshal('string', 'bool')) },
    { params: [1], message: invalid(0, unmarshal('number', 'bool')) },
    { params: [true, 1], message: tooMany(1) },
  ],
  debug_traceTransaction: [
    { params: [], message: missing(0) },
    { params: [ADDRESS], message: invalid(0, 'hex string has length 40, want 64 for common.Hash') },
    { params: [HASH, 'callTracer'], message: invalid(1, unmarshal('string', 'tracers.TraceConfig')) },
    { params: [HASH, { tracer: 5 }], message: invalid(1, traceField('number', 'tracer', 'string')) },
    { params: [HASH, { timeout: 5 }], message: invalid(1, traceField('number', 'timeout', 'string')) },
    { params: [HASH, {}, 1], message: tooMany(2) },
  ],
  debug_traceBlockByNumber: [
    { params: [], message: missing(0) },
    { params: ['Latest'], message: invalid(0, 'hex string without 0x prefix') },
    { params: ['0x1', 'x'], message: invalid(1, unmarshal('string', 'tracers.TraceConfig')) },
    { params: ['0x1', { disableStack: 'yes' }], message: invalid(1, traceField('string', 'disableStack', 'bool')) },
    { params: ['0x1', {}, 1], message: tooMany(2) },
  ],
  debug_traceBlockByHash: [
    { params: [], message: missing(0) },
    { params: [ADDRESS], message: invalid(0, 'hex string has length 40, want 64 for common.Hash') },
    { params: [HASH, []], message: invalid(1, unmarshal('array', 'tracers.TraceConfig')) },
    {
      params: [HASH, { tracerConfig: 5 }],
      message: invalid(1, traceField('number', 'tracerConfig', 'json.RawMessage')),
    },
    { params: [HASH, {}, 1], message: tooMany(2) },
  ],
  debug_traceCall: [
    ...CALL_OBJECT,
    { params: [{}, 'Latest'], message: invalid(1, 'hex string without 0x prefix') },
    { params: [{}, 'latest', 'x'], message: invalid(2, unmarshal('string', 'tracers.TraceCallConfig')) },
    { params: [{}, 'latest', {}, 1], message: tooMany(3) },
  ],
  debug_getRawHeader: ONE_BLOCK_REF,
  debug_getRawBlock: ONE_BLOCK_REF,
  debug_getRawReceipts: ONE_BLOCK_REF,
  debug_getRawTransaction: ONE_HASH,
  debug_traceStateAccess: ONE_HASH,
  txpool_content: [
    { params: [1], message: tooMany(0) },
    { params: ['latest'], message: tooMany(0) },
    { params: [null], message: tooMany(0) },
  ],
  eth_sendRawTransaction: [
    { params: [], message: missing(0) },
    { params: ['abcd'], message: invalid(0, unmarshal('hex string without 0x prefix', 'hexutil.Bytes')) },
    { params: ['0xabc'], message: invalid(0, unmarshal('hex string of odd length', 'hexutil.Bytes')) },
    { params: ['0xzz'], message: invalid(0, unmarshal('invalid hex string', 'hexutil.Bytes')) },
    { params: [5], message: invalid(0, unmarshal('non-string', 'hexutil.Bytes')) },
    { params: ['0x00', '0x00'], message: tooMany(1) },
  ],
};

/** `params` that is not an array, which geth refuses for every method before looking at the method's types. */
const NOT_AN_ARRAY: readonly BadInput[] = [
  { params: {}, message: 'non-array args' },
  { params: 'latest', message: 'non-array args' },
];

describe('malformed parameters: -32602 with geth wording, for every eth-query, debug-trace and txpool method and eth_sendRawTransaction', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode();
  });
  after(() => node.stop());

  /** The error of each call, in the order of `inputs`. */
  async function errorsOf(method: string, inputs: readonly BadInput[]): Promise<unknown[]> {
    const errors = [];
    for (const { params } of inputs) {
      const { text } = await post(node.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));
      const answer = JSON.parse(text);
      errors.push(answer.error ?? { result: answer.result });
    }
    return errors;
  }

  it('has at least three malformed inputs for each method eth-query, debug-trace and txpool register, and for eth_sendRawTransaction', async () => {
    const registered = [
      ...(await methodsRegisteredBy(ethQuery, {
        info: { network: 'local', chainId: CHAIN_ID },
        chain: node.node.chain,
        pool: unusedDuringSetup('pool'),
        views: unusedDuringSetup('views'),
        simulator: unusedDuringSetup('simulator'),
        config: node.node.config.core,
      })),
      ...(await methodsRegisteredBy(debugTrace, {
        replayer: unusedDuringSetup('replayer'),
        chain: unusedDuringSetup('chain'),
        config: node.node.config.core,
        database: await Database.inMemory(),
      })),
      ...(await methodsRegisteredBy(txpool, {
        pool: unusedDuringSetup('pool'),
        views: unusedDuringSetup('views'),
        config: node.node.config.core,
      })),
    ];
    const names = [...registered.map(({ name }) => name), 'eth_sendRawTransaction'];
    expect(Object.keys(BAD_INPUTS).sort()).to.deep.equal(names.sort());
    for (const [method, inputs] of Object.entries(BAD_INPUTS)) expect(inputs.length, method).to.be.at.least(3);
  });

  for (const [method, inputs] of Object.entries(BAD_INPUTS)) {
    it(`${method}: ${inputs.length + NOT_AN_ARRAY.length} malformed inputs`, async () => {
      const cases = [...inputs, ...NOT_AN_ARRAY];
      const answers = await errorsOf(method, cases);
      const rows = (answer: (input: BadInput, index: number) => unknown) =>
        cases.map((input, index) => ({ params: input.params, answer: answer(input, index) }));
      expect(rows((_, index) => answers[index])).to.deep.equal(rows(({ message }) => ({ code: -32602, message })));
    });
  }
});
