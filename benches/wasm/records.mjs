// Benchmark: whole records through the wasm API, in Node and in headless
// Chromium, beside the native CLI, in one run: both data owners (read under the
// schema, mine, merge, embed) and the matcher (score, link), on
// `gramlink lab corrupt --people N` files (records-steps.mjs has the steps).
// Run: npm run build && cargo build --release &&
//      target/release/gramlink lab corrupt --data data/names.txt --people 100000 \
//        --out-a /tmp/a.csv --out-b /tmp/b.csv --truth /tmp/t.csv &&
//      node benches/wasm/records.mjs /tmp/a.csv /tmp/b.csv /tmp/t.csv [schema.json]
// The schema defaults to data/febrl/schema-large.toml's (records-steps.mjs).
import { readFileSync, writeFileSync, existsSync, mkdtempSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { runRecords, largeSchema, describe } from "./records-steps.mjs";
import { chromium, runInChromium } from "./chromium.mjs";

const [aPath, bPath, truthPath, schemaPath] = process.argv.slice(2);
if (!aPath || !bPath || !truthPath) {
  console.error("usage: node benches/wasm/records.mjs A.csv B.csv TRUTH.csv [schema.json]");
  process.exit(2);
}
const root = new URL("../../", import.meta.url).pathname;
const schema = schemaPath ? JSON.parse(readFileSync(schemaPath, "utf8")) : largeSchema;
const schemaFile = join(mkdtempSync(join(tmpdir(), "gl-records-")), "schema.json");
writeFileSync(schemaFile, JSON.stringify(schema));

const native = join(root, "target/release/gramlink");
if (existsSync(native)) {
  const t0 = performance.now();
  const out = JSON.parse(execFileSync(native, ["lab", "eval", "--json", "--schema", schemaFile, aPath, bPath, "--truth", truthPath], {
    maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "ignore"],
  }));
  const wall = performance.now() - t0;
  const q = out.quality.matches;
  const steps = Object.entries(out.timings_ms).map(([k, v]) => `${k} ${(v / 1000).toFixed(2)} s`).join(", ");
  console.log(`native (2 threads): ${steps}; wall ${(wall / 1000).toFixed(1)} s; ${out.candidates} candidates; M ${out.matches} P ${out.possible}; `
    + `precision ${q.precision.toFixed(4)} recall ${q.recall.toFixed(4)} F1 ${q.f1.toFixed(4)}`);
} else {
  console.log("native: target/release/gramlink not built (cargo build --release): skipped");
}

const gl = await import("../../pkg/node/gramlink.js");
const node = runRecords(gl, readFileSync(aPath), readFileSync(bPath), readFileSync(truthPath, "utf8"), schema,
  () => performance.now(), () => process.memoryUsage().rss);
console.log(describe(`wasm in Node ${process.version}`, { ...node, memoryName: "RSS" }));

if (!existsSync(chromium)) {
  console.log("chromium not installed (scripts/setup.sh installs it): browser run skipped");
} else {
  const files = { "/bench/a.csv": aPath, "/bench/b.csv": bPath, "/bench/truth.csv": truthPath, "/bench/schema.json": schemaFile };
  const r = await runInChromium("/benches/wasm/records.html", { files, timeoutMs: 1_200_000 });
  console.log(describe("wasm in headless Chromium", r));
}
