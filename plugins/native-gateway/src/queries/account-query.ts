import type { NativeLayer } from '@evmnode/core';
import { BaseAccount } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import { QueryAccountRequest, QueryAccountResponse } from 'cosmjs-types/cosmos/auth/v1beta1/query';
import { PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys';
import { Any } from 'cosmjs-types/google/protobuf/any';
import { decodeRequest, isNativeAddressError, QueryError, type QueryHandler } from './query-error.js';

/** `/cosmos.auth.v1beta1.Query/Account`: a `BaseAccount`, as the auth module of the reference chain answers. */
export function accountQuery(native: NativeLayer): QueryHandler {
  return {
    path: '/cosmos.auth.v1beta1.Query/Account',
    async handle(data) {
      const { address } = decodeRequest(QueryAccountRequest, data);
      if (address === '') throw QueryError.invalidArgument('Address cannot be empty');
      const account = await native.account(address).catch((error: unknown) => {
        // The auth module returns the address error as it is, not as a gRPC status.
        throw isNativeAddressError(error) ? QueryError.invalidRequest(error.message) : error;
      });
      if (account === undefined) throw QueryError.notFound(`account ${address} not found`);
      const pubKey =
        account.pubKey === undefined
          ? undefined
          : Any.fromPartial({
              typeUrl: '/cosmos.crypto.secp256k1.PubKey',
              value: PubKey.encode({ key: account.pubKey }).finish(),
            });
      const base = BaseAccount.fromPartial({
        address: account.address,
        accountNumber: account.accountNumber,
        sequence: account.sequence,
        ...(pubKey === undefined ? {} : { pubKey }),
      });
      return QueryAccountResponse.encode({
        account: Any.fromPartial({
          typeUrl: '/cosmos.auth.v1beta1.BaseAccount',
          value: BaseAccount.encode(base).finish(),
        }),
      }).finish();
    },
  };
}
