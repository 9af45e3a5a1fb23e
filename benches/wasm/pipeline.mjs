// Benchmark: the NAMES party pipeline (normalize, mine, embed, thresholds) and the
// matcher through the wasm API, in Node and in headless Chromium (Debian's
// /usr/bin/chromium, pages served from 127.0.0.1 only).
// Native runs the same steps (benches/party.rs), started from here in the same run.
// Run: npm run build && node benches/wasm/pipeline.mjs   (FRESH=M fresh engines per
// platform, default 3: native and Node processes, Chromium instances with new
// profiles; RUNS=N runs in each, default 4; PRESETS=recommended,paper, the default,
// for both configurations. Reported: the median of the engines' first runs, and the
// median of their later runs' medians)
import { readFileSync, existsSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { runRepeated, combine } from "./pipeline-steps.mjs";
import { chromium, runInChromium } from "./chromium.mjs";

const root = new URL("../../", import.meta.url).pathname;
const runs = Math.max(2, Number(process.env.RUNS ?? 4));
const fresh = Math.max(1, Number(process.env.FRESH ?? 3));
const presets = (process.env.PRESETS ?? "recommended,paper").split(",");

// a child process: one engine's runs, as JSON on stdout (only children load the
// package and the names; Chromium's pages fetch their own)
if (process.env.GRAMLINK_BENCH_CHILD) {
  const node = await import("../../pkg/node/gramlink.js");
  const names = readFileSync(join(root, "data/names.txt"), "utf8").split("\n").filter((s) => s.length > 0);
  process.stdout.write(JSON.stringify(runRepeated(node, names, () => performance.now(), runs, process.env.GRAMLINK_PRESET)));
  process.exit(0);
}

function line(label, r) {
  const parts = Object.entries(r.timings).map(([k, v]) => `${k} ${v.toFixed(0)} ms`);
  let mb = r.batchBytes ? `; A's batch ${(r.batchBytes / 1e6).toFixed(1)} MB` : "";
  if (r.wasmMemoryBytes) mb += `; wasm memory ${(r.wasmMemoryBytes / 1e6).toFixed(0)} MB`;
  console.log(`${label}: ${parts.join(", ")}; ${r.pairs} pairs from ${r.candidates} candidates${mb}`);
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
for (const preset of presets) {
  console.log(`---- ${preset} configuration`);
  // native: the same steps in fresh processes, single-threaded like wasm
  try {
    const out = execFileSync("cargo", ["bench", "--quiet", "--bench", "party"], {
      cwd: root,
      env: { ...process.env, RAYON_NUM_THREADS: "1", PRESET: preset, FRESH: String(fresh), RUNS: String(runs) },
      maxBuffer: 1 << 24,
      stdio: ["ignore", "pipe", "inherit"],
    });
    process.stdout.write(out.toString().split("\n").filter((l) => l.length > 0).map((l) => `native ${l}`).join("\n") + "\n");
  } catch (e) {
    console.log(`native: not run (${e.message.split("\n")[0]})`);
  }
  const nodeRuns = [];
  for (let i = 0; i < fresh; i++) {
    const env = { ...process.env, GRAMLINK_BENCH_CHILD: "1", GRAMLINK_PRESET: preset };
    const out = execFileSync(process.execPath, [script], { env, maxBuffer: 1 << 24 });
    nodeRuns.push(JSON.parse(out));
  }
  show("node", combine(nodeRuns));

  if (!existsSync(chromium)) {
    console.log("chromium not installed (scripts/setup.sh installs it): browser run skipped");
    continue;
  }
  const chromiumRuns = [];
  for (let i = 0; i < fresh; i++) chromiumRuns.push(await runInChromium(`/benches/wasm/pipeline.html?runs=${runs}&preset=${preset}`));
  show("chromium", combine(chromiumRuns));
}
