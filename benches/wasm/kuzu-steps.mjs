// Kuzu et al.'s three roles through the wasm API, shared by the Node run
// (kuzu.mjs) and the headless Chromium page (kuzu.html): C makes a key and a
// one-block model, A encrypts N records of FEBRL 1 (DP release with almost no
// fakes, Paillier), B compares N of its records with them and blinds
// (re-randomizing), C decides. Rates per key size; one thread (wasm has no rayon).

// data/febrl/kuzu.toml, in JSON
export const rule = {
  id: "rec_id", block: "surname", threshold: 0.6,
  attribute: [
    { column: "given_name", kind: "string", weight: 0.3 },
    { column: "surname", kind: "string", weight: 0.35 },
    { column: "suburb", kind: "string", weight: 0.22 },
    { column: "date_of_birth", kind: "year", weight: 0.13, min: 1900, max: 2010 },
  ],
};
const perRecord = 3 * 730 + 2;

// aText, bText: FEBRL 1's A and B files; now(): milliseconds
export function runKuzu(gl, aText, bText, n, bitsList, now) {
  const head = (text) => text.split("\n").slice(0, n + 1).join("\n");
  const model = gl.kuzuBlockModel("SMITH\n", { take: 1, blocks: 1, name: "one block" });
  const rows = [];
  for (const bits of bitsList) {
    let t0 = now();
    const key = gl.kuzuKeygen(bits, { seed: 7 });
    const keygen = (now() - t0) / 1e3;
    const a = new gl.KuzuOwner(head(aText), rule);
    const b = new gl.KuzuOwner(head(bText), rule);
    // a large ε and a small w_n: almost no fake record, so A encrypts about N records
    t0 = now();
    const enc = a.encrypt(model, key.publicKey, { epsilon: 50, wn: 1, bRecords: b.size, seed: 1 });
    const encS = (now() - t0) / 1e3;
    const released = JSON.parse(enc.report).handles.length;
    t0 = now();
    const cmp = b.compare(model, key.publicKey, enc.blocks, { seed: 2 });
    const cmpS = (now() - t0) / 1e3;
    const pairs = JSON.parse(cmp.map).pairs.length;
    t0 = now();
    gl.kuzuDecide(cmp.pairs, rule, key.privateKey);
    const decS = (now() - t0) / 1e3;
    rows.push({ bits, keygen, encPerS: released * perRecord / encS, comparePerS: pairs / cmpS, decidePerS: pairs / decS, released, pairs });
  }
  return rows;
}

export function table(title, rows) {
  const lines = [title, "| key bits | keygen s | enc/s | compare pairs/s (re-rand.) | decide pairs/s | records, pairs |", "|---|---|---|---|---|---|"];
  for (const r of rows) {
    lines.push(`| ${r.bits} | ${r.keygen.toFixed(2)} | ${r.encPerS.toFixed(0)} | ${r.comparePerS.toFixed(1)} | ${r.decidePerS.toFixed(1)} | ${r.released}, ${r.pairs} |`);
  }
  return lines.join("\n");
}
