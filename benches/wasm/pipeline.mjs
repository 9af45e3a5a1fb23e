// Benchmark: the NAMES party pipeline (normalize, mine, embed, thresholds) and the
// matcher through the wasm API, in Node and in headless Chromium (Debian's
// /usr/bin/chromium, pages served from 127.0.0.1 only).
// Compare with native: `cargo bench --bench party` (the same steps).
// Run: npm run build && node benches/wasm/pipeline.mjs   (FRESH=M fresh engines per
// platform, default 3: Node processes and Chromium instances, each with a new profile;
// RUNS=N runs in each, default 4. Reported: the median of the engines' first runs, and
// the median of their later runs' medians)
import { readFileSync, existsSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { runRepeated, combine } from "./pipeline-steps.mjs";
import { chromium, runInChromium } from "./chromium.mjs";

const root = new URL("../../", import.meta.url).pathname;
const runs = Math.max(2, Number(process.env.RUNS ?? 4));
const fresh = Math.max(1, Number(process.env.FRESH ?? 3));

// a child process: one engine's runs, as JSON on stdout (only children load the
// package and the names; Chromium's pages fetch their own)
if (process.env.GRAMLINK_BENCH_CHILD) {
  const node = await import("../../pkg/node/gramlink.js");
  const names = readFileSync(join(root, "data/names.txt"), "utf8").split("\n").filter((s) => s.length > 0);
  process.stdout.write(JSON.stringify(runRepeated(node, names, () => performance.now(), runs)));
  process.exit(0);
}

function line(label, r) {
  const parts = Object.entries(r.timings).map(([k, v]) => `${k} ${v.toFixed(0)} ms`);
  console.log(`${label}: ${parts.join(", ")}; ${r.pairs} pairs from ${r.candidates} candidates`);
}

function show(label, r) {
  if (r.error) {
    console.log(`${label}: error ${r.error}`);
    return;
  }
  line(`${label}, first run (median of ${r.engines ?? 1} engines)`, r.first);
  line(`${label}, later runs (median of the engines' medians of ${r.runs - 1})`, r.warm);
}

const script = new URL(import.meta.url).pathname;
const nodeRuns = [];
for (let i = 0; i < fresh; i++) {
  const out = execFileSync(process.execPath, [script], { env: { ...process.env, GRAMLINK_BENCH_CHILD: "1" }, maxBuffer: 1 << 24 });
  nodeRuns.push(JSON.parse(out));
}
show("node", combine(nodeRuns));

if (!existsSync(chromium)) {
  console.log("chromium not installed (scripts/setup.sh installs it): browser run skipped");
  process.exit(0);
}
const chromiumOnce = () => runInChromium(`/benches/wasm/pipeline.html?runs=${runs}`);
const chromiumRuns = [];
for (let i = 0; i < fresh; i++) chromiumRuns.push(await chromiumOnce());
show("chromium", combine(chromiumRuns));
