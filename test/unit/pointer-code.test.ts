import { expect } from 'chai';
import { POINTER_RUNTIME_CODE } from '@evmnode/core/internal';
import { compileNativeDenomPointer } from '@evmnode/tools/contracts/native-denom-pointer';

describe('POINTER_RUNTIME_CODE', () => {
  it('is the runtime code its Solidity source compiles to (npm run contracts:pointer)', () => {
    expect(POINTER_RUNTIME_CODE).to.equal(compileNativeDenomPointer());
  });
});
