// The demo's worker: runs the seeded SCENARIO.md evaluation, once or as a sweep.
import * as gl from './wasm.js';
import { serveOps } from './common.js';

serveOps({
  defaults: () => gl.defaults(),

  run({ records, options }, progress) {
    return gl.runScenario(records, options, progress);
  },

  /** Runs each option set; returns F1 (and the other rule's) per run. */
  sweep({ records, runs }, progress) {
    const out = [];
    runs.forEach((options, i) => {
      const r = gl.runScenario(records, options, (phase, done, total) => progress(`run ${i + 1} of ${runs.length}: ${phase}`, done, total));
      out.push({ f1: r.f1, precision: r.precision, recall: r.recall, meanThreshold: r.meanThreshold });
      progress(`run ${i + 1} of ${runs.length}`, i + 1, runs.length);
    });
    return out;
  },
});
