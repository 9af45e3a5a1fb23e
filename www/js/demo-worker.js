// The demo's worker: runs the seeded evaluation scenario (docs/SCENARIO.md), once or as a sweep.
import * as gl from './wasm.js';
import { serveOps } from './common.js';

serveOps({
  defaults: () => gl.defaults(),

  run({ records, options }, progress) {
    return gl.runScenario(records, options, progress);
  },

  /**
   * Runs each option set; returns F1 (and precision, recall) per run. A run whose
   * options cannot give a result on these records (e.g. so little ε that no gram
   * survives the noise: INVALID_BASE) is `{error}` instead, a gap in the chart;
   * any other error stops the sweep.
   */
  sweep({ records, runs }, progress) {
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
