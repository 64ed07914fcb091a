import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import {
  address,
  castEvmAddress,
  castNativeAddress,
  codec,
  CodecError,
  defineMethod,
  InvalidInputError,
  jsonKind,
  objectOf,
  ResourceNotFoundError,
  string,
  type ChainReader,
  type NativeLayer,
  type RequiredCodec,
} from '@evmnode/core';

type JsonResult = Record<string, unknown>;

/** A native query: its request (the SDK's JSON field names) and its answer, as the SDK's REST gateway gives it. */
interface NativeQuery<R> {
  readonly request: RequiredCodec<R>;
  readonly answer: (request: R) => Promise<JsonResult>;
}
/** Decodes a query's request, throwing `CodecError`; the answer is read when called. */
type DecodeQuery = (request: unknown) => () => Promise<JsonResult>;

function nativeQuery<R>({ request, answer }: NativeQuery<R>): DecodeQuery {
  return (raw) => {
    const decoded = request.decode(raw);
    return () => answer(decoded);
  };
}

/** Reads with a bech32 address; the SDK's modules word a bad one as `invalid address: <reason>`. */
async function withAddress<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    // NativeAddressError, by name: the plugin's copy of core is not the node's.
    if ((error as Error).name !== 'NativeAddressError') throw error;
    throw new InvalidInputError(`invalid address: ${(error as Error).message}`);
  }
}

const coin = (denom: string, amount: bigint) => ({ denom, amount: amount.toString() });
const holderRequest = (structName: string) => objectOf(structName, { address: string });

/** The native queries the native gateway's abci_query serves, plus supply, by the SDK's gRPC path. */
function nativeQueries(chain: ChainReader, native: NativeLayer): Record<string, DecodeQuery> {
  return {
    '/cosmos.bank.v1beta1.Query/Balance': nativeQuery({
      request: objectOf('QueryBalanceRequest', { address: string, denom: string }),
      answer: async ({ address: holder, denom }) => ({
        balance: coin(denom, await withAddress(() => native.balance(holder, denom))),
      }),
    }),
    '/cosmos.bank.v1beta1.Query/AllBalances': nativeQuery({
      request: holderRequest('QueryAllBalancesRequest'),
      answer: async ({ address: holder }) => ({
        balances: (await withAddress(() => native.allBalances(holder))).map((held) => coin(held.denom, held.amount)),
      }),
    }),
    '/cosmos.bank.v1beta1.Query/SupplyOf': nativeQuery({
      request: objectOf('QuerySupplyOfRequest', { denom: string }),
      answer: async ({ denom }) => ({ amount: coin(denom, await native.supply(denom)) }),
    }),
    '/cosmos.auth.v1beta1.Query/Account': nativeQuery({
      request: holderRequest('QueryAccountRequest'),
      answer: async ({ address: holder }) => {
        const account = await withAddress(() => native.account(holder));
        if (account === undefined) throw new ResourceNotFoundError(`account ${holder} not found`);
        const pubKey = account.pubKey && Buffer.from(account.pubKey).toString('base64');
        return {
          account: {
            '@type': '/cosmos.auth.v1beta1.BaseAccount',
            address: account.address,
            pub_key: pubKey === undefined ? null : { '@type': '/cosmos.crypto.secp256k1.PubKey', key: pubKey },
            account_number: account.accountNumber.toString(),
            sequence: account.sequence.toString(),
          },
        };
      },
    }),
    '/seiprotocol.seichain.evm.Query/SeiAddressByEVMAddress': nativeQuery({
      request: objectOf('QuerySeiAddressByEVMAddressRequest', { evm_address: address }),
      answer: async ({ evm_address: evm }) => {
        const associated = await chain.nativeAddressOf(evm, chain.head().height);
        return { sei_address: associated ?? castNativeAddress(hexToBytes(evm)), associated: associated !== undefined };
      },
    }),
    '/seiprotocol.seichain.evm.Query/EVMAddressBySeiAddress': nativeQuery({
      request: objectOf('QueryEVMAddressBySeiAddressRequest', { sei_address: string }),
      answer: async ({ sei_address: holder }) => {
        const cast = await withAddress(() => Promise.resolve(bytesToHex(castEvmAddress(holder))));
        const associated = await chain.evmAddressOf(holder, chain.head().height);
        return { evm_address: associated ?? cast, associated: associated !== undefined };
      },
    }),
  };
}

/** `ext_callNative({path, request})` and its alias `ext_callCosmos`: a read-only native query at the head. */
export function callNativeMethods(chain: ChainReader, native: NativeLayer) {
  const queries = nativeQueries(chain, native);
  // Decodes the path and the request in one step, so that a bad request is -32602 like a bad path.
  const query = codec('NativeQuery', (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new CodecError(jsonKind(value), 'NativeQuery');
    }
    const { path, request } = value as { path?: unknown; request?: unknown };
    const decode = typeof path === 'string' && Object.hasOwn(queries, path) ? queries[path] : undefined;
    if (decode === undefined) throw new CodecError(`unknown query path ${JSON.stringify(path ?? null)}`);
    return decode(request ?? {});
  });
  return ['ext_callNative', 'ext_callCosmos'].map((name) =>
    defineMethod({ name, params: [query], handler: ([answer]) => answer() }),
  );
}
