import { expect } from 'chai';
import {
  CrossVmError,
  ErrorCode,
  ExecutionRevertedError,
  InternalError,
  InvalidInputError,
  InvalidParamsError,
  InvalidRequestError,
  isRpcError,
  LimitExceededError,
  MethodNotFoundError,
  MethodNotSupportedError,
  ParseError,
  ResourceNotFoundError,
  ResourceUnavailableError,
  RPC_ERROR_CLASSES,
  RpcError,
  SyntheticTxError,
  TransactionRejectedError,
  VersionNotSupportedError,
} from '@evmnode/core';

/** `Error(string)` revert data for the reason "boom". */
const REVERT_DATA =
  '0x08c379a0' +
  '0000000000000000000000000000000000000000000000000000000000000020' +
  '0000000000000000000000000000000000000000000000000000000000000004' +
  '626f6f6d00000000000000000000000000000000000000000000000000000000';

/** One instance of every error class, built with each constructor's arguments. */
const INSTANCES: readonly RpcError[] = [
  new ParseError(),
  new InvalidRequestError(),
  new MethodNotFoundError('m'),
  new InvalidParamsError('p'),
  new InternalError(),
  new InvalidInputError('i'),
  new ResourceNotFoundError('r'),
  new ResourceUnavailableError('u'),
  new TransactionRejectedError('t'),
  new MethodNotSupportedError('s'),
  new LimitExceededError('l'),
  new VersionNotSupportedError('v'),
  new CrossVmError('c', 'd'),
  new SyntheticTxError('y'),
  new ExecutionRevertedError(undefined, '0x'),
];

describe('ErrorCode', () => {
  const codes: number[] = Object.values(ErrorCode);

  it('holds exactly the codes of the interface spec, the JSON-RPC ones and 3', () => {
    expect([...codes].sort((a, b) => a - b)).to.deep.equal([
      -32700, -32603, -32602, -32601, -32600, -32501, -32500, -32006, -32005, -32004, -32003, -32002, -32001, -32000, 3,
    ]);
  });

  it('uses no number twice', () => {
    expect(new Set(codes).size).to.equal(codes.length);
    expect(codes.length).to.equal(15);
  });

  it('names each code', () => {
    expect(ErrorCode.ParseError).to.equal(-32700);
    expect(ErrorCode.InvalidRequest).to.equal(-32600);
    expect(ErrorCode.MethodNotFound).to.equal(-32601);
    expect(ErrorCode.InvalidParams).to.equal(-32602);
    expect(ErrorCode.Internal).to.equal(-32603);
    expect(ErrorCode.InvalidInput).to.equal(-32000);
    expect(ErrorCode.ResourceNotFound).to.equal(-32001);
    expect(ErrorCode.ResourceUnavailable).to.equal(-32002);
    expect(ErrorCode.TransactionRejected).to.equal(-32003);
    expect(ErrorCode.MethodNotSupported).to.equal(-32004);
    expect(ErrorCode.LimitExceeded).to.equal(-32005);
    expect(ErrorCode.VersionNotSupported).to.equal(-32006);
    expect(ErrorCode.CrossVm).to.equal(-32500);
    expect(ErrorCode.SyntheticTx).to.equal(-32501);
    expect(ErrorCode.ExecutionReverted).to.equal(3);
  });
});

describe('RPC_ERROR_CLASSES', () => {
  it('lists exactly the exported error classes', () => {
    expect([...RPC_ERROR_CLASSES]).to.have.members([
      ParseError,
      InvalidRequestError,
      MethodNotFoundError,
      InvalidParamsError,
      InternalError,
      InvalidInputError,
      ResourceNotFoundError,
      ResourceUnavailableError,
      TransactionRejectedError,
      MethodNotSupportedError,
      LimitExceededError,
      VersionNotSupportedError,
      CrossVmError,
      SyntheticTxError,
      ExecutionRevertedError,
    ]);
    expect(RPC_ERROR_CLASSES.length).to.equal(15);
  });

  for (const code of Object.values(ErrorCode)) {
    it(`has exactly one class for code ${code}`, () => {
      expect(RPC_ERROR_CLASSES.filter((errorClass) => errorClass.code === code)).to.have.lengthOf(1);
    });
  }

  for (const errorClass of RPC_ERROR_CLASSES) {
    it(`gives ${errorClass.name} instances its static code ${errorClass.code}`, () => {
      const instances = INSTANCES.filter((instance) => Object.getPrototypeOf(instance) === errorClass.prototype);
      expect(instances).to.have.lengthOf(1);
      expect(instances[0]!.code).to.equal(errorClass.code);
    });
  }

  it('builds instances that are Errors and RpcErrors named after their class', () => {
    for (const instance of INSTANCES) {
      expect(instance).to.be.instanceOf(Error);
      expect(instance).to.be.instanceOf(RpcError);
      expect(instance.name).to.equal(instance.constructor.name);
    }
    // As written in the source, whatever the bundler does to a class that names itself in its body.
    expect(INSTANCES.map(({ name }) => name)).to.deep.equal([
      'ParseError',
      'InvalidRequestError',
      'MethodNotFoundError',
      'InvalidParamsError',
      'InternalError',
      'InvalidInputError',
      'ResourceNotFoundError',
      'ResourceUnavailableError',
      'TransactionRejectedError',
      'MethodNotSupportedError',
      'LimitExceededError',
      'VersionNotSupportedError',
      'CrossVmError',
      'SyntheticTxError',
      'ExecutionRevertedError',
    ]);
  });
});

