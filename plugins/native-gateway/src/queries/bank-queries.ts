import type { NativeLayer } from '@evmnode/core';
import {
  QueryAllBalancesRequest,
  QueryAllBalancesResponse,
  QueryBalanceRequest,
  QueryBalanceResponse,
} from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { paginate } from './pagination.js';
import { decodeRequest, isNativeAddressError, QueryError, type QueryHandler } from './query-error.js';

/** Reads with a bech32 address; the bank module words a bad one as `invalid address: <reason>`. */
async function withAddress<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw isNativeAddressError(error) ? QueryError.invalidArgument(`invalid address: ${error.message}`) : error;
  }
}

/** `/cosmos.bank.v1beta1.Query/Balance`: any denomination, zero when none is held. */
export function balanceQuery(native: NativeLayer): QueryHandler {
  return {
    path: '/cosmos.bank.v1beta1.Query/Balance',
    async handle(data) {
      const { address, denom } = decodeRequest(QueryBalanceRequest, data);
      if (address === '') throw QueryError.invalidArgument('address cannot be empty');
      if (denom === '') throw QueryError.invalidArgument('invalid denom');
      const amount = await withAddress(() => native.balance(address, denom));
      return QueryBalanceResponse.encode({ balance: { denom, amount: amount.toString() } }).finish();
    },
  };
}

/** `/cosmos.bank.v1beta1.Query/AllBalances`: the non-zero balances, by denomination, paged as the SDK pages its store. */
export function allBalancesQuery(native: NativeLayer): QueryHandler {
  const encoder = new TextEncoder();
  return {
    path: '/cosmos.bank.v1beta1.Query/AllBalances',
    async handle(data) {
      const { address, pagination: pageRequest } = decodeRequest(QueryAllBalancesRequest, data);
      if (address === '') throw QueryError.invalidArgument('address cannot be empty');
      const coins = await withAddress(() => native.allBalances(address));
      let paged: ReturnType<typeof paginate<(typeof coins)[number]>>;
      try {
        paged = paginate(coins, (coin) => encoder.encode(coin.denom), pageRequest);
      } catch (error) {
        throw QueryError.invalidArgument(`paginate: ${(error as Error).message}`);
      }
      return QueryAllBalancesResponse.encode({
        balances: paged.page.map((coin) => ({ denom: coin.denom, amount: coin.amount.toString() })),
        pagination: paged.pagination,
      }).finish();
    },
  };
}
