// Benchmark: the NAMES party pipeline (normalize, mine, embed, thresholds) and the
// matcher through the wasm API, in Node and in headless Chromium (Debian's
// /usr/bin/chromium, pages served from 127.0.0.1 only).
// Compare with native: `cargo bench --bench pipeline`.
// Run: npm run build && node benches/wasm/pipeline.mjs   (RUNS=N: runs per engine, default 4;
// the first is reported alone, the others as their median)
import { readFileSync, existsSync } from "node:fs";
import { createServer } from "node:http";
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, normalize, extname } from "node:path";
import { performance } from "node:perf_hooks";
import * as node from "../../pkg/node/gramlink.js";
import { runRepeated } from "./pipeline-steps.mjs";

const root = new URL("../../", import.meta.url).pathname;
const names = readFileSync(join(root, "data/names.txt"), "utf8").split("\n").filter((s) => s.length > 0);

const runs = Math.max(2, Number(process.env.RUNS ?? 4));

function line(label, r) {
  const parts = Object.entries(r.timings).map(([k, v]) => `${k} ${v.toFixed(0)} ms`);
  console.log(`${label}: ${parts.join(", ")}; ${r.pairs} pairs from ${r.candidates} candidates`);
}

function show(label, r) {
  if (r.error) {
    console.log(`${label}: error ${r.error}`);
    return;
  }
  line(`${label}, first run`, r.first);
  line(`${label}, median of the next ${r.runs - 1}`, r.warm);
}

show("node", runRepeated(node, names, () => performance.now(), runs));

const chromium = "/usr/bin/chromium";
if (!existsSync(chromium)) {
  console.log("chromium not installed (scripts/setup.sh installs it): browser run skipped");
  process.exit(0);
}
const types = { ".js": "text/javascript", ".mjs": "text/javascript", ".html": "text/html", ".wasm": "application/wasm", ".txt": "text/plain" };
const result = new Promise((resolve) => {
  const server = createServer((req, res) => {
    if (req.method === "POST" && req.url === "/result") {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        res.end("ok");
        server.close();
        resolve(JSON.parse(body));
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
    const browser = spawn(chromium, [
      "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
      "--no-first-run", `--user-data-dir=${mkdtempSync(join(tmpdir(), "gl-bench-"))}`,
      "--remote-debugging-port=0", url,
    ], { stdio: "ignore" });
    result.then(() => browser.kill());
    setTimeout(() => { browser.kill(); resolve({ error: "timed out after 600 s" }); }, 600_000).unref();
  });
});
show("chromium", await result);
