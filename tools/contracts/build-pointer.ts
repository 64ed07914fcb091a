import { writeFileSync } from 'node:fs';
import { compileNativeDenomPointer, NATIVE_DENOM_POINTER_SOURCE, solcVersion } from './native-denom-pointer.js';

/** Where the node reads the pointer's runtime code from, relative to the repository root. */
const GENERATED_FILE = 'core/src/chain/native/pointer-code.ts';

const code = compileNativeDenomPointer();
const text = `// Generated from ${NATIVE_DENOM_POINTER_SOURCE} by \`npm run contracts:pointer\` (solc ${solcVersion()}); do not edit.

/** The runtime code of the ERC20 pointer of a native denomination. */
export const POINTER_RUNTIME_CODE =
  '${code}';
`;
writeFileSync(new URL(`../../../${GENERATED_FILE}`, import.meta.url), text);
console.log(`${GENERATED_FILE}: ${(code.length - 2) / 2} bytes of runtime code`);
