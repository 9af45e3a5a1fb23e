// The steps of the records benchmark, shared by Node (records.mjs) and the
// Chromium page (records.html): both data owners (read under the schema, mine,
// merge, embed) and the matcher (score, link) through the wasm API, scored
// against the truth. `now` is the platform's clock, `memory` its memory in use
// (Node: the process's RSS; Chromium: JS heap plus wasm memory).

// data/febrl/schema-large.toml, written out as JSON (a test keeps them equal)
export const largeSchema = {
  version: 1, id: "rec_id", epsilon: 0.1,
  field: [
    { name: "given_name", kind: "name" }, { name: "surname", kind: "name" },
    { name: "street_number", kind: "number" }, { name: "address_1", kind: "string" },
    { name: "address_2", kind: "string" }, { name: "suburb", kind: "string" },
    { name: "postcode", kind: "number" }, { name: "state", kind: "keyed" },
    { name: "date_of_birth", kind: "date", invalid: "missing" }, { name: "soc_sec_id", kind: "number" },
  ],
  block: [
    { field: "soc_sec_id", ed: 0 },
    { field: "date_of_birth", and: [{ field: "surname" }] },
    { field: "date_of_birth", and: [{ field: "given_name" }] },
    { field: "surname", ed: 0, and: [{ field: "given_name" }] },
  ],
};

export function runRecords(gl, aBytes, bBytes, truthText, schema, now, memory) {
  const timings = {};
  let peak = 0;
  const lap = (name, f) => {
    const t0 = now();
    const r = f();
    timings[name] = now() - t0;
    peak = Math.max(peak, memory());
    return r;
  };
  const a = lap("read A", () => new gl.RecordOwner(aBytes, schema));
  const b = lap("read B", () => new gl.RecordOwner(bBytes, schema));
  const na = lap("mine A", () => a.mine());
  const nb = lap("mine B", () => b.mine());
  const shared = lap("merge", () => gl.RecordOwner.mergeBases(na, nb, schema));
  const key = gl.keygen();
  const ba = lap("embed A", () => a.embed(shared, { party: "A", key }));
  const bb = lap("embed B", () => b.embed(shared, { party: "B", key }));
  a.free();
  b.free();
  const m = lap("score", () => new gl.RecordMatcher(schema, ba, bb));
  const out = lap("link", () => m.link());
  m.free();
  const truth = new Set(truthText.trim().split("\n").slice(1).map((l) => l.trim()));
  let tp = 0;
  for (let i = 0; i < out.pairs.classes.length; i++) {
    if (out.pairs.classes[i] === "M" && truth.has(`${out.pairs.aIds[i]},${out.pairs.bIds[i]}`)) tp++;
  }
  const precision = tp / out.matches, recall = tp / truth.size;
  return {
    timings,
    total: Object.values(timings).reduce((x, y) => x + y, 0),
    batches: [ba.length, bb.length],
    candidates: out.candidates,
    matches: out.matches,
    possible: out.possible,
    precision,
    recall,
    f1: (2 * precision * recall) / (precision + recall),
    peak,
  };
}

export function describe(label, r) {
  if (r.error) return `${label}: error ${r.error}`;
  const steps = Object.entries(r.timings).map(([k, v]) => `${k} ${(v / 1000).toFixed(2)} s`).join(", ");
  return `${label}: ${steps}; total ${(r.total / 1000).toFixed(1)} s; batches ${(r.batches[0] / 1e6).toFixed(1)} + ${(r.batches[1] / 1e6).toFixed(1)} MB; `
    + `${r.candidates} candidates; M ${r.matches} P ${r.possible}; precision ${r.precision.toFixed(4)} recall ${r.recall.toFixed(4)} `
    + `F1 ${r.f1.toFixed(4)}; peak ${r.memoryName} ${(r.peak / 1e9).toFixed(2)} GB`;
}
