// The matcher's worker: reads the batches and links them off the page's thread: two into
// pairs, more into clusters.
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

  /** Every batch into clusters; A's and B's (the first two) checked against their keys first. */
  link({ batches, names, verify }) {
    const bytes = batches.map((b) => new Uint8Array(b));
    const v = checkedVerifyOptions(gl, verify);
    for (const [i, party] of ['A', 'B'].entries()) {
      if (v[`verify${party}`] == null) continue;
      try {
        gl.verifyBatch(v[`verify${party}`], bytes[i], v[`signature${party}`]);
      } catch (e) {
        throw Object.assign(new Error(`party ${party}'s batch: ${e.message}`), { code: e.code });
      }
    }
    const r = gl.linkParties(bytes, { names, pairs: true });
    const { fingerprint, dim, parties, sizes, count, compared, candidates, spans, csv, pairsCsv } = r;
    return { fingerprint, dim, parties, sizes, count, compared, candidates, spans, csv, pairsCsv };
  },
});
