// The three-party page's worker: key generation, A's encryption, B's comparison and
// C's decisions off the page's thread (each can take minutes; Cancel terminates it).
import * as gl from './wasm-lab.js';
import { serveOps, transferring } from './common.js';

function withOwner(csv, rule, f) {
  const owner = new gl.KuzuOwner(csv, rule);
  try {
    return f(owner);
  } finally {
    owner.free();
  }
}

serveOps({
  /** Loads the package (the page is ready when this answers). */
  ping: () => true,

  /** C: a key pair of `bits` and the block model of the public list. */
  setup({ list, name, identifier, bits, blocks, take }) {
    const model = gl.kuzuBlockModel(list, { take, blocks, identifier, name });
    const key = gl.kuzuKeygen(bits);
    return { model, ...key, blocks: JSON.parse(model).blocks.length };
  },

  /** A: blocks, ε-DP release, encryption. */
  encrypt({ csv, rule, model, publicKey, epsilon, wn, bRecords }, progress) {
    return withOwner(csv, rule, (a) => {
      const out = a.encrypt(model, publicKey, { epsilon, wn, bRecords }, progress);
      return transferring({ blocks: out.blocks, report: out.report, size: a.size }, [out.blocks.buffer]);
    });
  },

  /** B: comparison within blocks and blinding. */
  compare({ csv, rule, model, publicKey, blocks, rerandomize }, progress) {
    return withOwner(csv, rule, (b) => {
      const out = b.compare(model, publicKey, new Uint8Array(blocks), { rerandomize }, progress);
      return transferring({ pairs: out.pairs, map: out.map, size: b.size }, [out.pairs.buffer]);
    });
  },

  /** C: decrypts the blinded pairs and decides. */
  linksForA: ({ matches, map }) => gl.kuzuLinksForA(matches, map),
  finalLinks: ({ links, report }) => gl.kuzuFinalLinks(links, report),

  decide({ pairs, rule, privateKey }, progress) {
    return gl.kuzuDecide(new Uint8Array(pairs), rule, privateKey, progress);
  },
});
