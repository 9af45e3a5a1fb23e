// Benchmark: Kuzu et al.'s three roles through the wasm API in Node and in headless
// Chromium, beside `gramlink lab kuzu-bench` natively (docs/KUZU.md, "Cost"); the steps
// are in kuzu-steps.mjs. Prints encryptions/s, compared pairs/s and decided pairs/s
// per key size. One thread (wasm has no rayon).
// Run: npm run build && node benches/wasm/kuzu.mjs [N=6] [bits=512,2048]
import { readFileSync, existsSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { runKuzu, table } from "./kuzu-steps.mjs";
import { chromium, runInChromium } from "./chromium.mjs";

const n = Number(process.argv[2] ?? 6);
const bits = process.argv[3] ?? "512,2048";
const root = new URL("../../", import.meta.url).pathname;
const gl = await import("../../pkg/node/gramlink_lab.js");
const [a, b] = ["a", "b"].map((s) => readFileSync(`${root}data/febrl/dataset1-${s}.csv`, "utf8"));
console.log(table(`wasm in Node ${process.version}, ${n} records`, runKuzu(gl, a, b, n, bits.split(",").map(Number), () => performance.now())));
if (!existsSync(chromium)) {
  console.log("chromium not installed (scripts/setup.sh installs it): browser run skipped");
} else {
  const r = await runInChromium(`/benches/wasm/kuzu.html?n=${n}&bits=${bits}`, { timeoutMs: 3_600_000 });
  console.log(r.error ? `headless Chromium: ${r.error}` : table(`wasm in headless Chromium, ${n} records`, r.rows));
}
