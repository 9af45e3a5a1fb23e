// The demo's worker: runs the seeded evaluation scenario (docs/SCENARIO.md), once or as a sweep.
import * as gl from './wasm-lab.js';
import { serveOps } from './common.js';

/** A seeded synthetic twin of `records` (docs/TWINS.md) when `twin` asks for one: `{k}`. */
function twinOf(records, twin, seed, progress) {
  if (!twin) return null;
  progress('making the twin', 0, 1);
  return gl.makeTwin(records, { seed, twin: { condense: { k: twin.k }, nnSample: 200 } });
}

serveOps({
  defaults: () => gl.defaults(),

  /** The scenario on `records`, or on a twin of them (its report returned beside the result). */
  run({ records, options, twin }, progress) {
    const t = twinOf(records, twin, options.seed, progress);
    const r = gl.runScenario(t ? t.records : records, options, progress);
    return t ? { ...r, twin: t.report } : r;
  },

  /**
   * Runs each option set; returns F1 (and precision, recall) per run. A run whose
   * options cannot give a result on these records (e.g. so little ε that no gram
   * survives the noise: INVALID_BASE) is `{error}` instead, a gap in the chart;
   * any other error stops the sweep.
   */
  sweep({ records, runs, twin }, progress) {
    const t = twinOf(records, twin, runs[0]?.seed, progress);
    if (t) records = t.records;
    const out = [];
    runs.forEach((options, i) => {
      try {
        const r = gl.runScenario(records, options, (phase, done, total) => progress(`run ${i + 1} of ${runs.length}: ${phase}`, done, total));
        out.push({ f1: r.f1, precision: r.precision, recall: r.recall, meanThreshold: r.meanThreshold });
      } catch (e) {
        if (e.code !== 'INVALID_BASE') throw e;
        out.push({ f1: null, error: e.message });
      }
      progress(`run ${i + 1} of ${runs.length}`, i + 1, runs.length);
    });
    return out;
  },
});
