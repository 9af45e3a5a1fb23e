// The NAMES party pipeline and matcher through the wasm API, timed step by step,
// in one of the API's presets ("recommended", the default, or "paper").
// Shared by the Node and the Chromium runs of benches/wasm/pipeline.mjs.
export function runPipeline(api, names, now, preset = "paper") {
  const { DataOwner, Matcher } = api;
  // party B: the same names with their last letter doubled (a cheap, deterministic
  // one-edit corruption; the point here is speed, not F1)
  const namesB = names.map((s) => s + s[s.length - 1]);
  const t = {};
  let t0 = now();
  const lap = (name) => {
    const t1 = now();
    t[name] = t1 - t0;
    t0 = t1;
  };
  const a = new DataOwner(names, { budget: 0.1, seed: 1 });
  const b = new DataOwner(namesB, { budget: 0.1, seed: 2 });
  lap("normalize A+B");
  // the preset's mining options, thresholds and rule: the same pipeline as the
  // native benches/party.rs
  const config = api.defaults().presets[preset];
  const na = a.mine(config.mine);
  lap("mine A");
  const nb = b.mine(config.mine);
  lap("mine B");
  const shared = DataOwner.mergeBases(na, nb, config.mine);
  lap("merge");
  const va = a.embed(shared, { party: "A", thresholds: config.thresholds, binary: true, noKey: true });
  lap("embed+thresholds A");
  const vb = b.embed(shared, { party: "B", binary: true, noKey: true });
  lap("embed B");
  const m = new Matcher(va, vb);
  lap("matcher: read");
  // the paper's rule is "all"; the recommended one "ranked"
  const out = m.match({ rule: config.rule });
  lap("matcher: match");
  t["party A total"] = t["normalize A+B"] / 2 + t["mine A"] + t["embed+thresholds A"];
  t["matcher total"] = t["matcher: read"] + t["matcher: match"];
  const result = { timings: t, pairs: out.count, candidates: out.candidates, batchBytes: va.length };
  m.free();
  a.free();
  b.free();
  return result;
}

// The first run (the engine compiles the wasm lazily and tiers hot functions up from
// its baseline compiler, so it is slower) and the median of `runs - 1` runs after it.
export function runRepeated(api, names, now, runs, preset) {
  const all = [];
  for (let i = 0; i < runs; i++) all.push(runPipeline(api, names, now, preset));
  const warm = all.slice(1);
  const timings = Object.fromEntries(Object.keys(all[0].timings).map((k) => [k, median(warm.map((r) => r.timings[k]))]));
  return { first: all[0], warm: { ...all[0], timings }, runs };
}

function median(v) {
  const s = [...v].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

// Several fresh engines' runRepeated results as one: per step, the median of
// their first runs and the median of their later runs' medians. A first run is
// one sample per engine, so it is taken in several.
export function combine(results) {
  const ok = results.filter((r) => !r.error);
  if (ok.length === 0) return results[0];
  const pick = (part) => Object.fromEntries(Object.keys(ok[0].first.timings).map((k) => [k, median(ok.map((r) => r[part].timings[k]))]));
  return {
    first: { ...ok[0].first, timings: pick("first") },
    warm: { ...ok[0].warm, timings: pick("warm") },
    runs: ok[0].runs,
    engines: ok.length,
  };
}
