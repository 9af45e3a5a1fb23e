// The matcher's worker: reads both batches and links them off the page's thread.
import * as gl from './wasm.js';
import { serveOps, transferring } from './common.js';
import { checkedVerifyOptions } from './signing.js';

serveOps({
  info({ bytes }) {
    return gl.batchInfo(new Uint8Array(bytes));
  },

  defaults: () => gl.defaults(),

  match({ a, b, rule, verify }) {
    const m = new gl.Matcher(new Uint8Array(a), new Uint8Array(b), checkedVerifyOptions(gl, verify));
    try {
      const r = m.match({ rule });
      const info = { fingerprint: m.fingerprint, sizeA: m.sizeA, sizeB: m.sizeB, dim: m.dim };
      const out = { ...info, rule: r.rule, candidates: r.candidates, count: r.count, cutoff: r.cutoff, aIds: r.aIds, bIds: r.bIds, distances: r.distances };
      return transferring(out, [r.distances.buffer]);
    } finally {
      m.free();
    }
  },
});
