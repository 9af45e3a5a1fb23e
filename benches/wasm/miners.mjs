// Benchmark: each miner on all of NAMES in wasm under Node (the npm package's
// pkg/node build). Compare with the native `cargo bench --bench miners`.
// Run: npm run build && node benches/wasm/miners.mjs
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { DataOwner } from "../../pkg/node/gramlink.js";

const names = readFileSync(new URL("../../data/names.txt", import.meta.url), "utf8").split("\n").filter((s) => s.length > 0);
const runs = Number(process.env.RUNS ?? 7);

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function time(label, fn) {
  fn(); // warm-up
  const ts = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    ts.push(performance.now() - t0);
  }
  console.log(`${label.padEnd(28)} median ${median(ts).toFixed(1).padStart(7)} ms  (min ${Math.min(...ts).toFixed(1)}, max ${Math.max(...ts).toFixed(1)}, ${runs} runs)`);
}

time("normalize (DataOwner)", () => new DataOwner(names, { budget: 1000, seed: 1 }));
const owner = new DataOwner(names, { budget: 1000, seed: 42 });
const cases = [
  ["fpm", { miner: "fpm" }],
  ["exact", { miner: "exact" }],
  ["prefix-tree linear", { miner: "prefix-tree", strategy: "linear" }],
  ["prefix-tree exponential", { miner: "prefix-tree", strategy: "exponential" }],
  ["prefix-tree adaptive", { miner: "prefix-tree", strategy: "adaptive" }],
  ["prefix-tree hybrid", { miner: "prefix-tree", strategy: "hybrid" }],
  ["prefix-tree hybrid eps=1", { miner: "prefix-tree", strategy: "hybrid", epsilon: 1 }],
];
for (const [label, opts] of cases) {
  time(label, () => owner.mine({ epsilon: 0.1, k: 75, qMin: 1, qMax: 3, hMax: 7, padding: false, ...opts }));
}
