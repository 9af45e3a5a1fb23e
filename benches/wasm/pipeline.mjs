// Benchmark: the NAMES party pipeline (normalize, mine, embed, thresholds) and the
// matcher through the wasm API, in Node and in headless Chromium (Debian's
// /usr/bin/chromium, pages served from 127.0.0.1 only).
// Compare with native: `cargo bench --bench party` (the same steps).
// Run: npm run build && node benches/wasm/pipeline.mjs   (FRESH=M fresh engines per
// platform, default 3: Node processes and Chromium instances, each with a new profile;
// RUNS=N runs in each, default 4. Reported: the median of the engines' first runs, and
// the median of their later runs' medians)
import { readFileSync, existsSync } from "node:fs";
import { createServer } from "node:http";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, normalize, extname } from "node:path";
import { performance } from "node:perf_hooks";
import { runRepeated, combine } from "./pipeline-steps.mjs";

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

const chromium = "/usr/bin/chromium";
if (!existsSync(chromium)) {
  console.log("chromium not installed (scripts/setup.sh installs it): browser run skipped");
  process.exit(0);
}
const types = { ".js": "text/javascript", ".mjs": "text/javascript", ".html": "text/html", ".wasm": "application/wasm", ".txt": "text/plain" };
// one fresh Chromium (new profile: no wasm code cache from an earlier run); resolves
// with the page's result once the browser has exited
const chromiumOnce = () => new Promise((resolve) => {
  let browser = null;
  let result = null;
  const finish = (r) => {
    if (result) return;
    result = r;
    server.close();
    if (browser && browser.exitCode === null) {
      browser.once("exit", () => resolve(result));
      browser.kill();
    } else {
      resolve(result);
    }
  };
  const server = createServer((req, res) => {
    if (req.method === "POST" && req.url === "/result") {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        res.end("ok");
        finish(JSON.parse(body));
      });
      return;
    }
    const path = normalize(join(root, decodeURIComponent(req.url.split("?")[0])));
    if (!path.startsWith(root) || !existsSync(path)) {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader("content-type", types[extname(path)] ?? "application/octet-stream");
    res.end(readFileSync(path));
  });
  server.listen(0, "127.0.0.1", () => {
    const url = `http://127.0.0.1:${server.address().port}/benches/wasm/pipeline.html?runs=${runs}`;
    browser = spawn(chromium, [
      "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
      "--no-first-run", `--user-data-dir=${mkdtempSync(join(tmpdir(), "gl-bench-"))}`,
      "--remote-debugging-port=0", url,
    ], { stdio: "ignore" });
    setTimeout(() => finish({ error: "timed out after 600 s" }), 600_000).unref();
  });
});
const chromiumRuns = [];
for (let i = 0; i < fresh; i++) chromiumRuns.push(await chromiumOnce());
show("chromium", combine(chromiumRuns));
