// Benchmark: Kuzu et al.'s three roles through the wasm API in Node (the engine of
// Chromium), beside `gramlink kuzu bench` natively (docs/KUZU.md, "Cost"): C makes a
// key and a block model, A encrypts N records of FEBRL 1 (blocks, DP release,
// Paillier), B compares N of its records and blinds, C decides. Prints encryptions/s,
// compared pairs/s and decided pairs/s per key size. One thread (wasm has no rayon).
// Run: npm run build && node benches/wasm/kuzu.mjs [N=6] [bits=512,2048]
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

const n = Number(process.argv[2] ?? 6);
const bitsList = (process.argv[3] ?? "512,2048").split(",").map(Number);
const gl = await import("../../pkg/node/gramlink.js");
// data/febrl/kuzu.toml, in JSON
const rule = {
  id: "rec_id", block: "surname", threshold: 0.6,
  attribute: [
    { column: "given_name", kind: "string", weight: 0.3 },
    { column: "surname", kind: "string", weight: 0.35 },
    { column: "suburb", kind: "string", weight: 0.22 },
    { column: "date_of_birth", kind: "year", weight: 0.13, min: 1900, max: 2010 },
  ],
};
const head = (path, rows) => readFileSync(path, "utf8").split("\n").slice(0, rows + 1).join("\n");
// the first N originals and their duplicates: one block holds them all (a 1-block model)
const aCsv = head("data/febrl/dataset1-a.csv", n);
const bCsv = head("data/febrl/dataset1-b.csv", n);
const model = gl.kuzuBlockModel("SMITH\n", { take: 1, blocks: 1, name: "one block" });
const perRecord = 3 * 730 + 2;
console.log("| key bits | keygen s | enc/s | compare pairs/s (re-rand.) | decide pairs/s |");
console.log("|---|---|---|---|---|");
for (const bits of bitsList) {
  let t0 = performance.now();
  const key = gl.kuzuKeygen(bits, { seed: 7 });
  const keygen = (performance.now() - t0) / 1e3;
  const a = new gl.KuzuOwner(aCsv, rule);
  const b = new gl.KuzuOwner(bCsv, rule);
  // a large w_n and ε: almost no fake record, so A encrypts about N records
  t0 = performance.now();
  const enc = a.encrypt(model, key.publicKey, { epsilon: 50, wn: 1, bRecords: b.size, seed: 1 });
  const encS = (performance.now() - t0) / 1e3;
  const released = JSON.parse(enc.report).handles.length;
  t0 = performance.now();
  const cmp = b.compare(model, key.publicKey, enc.blocks, { seed: 2 });
  const cmpS = (performance.now() - t0) / 1e3;
  const pairs = JSON.parse(cmp.map).pairs.length;
  t0 = performance.now();
  gl.kuzuDecide(cmp.pairs, rule, key.privateKey);
  const decS = (performance.now() - t0) / 1e3;
  console.log(`| ${bits} | ${keygen.toFixed(2)} | ${(released * perRecord / encS).toFixed(0)} | ${(pairs / cmpS).toFixed(1)} | ${(pairs / decS).toFixed(1)} |`);
}
