// Benchmark: whole records through the wasm API in Node (the engine of Chromium):
// both data owners (read under the schema, mine, merge, embed) and the matcher
// (score, link), on `gramlink corrupt --people N` files.
// Run: npm run build && cargo build --release &&
//      target/release/gramlink corrupt --data data/names.txt --people 100000 \
//        --out-a /tmp/a.csv --out-b /tmp/b.csv --truth /tmp/t.csv &&
//      node benches/wasm/records.mjs /tmp/a.csv /tmp/b.csv /tmp/t.csv [schema.json]
// The schema defaults to data/febrl/schema-large.toml's, written out as JSON below.
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

const [aPath, bPath, truthPath, schemaPath] = process.argv.slice(2);
if (!aPath || !bPath || !truthPath) {
  console.error("usage: node benches/wasm/records.mjs A.csv B.csv TRUTH.csv [schema.json]");
  process.exit(2);
}
const gl = await import("../../pkg/node/gramlink.js");
const schema = schemaPath ? JSON.parse(readFileSync(schemaPath, "utf8")) : {
  version: 1, id: "rec_id", epsilon: 0.1,
  field: [
    { name: "given_name", kind: "name" }, { name: "surname", kind: "name" },
    { name: "street_number", kind: "number" }, { name: "address_1", kind: "string" },
    { name: "address_2", kind: "string" }, { name: "suburb", kind: "string" },
    { name: "postcode", kind: "number" }, { name: "state", kind: "keyed" },
    { name: "date_of_birth", kind: "date", invalid: "missing" }, { name: "soc_sec_id", kind: "number" },
  ],
  block: [{ field: "surname" }, { field: "soc_sec_id", ed: 0 }],
};
const t = {};
let peak = 0;
const lap = async (name, f) => {
  const t0 = performance.now();
  const r = await f();
  t[name] = performance.now() - t0;
  peak = Math.max(peak, process.memoryUsage().rss);
  return r;
};
const a = await lap("read A", () => new gl.RecordOwner(readFileSync(aPath), schema));
const b = await lap("read B", () => new gl.RecordOwner(readFileSync(bPath), schema));
const na = await lap("mine A", () => a.mine());
const nb = await lap("mine B", () => b.mine());
const shared = await lap("merge", () => gl.RecordOwner.mergeBases(na, nb, schema));
const key = gl.keygen();
const ba = await lap("embed A", () => a.embed(shared, { party: "A", key }));
const bb = await lap("embed B", () => b.embed(shared, { party: "B", key }));
a.free();
b.free();
const m = await lap("score (candidates, levels, EM)", () => new gl.RecordMatcher(schema, ba, bb));
const out = await lap("link", () => m.link());
const truth = new Set(readFileSync(truthPath, "utf8").trim().split("\n").slice(1).map((l) => l.trim()));
let tp = 0;
for (let i = 0; i < out.pairs.classes.length; i++) {
  if (out.pairs.classes[i] === "M" && truth.has(`${out.pairs.aIds[i]},${out.pairs.bIds[i]}`)) tp++;
}
const p = tp / out.matches, r = tp / truth.size;
const total = Object.values(t).reduce((x, y) => x + y, 0);
console.log(`wasm in Node ${process.version}: ${Object.entries(t).map(([k, v]) => `${k} ${(v / 1000).toFixed(2)} s`).join(", ")}; total ${(total / 1000).toFixed(1)} s`);
console.log(`batches ${(ba.length / 1e6).toFixed(1)} MB + ${(bb.length / 1e6).toFixed(1)} MB; ${out.candidates} candidates; M ${out.matches} P ${out.possible}; precision ${p.toFixed(4)} recall ${r.toFixed(4)} F1 ${(2 * p * r / (p + r)).toFixed(4)}; peak RSS ${(peak / 1e9).toFixed(2)} GB`);
