// Benchmark: a synthetic twin of NAMES (149,910 surnames; condensation, k = 10,
// 1,000 nearest-neighbour measurements) through the wasm API in Node.
// Compare with native: `time target/release/gramlink twin data/names.txt -o t.txt
// --k 10 --seed 1 --nn-sample 1000` (docs/TWINS.md).
// Run: npm run build && node benches/wasm/twin.mjs   (RUNS=N, default 3; the median is reported;
// NN=M nearest-neighbour measurements, default 1000)
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

const root = new URL("../../", import.meta.url).pathname;
const runs = Math.max(1, Number(process.env.RUNS ?? 3));
const nnSample = Number(process.env.NN ?? 1000);
const gl = await import("../../pkg/node/gramlink_lab.js");
const names = readFileSync(root + "data/names.txt", "utf8").split("\n").filter((s) => s.length > 0);
const times = [];
let report;
for (let i = 0; i < runs; i++) {
  const t0 = performance.now();
  const t = gl.makeTwin(names, { seed: 1, twin: { condense: { k: 10 }, nnSample } });
  times.push(performance.now() - t0);
  report = t.report;
  if (!t.synthetic || t.records.length !== report.twinRows) throw new Error("not a twin");
}
times.sort((a, b) => a - b);
const f = report.fields[0];
console.log(JSON.stringify({
  records: names.length, nnSample, twinRows: report.twinRows, groups: f.groups, runs,
  medianMs: Math.round(times[Math.floor(runs / 2)]), allMs: times.map(Math.round),
  compositionL1: f.compositionL1, equalToReal: f.equalToReal,
}));
