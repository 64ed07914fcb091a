/**
 * Calls into the standard precompiles that compute longest for their gas, for the CPU isolation
 * bench and tests: BLAKE2 F with millions of rounds and a BN254 pairing check with hundreds of pairs.
 */

export const BLAKE2F = '0x0000000000000000000000000000000000000009';
export const PAIRING = '0x0000000000000000000000000000000000000008';

/** EIP-152's test vector 5 (message "abc"), with `rounds` in place of its 12. */
export function blake2fInput(rounds: number): string {
  const h =
    '48c9bdf267e6096a3ba7ca8485ae67bb2bf894fe72f36e3cf1361d5f3af54fa5d182e6ad7f520e511f6c3e2b8c68059b6bbd41fbabd9831f79217e1319cde05b';
  const m = `6162630000000000${'00'.repeat(120)}`;
  const t = `0300000000000000${'00'.repeat(8)}`;
  return `0x${rounds.toString(16).padStart(8, '0')}${h}${m}${t}01`;
}

/** EIP-152's expected output of vector 5 (12 rounds). */
export const BLAKE2F_VECTOR_5 =
  '0xba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923';

/** The generator of G1, its negation and the generator of G2 (EIP-197's encoding). */
const G1 = `${'00'.repeat(31)}01${'00'.repeat(31)}02`;
const MINUS_G1 = `${'00'.repeat(31)}01${'30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd45'}`;
const G2 =
  '198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2' +
  '1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed' +
  '090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b' +
  '12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa';

/** e(G1, G2) * e(-G1, G2) = 1, repeated: `2 * repeats` pairs whose check succeeds. */
export const pairingInput = (repeats: number): string => `0x${`${G1}${G2}${MINUS_G1}${G2}`.repeat(repeats)}`;

/** The pairing check's answer when it holds. */
export const PAIRING_TRUE = `0x${'00'.repeat(31)}01`;

/** The longest computations a 10M-gas call buys: 9.9M BLAKE2 rounds, or 260 pairs (8.9M gas plus calldata). */
export const HEAVY_CALLS = [
  { name: 'BLAKE2 F, 9.9M rounds', call: { to: BLAKE2F, data: blake2fInput(9_900_000) } },
  { name: 'ecPairing, 260 pairs', call: { to: PAIRING, data: pairingInput(130) } },
] as const;
