// One fresh headless Chromium (Debian's /usr/bin/chromium, a new profile: no wasm
// code cache from an earlier run) on a page of this repository, served from
// 127.0.0.1 only. The page posts its result as JSON to /result; `runInChromium`
// resolves with it once the browser has exited. `files` maps extra URL paths to
// local files (a benchmark's data outside the repository).
import { readFileSync, existsSync, mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join, normalize, extname } from "node:path";

export const chromium = "/usr/bin/chromium";
const root = new URL("../../", import.meta.url).pathname;
const types = {
  ".js": "text/javascript", ".mjs": "text/javascript", ".html": "text/html",
  ".wasm": "application/wasm", ".txt": "text/plain", ".csv": "text/csv", ".json": "application/json",
};

export function runInChromium(page, { files = {}, timeoutMs = 600_000 } = {}) {
  return new Promise((resolve) => {
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
      const url = decodeURIComponent(req.url.split("?")[0]);
      const path = files[url] ?? normalize(join(root, url));
      if (!(files[url] || path.startsWith(root)) || !existsSync(path)) {
        res.statusCode = 404;
        res.end();
        return;
      }
      res.setHeader("content-type", types[extname(path)] ?? "application/octet-stream");
      res.end(readFileSync(path));
    });
    server.listen(0, "127.0.0.1", () => {
      browser = spawn(chromium, [
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run", "--enable-precise-memory-info",
        `--user-data-dir=${mkdtempSync(join(tmpdir(), "gl-bench-"))}`,
        "--remote-debugging-port=0", `http://127.0.0.1:${server.address().port}${page}`,
      ], { stdio: "ignore" });
      setTimeout(() => finish({ error: `timed out after ${timeoutMs / 1000} s` }), timeoutMs).unref();
    });
  });
}