describe('isRpcError', () => {
  it('recognises every error class', () => {
    for (const instance of INSTANCES) expect(isRpcError(instance), instance.name).to.equal(true);
    expect(isRpcError(new RpcError(-32000, 'x'))).to.equal(true);
  });

  it("recognises an error branded by a second copy of core, which is not an instance of this copy's class", () => {
    const foreign = { [Symbol.for('evmnode.rpc-error')]: true, code: -32000, message: 'x' };
    expect(foreign).not.to.be.instanceOf(RpcError);
    expect(isRpcError(foreign)).to.equal(true);
  });

  it('rejects plain Errors, plain {code, message} objects, null, undefined and strings', () => {
    expect(isRpcError(new Error('x'))).to.equal(false);
    expect(isRpcError({ code: -32000, message: 'x' })).to.equal(false);
    expect(isRpcError(null)).to.equal(false);
    expect(isRpcError(undefined)).to.equal(false);
    expect(isRpcError('execution reverted')).to.equal(false);
  });
});

describe('RpcError', () => {
  it('omits data from toJSON when it is undefined', () => {
    const json = new InvalidInputError('bad').toJSON();
    expect(json).to.deep.equal({ code: -32000, message: 'bad' });
    expect(Object.keys(json)).to.deep.equal(['code', 'message']);
  });

  it('includes data in toJSON when it is defined, even when falsy', () => {
    expect(new InvalidInputError('bad', { field: 'x' }).toJSON()).to.deep.equal({
      code: -32000,
      message: 'bad',
      data: { field: 'x' },
    });
    expect(new RpcError(-32000, 'bad', 0).toJSON()).to.deep.equal({ code: -32000, message: 'bad', data: 0 });
    expect(new RpcError(-32000, 'bad', null).toJSON()).to.deep.equal({ code: -32000, message: 'bad', data: null });
  });

  it('serialises to the JSON-RPC error member', () => {
    expect(JSON.stringify(new MethodNotSupportedError('nope'))).to.equal('{"code":-32004,"message":"nope"}');
  });
});

describe('error classes', () => {
  it('CrossVmError carries its details in data', () => {
    const error = new CrossVmError('x', 'details');
    expect(error.code).to.equal(-32500);
    expect(error.message).to.equal('x');
    expect(error.data).to.deep.equal({ details: 'details' });
  });

  it('ExecutionRevertedError has code 3, the reason in the message and the revert data', () => {
    const error = new ExecutionRevertedError('boom', REVERT_DATA);
    expect(error.toJSON()).to.deep.equal({ code: 3, message: 'execution reverted: boom', data: REVERT_DATA });
  });

  it('ExecutionRevertedError without a reason says only "execution reverted"', () => {
    const error = new ExecutionRevertedError(undefined, '0x');
    expect(error.toJSON()).to.deep.equal({ code: 3, message: 'execution reverted', data: '0x' });
  });

  it('TransactionRejectedError keeps the native check code and codespace', () => {
    const error = new TransactionRejectedError('nonce too low: next nonce 1, tx nonce 0', {
      code: 3,
      codespace: 'sdk',
    });
    expect(error.toJSON()).to.deep.equal({
      code: -32003,
      message: 'nonce too low: next nonce 1, tx nonce 0',
      data: { code: 3, codespace: 'sdk' },
    });
  });

  it("MethodNotFoundError.forMethod uses geth's wording", () => {
    const error = MethodNotFoundError.forMethod('eth_foo');
    expect(error).to.be.instanceOf(MethodNotFoundError);
    expect(error.code).to.equal(-32601);
    expect(error.message).to.equal('the method eth_foo does not exist/is not available');
    expect(error.data).to.equal(undefined);
  });

  it('uses the default messages of the JSON-RPC errors', () => {
    expect(new ParseError().message).to.equal('parse error');
    expect(new InvalidRequestError().message).to.equal('invalid request');
    expect(new InternalError().message).to.equal('internal error');
  });
});
