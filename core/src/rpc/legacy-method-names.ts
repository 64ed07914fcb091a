/**
 * The deprecated `ext_` and `ext2_` methods (decisions.md D1, interface.md §4.11): the names
 * `enabled_legacy_ext_apis` may list, whether or not a plugin serving them is loaded.
 */
export const LEGACY_METHODS: readonly string[] = [
  'ext_associate',
  'ext_getNativeAddress',
  'ext_getEVMAddress',
  'ext_getNativeTx',
  'ext_getEvmTx',
  'ext_sign',
  'ext_getBlockByNumber',
  'ext_getBlockByHash',
  'ext_getBlockReceipts',
  'ext_getBlockTransactionCountByNumber',
  'ext_getBlockTransactionCountByHash',
  'ext_getBlockByNumberExcludeTraceFail',
  'ext_getBlockByHashExcludeTraceFail',
  'ext_getTransactionByHash',
  'ext_getTransactionReceipt',
  'ext_getTransactionReceiptExcludeTraceFail',
  'ext_getTransactionByBlockNumberAndIndex',
  'ext_getTransactionByBlockHashAndIndex',
  'ext_getTransactionCount',
  'ext_getTransactionErrorByHash',
  'ext_getVMError',
  'ext_getLogs',
  'ext_newFilter',
  'ext_newBlockFilter',
  'ext_getFilterChanges',
  'ext_getFilterLogs',
  'ext_uninstallFilter',
  'ext_traceBlockByNumberExcludeTraceFail',
  'ext_traceBlockByHashExcludeTraceFail',
  'ext_queryStorage',
  'ext_queryEvents',
  'ext_queryState',
  'ext_callNative',
  'ext_estimateNativeGas',
  'ext2_getBlockByNumber',
  'ext2_getBlockByHash',
  'ext2_getBlockByNumberExcludeTraceFail',
  'ext2_getBlockByHashExcludeTraceFail',
  'ext2_getBlockReceipts',
  'ext2_getBlockTransactionCountByNumber',
  'ext2_getBlockTransactionCountByHash',
];

/** Alias -> canonical method: an alias answers exactly like its canonical method and is enabled with it. */
export const LEGACY_ALIASES: ReadonlyMap<string, string> = new Map([
  ['ext_getCosmosTx', 'ext_getNativeTx'],
  ['ext_getCosmosAddress', 'ext_getNativeAddress'],
  ['ext_callCosmos', 'ext_callNative'],
  ['ext_estimateCosmosGas', 'ext_estimateNativeGas'],
]);

/** Whether `method` is in a legacy namespace; method names are case-sensitive, as in geth. */
export function isLegacyNamespace(method: string): boolean {
  return method.startsWith('ext_') || method.startsWith('ext2_');
}
