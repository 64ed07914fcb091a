import { NODE_USAGE } from '@evmnode/core/cli';
import { NATIVE_USAGE } from '../native-cli/native-cli.js';

/** The `evmnode` usage text: every command's synopsis, then the notes on their options. */
export function usageText(): string {
  const synopses = [...NODE_USAGE.synopses, ...NATIVE_USAGE.synopses].map((line) => `  ${line}`);
  return ['usage:', ...synopses, '', NODE_USAGE.note, '', ...NATIVE_USAGE.notes].join('\n');
}
