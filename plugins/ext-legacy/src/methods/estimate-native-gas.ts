import {
  codec,
  CodecError,
  defineMethod,
  FailFastLimiter,
  InvalidInputError,
  InvalidParamsError,
  jsonKind,
  toQuantity,
  type NativeLayer,
} from '@evmnode/core';

/** The SDK's `tx parse error` (codespace `sdk`, code 2): the bytes are no transaction. */
const TX_DECODE_CODE = 2;

/** Standard base64 with padding, as the SDK's REST gateway reads `tx_bytes`. */
const txBase64 = codec('[]byte', (value) => {
  if (typeof value !== 'string') throw new CodecError(jsonKind(value), '[]byte');
  if (value.length === 0 || !/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(value)) {
    throw new CodecError('illegal base64 data');
  }
  return Uint8Array.from(Buffer.from(value, 'base64'));
});

/**
 * `ext_estimateNativeGas(txBase64)` and its alias `ext_estimateCosmosGas`: the gas a native
 * transaction (a base64 `TxRaw`) uses, simulated on the head state as the SDK's simulate does.
 * Simulations are limited like `eth_call`, by a limiter of their own: at most
 * `max_concurrent_simulation_calls` at once, of which one client may run `max_client_share`.
 */
export function estimateNativeGasMethods(native: NativeLayer, maxConcurrent: number, clientShare: number) {
  const limiter = new FailFastLimiter(maxConcurrent, clientShare);
  return ['ext_estimateNativeGas', 'ext_estimateCosmosGas'].map((name) =>
    defineMethod({
      name,
      params: [txBase64],
      handler: ([raw], request) =>
        limiter.run(name, request.clientId, async () => {
          const { code, codespace, log, gasUsed } = await native.simulate(raw);
          if (code === 0) return toQuantity(gasUsed);
          if (codespace === 'sdk' && code === TX_DECODE_CODE) throw new InvalidParamsError(log);
          throw new InvalidInputError(log, { codespace, code });
        }),
    }),
  );
}
