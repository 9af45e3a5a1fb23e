// The demo page: the evaluation scenario (docs/SCENARIO.md) on bundled public data, with charts.
import uPlot from '/vendor/uplot/uPlot.esm.js';
import { $, WorkerClient, showError, clearErrors, describe, numberField, setProgress, fmt, ms } from './common.js';

const worker = new WorkerClient(new URL('./demo-worker.js', import.meta.url));
const el = (id) => document.getElementById(id);
const DATA = {
  cities: { url: 'data/cities.txt', hint: 'Place names: GeoNames (geonames.org), CC BY 4.0.', n: 2000 },
  names: { url: 'data/names.txt', hint: 'US Census 2000 surnames (public domain).', n: 2000 },
};
const cache = new Map();
const charts = [];

async function records(name) {
  if (!cache.has(name)) {
    const res = await fetch(DATA[name].url);
    if (!res.ok) throw Object.assign(new Error(`the dataset ${DATA[name].url} could not be loaded (HTTP ${res.status})`), { code: 'IO' });
    const text = await res.text();
    cache.set(name, text.split('\n').map((l) => l.replace(/\r$/, '')).filter((l, i, a) => l !== '' || i < a.length - 1));
  }
  return cache.get(name);
}

function showHint() {
  el('dataset-hint').textContent = DATA[el('dataset').value].hint;
}
el('dataset').addEventListener('change', showHint);

let presets = null;

/** Fills the fields a configuration decides; padding and public grams come with it. */
function applyPreset(name) {
  const c = presets[name];
  el('q-min').value = c.mine.qMin;
  el('q-max').value = c.mine.qMax;
  el('mode').value = typeof c.thresholds.mode === 'string' ? c.thresholds.mode : 'global';
  el('rule').value = c.rule;
  el('link-ed').value = c.thresholds.ed;
  el('preset-hint').textContent = c.mine.publicQ
    ? `every public ${c.mine.publicQ}-gram (no budget) + mined grams of ^record$`
    : 'mined grams only (the paper)';
}

async function init() {
  showHint();
  try {
    const all = await worker.call('defaults');
    presets = all.presets;
    // the defaults are the recommended configuration
    const c = all.config;
    el('epsilon').value = c.mine.epsilon;
    el('k').value = c.mine.k;
    el('ed').value = 1;
    el('link-ed').value = c.thresholds.ed;
    el('miner').value = c.mine.miner;
    el('strategy').value = c.mine.strategy;
    el('seed').value = all.scenario.seed;
    el('preset').value = 'recommended';
    applyPreset('recommended');
    document.body.dataset.ready = 'true';
    if (location.hash === '#sample') el('sample-run').click();
  } catch (e) {
    showError(el('run'), `gramlink could not start: ${describe(e)}`);
  }
}

el('preset').addEventListener('change', () => applyPreset(el('preset').value));

/** The scenario options from the form (the core's ScenarioOptions: a whole
 * configuration and the seed); field errors are shown next to their field. */
function options() {
  clearErrors();
  const preset = presets[el('preset').value];
  const mine = {
    ...preset.mine,
    epsilon: numberField(el('epsilon'), { above: 0, max: 1000 }),
    k: numberField(el('k'), { min: 1, integer: true }),
    qMin: numberField(el('q-min'), { min: 1, integer: true }),
    qMax: numberField(el('q-max'), { min: 1, integer: true }),
    miner: el('miner').value,
    strategy: el('strategy').value,
  };
  const linkEd = el('link-ed').value.trim().toLowerCase();
  const corruptEd = numberField(el('ed'), { min: 0, max: 10, integer: true });
  const thresholds = {
    ed: linkEd === 'auto' ? 'auto' : numberField(el('link-ed'), { min: 0, max: 10, integer: true }),
    mode: el('mode').value === 'global' ? { global: null } : el('mode').value,
  };
  const seed = numberField(el('seed'), { min: 0, max: Number.MAX_SAFE_INTEGER, integer: true });
  if (mine.qMin > mine.qMax) {
    showError(el('q-max'), `the longest gram (${mine.qMax}) must be at least the shortest (${mine.qMin})`);
    throw Object.assign(new Error('range'), { shown: true });
  }
  const n = numberField(el('n'), { min: 2, integer: true });
  const twin = el('party-a').value === 'twin' ? { k: numberField(el('twin-k'), { min: 1, integer: true }) } : null;
  // the tree's depth from the data, as the evaluation scenario defines it
  return { o: { seed, meanHMax: true, corruptEd, config: { mine, thresholds, rule: el('rule').value } }, n, twin };
}

/** `o` with its configuration changed by `change` (a copy). */
function varied(o, change) {
  const config = structuredClone(o.config);
  change(config);
  return { ...o, config };
}

/** Where an error of the core belongs. */
function target(e) {
  const m = e.message;
  if (e.code === 'INVALID_EPSILON') return el('epsilon');
  if (e.code === 'TOO_FEW_RECORDS') return el('twin-k');
  if (/q_min|qMin/.test(m)) return el('q-min');
  if (/q_max|qMax/.test(m)) return el('q-max');
  if (/\bk\b/.test(m)) return el('k');
  if (/\bed\b|edit/.test(m)) return el('ed');
  if (e.code === 'IO') return el('dataset');
  return el('run');
}

async function busy(work) {
  el('run').disabled = el('charts').disabled = true;
  el('cancel').hidden = false;
  el('progress').hidden = false;
  el('progress-text').textContent = 'starting…';
  try {
    await work((p) => setProgress(el('progress-bar'), el('progress-text'), p));
    el('progress-text').textContent = 'done';
  } catch (e) {
    if (e.code === 'CANCELLED') el('progress-text').textContent = 'cancelled';
    else if (!e.shown) {
      el('progress').hidden = true;
      showError(target(e), describe(e));
    } else el('progress').hidden = true;
  } finally {
    el('run').disabled = el('charts').disabled = false;
    el('cancel').hidden = true;
  }
}
el('cancel').addEventListener('click', () => worker.cancel());

// sample data: CITIES, all of it, the default settings, one button
el('sample-run').addEventListener('click', () => {
  el('dataset').value = 'cities';
  showHint();
  el('n').value = 5000;
  el('preset').value = 'recommended';
  applyPreset('recommended');
  el('ed').value = 1;
  el('run').click();
});

el('run').addEventListener('click', () =>
  busy(async (onProgress) => {
    const { o, n, twin } = options();
    const recs = (await records(el('dataset').value)).slice(0, n);
    const r = await worker.call('run', { records: recs, options: o, twin }, onProgress);
    show(r);
  }),
);

function show(r) {
  el('f1').textContent = fmt(r.f1);
  el('precision').textContent = fmt(r.precision);
  el('recall').textContent = fmt(r.recall);
  el('pairs').textContent = r.pairs.toLocaleString('en');
  el('other').textContent = fmt(r.otherRule.f1);
  el('other-k').textContent = `F1 with the ${r.options.config.rule === 'all' ? 'greedy one-to-one' : 'paper'} rule`;
  el('result-summary').textContent = `${r.n.toLocaleString('en')} records in A and B (${r.bEmpty} B records normalized to empty); ${r.truePairs.toLocaleString('en')} true pairs linked of ${r.n.toLocaleString('en')}; ${r.trueOutsideThreshold.toLocaleString('en')} true pairs were farther than A's threshold (mean threshold ${fmt(r.meanThreshold, 2)}); shared base of ${r.base.length} grams (prefix-tree depth ${r.hMax}), fingerprint ${r.fingerprint.slice(0, 16)}…${r.cutoff ? `. Edit distance auto: of ${r.cutoff.candidates.toLocaleString('en')} candidates within ${r.cutoff.bound} edits, a fit without labels kept ${r.cutoff.kept.toLocaleString('en')} as matches (${r.cutoff.keptByEdits.join(' / ')} at ${r.cutoff.keptByEdits.map((_, i) => i).join(' / ')} edits).` : ''}`;
  const total = Object.values(r.timingsMs).reduce((a, b) => a + b, 0);
  $('#timings tbody').replaceChildren(...[...Object.entries(r.timingsMs), ['total', total]].map(([k, v]) => row([k, ms(v)], [false, true])));
  $('#sample tbody').replaceChildren(...r.sample.map((s) => row([s.a, s.b, fmt(s.distance, 3), s.correct ? 'yes' : 'no'], [false, false, true, false])));
  showTwin(r.twin);
  el('result').hidden = false;
  // the result above the fold: it is drawn below the settings, out of sight on a laptop
  el('result').scrollIntoView?.({ block: 'start' });
  el('result').dataset.f1 = String(r.f1);
}

/** The twin's report, when party A held a twin. */
function showTwin(t) {
  el('twin-report').hidden = !t;
  if (!t) return;
  const f = t.fields[0];
  const nn = f.nearestNeighbour;
  el('twin-summary').textContent = `SYNTHETIC: party A held ${t.twinRows.toLocaleString('en')} pseudo-strings condensed from the first ${t.sourceRows.toLocaleString('en')} records (${f.groups.toLocaleString('en')} groups of at least ${f.minGroup}, ${f.suppressed} suppressed; seeded; not differentially private), and B's copy was made from the twin. Symbol composition L1 ${fmt(f.compositionL1, 4)}; ${fmt(100 * f.equalToReal, 1)} % of the pseudo-strings equal a real record; nearest real record ${fmt(nn.mean, 2)} edits away on average (${nn.histogram.join(' / ')} of ${nn.sample} at 0 / 1 / 2 / 3 / 4+ edits). The F1 above is the rehearsal's, on the twin.`;
}

function row(cells, numeric) {
  const tr = document.createElement('tr');
  cells.forEach((c, i) => tr.append(Object.assign(document.createElement('td'), { textContent: c, className: numeric[i] ? 'num' : '' })));
  return tr;
}

const EPSILONS = [0.01, 0.05, 0.1, 0.5, 1];
const KS = [10, 25, 50, 75, 100, 150];

el('charts').addEventListener('click', () =>
  busy(async (onProgress) => {
    const { o, n, twin } = options();
    const recs = (await records(el('dataset').value)).slice(0, n);
    // F1 against a global threshold: the same seeded bases, thresholds around Δq·ed
    const m = o.config.mine;
    const dq = m.qMax - m.qMin + 1 + (m.publicQ && (m.publicQ < m.qMin || m.publicQ > m.qMax) ? 1 : 0);
    // with ed auto, around its bound (2 edits)
    const center = Math.max(1, dq * (o.config.thresholds.ed === 'auto' ? 2 : o.config.thresholds.ed));
    const ts = Array.from({ length: 12 }, (_, i) => +((center * (i + 1)) / 6).toFixed(3));
    const personal = o.config.thresholds.mode === 'sound' ? 'sound' : 'paper';
    const tRuns = [...ts.map((t) => varied(o, (c) => { c.thresholds.mode = { global: t }; })), varied(o, (c) => { c.thresholds.mode = personal; })];
    const eMiners = [
      ['prefix tree, linear', { miner: 'prefix-tree', strategy: 'linear' }],
      ['prefix tree, hybrid', { miner: 'prefix-tree', strategy: 'hybrid' }],
      ['FPM', { miner: 'fpm' }],
    ];
    const eRuns = eMiners.flatMap(([, mm]) => EPSILONS.map((epsilon) => varied(o, (c) => Object.assign(c.mine, mm, { epsilon }))));
    eRuns.push(varied(o, (c) => { c.mine.miner = 'exact'; })); // the non-private miner does not depend on ε
    const kRuns = KS.map((k) => varied(o, (c) => { c.mine.k = k; }));
    const runs = [...tRuns, ...eRuns, ...kRuns];
    const t0 = performance.now();
    const res = await worker.call('sweep', { records: recs, runs, twin }, onProgress);
    const f1 = res.map((r) => r.f1);
    let i = 0;
    const tF1 = f1.slice(i, (i += ts.length));
    const personalF1 = f1[i++];
    const eF1 = eMiners.map(() => f1.slice(i, (i += EPSILONS.length)));
    const exactF1 = f1[i++];
    const kF1 = f1.slice(i, (i += KS.length));
    for (const c of charts.splice(0)) c.destroy();
    el('chart-section').hidden = false;
    charts.push(
      plot(el('chart-threshold'), 'global threshold', false, ts, [
        ['global threshold', tF1, '#0b5cad'],
        [`personalized (${personal})`, ts.map(() => personalF1), '#c0392b', [6, 4]],
      ]),
      plot(el('chart-epsilon'), 'ε per party (log scale)', true, EPSILONS, [
        ...eMiners.map(([name], j) => [name, eF1[j], ['#0b5cad', '#1a7f37', '#9a6700'][j]]),
        ['non-private (exact)', EPSILONS.map(() => exactF1), '#6e40c9', [6, 4]],
      ]),
      plot(el('chart-k'), 'k (grams)', false, KS, [[`${m.miner}${m.miner === 'prefix-tree' ? `, ${m.strategy}` : ''}`, kF1, '#0b5cad']]),
    );
    const gaps = res.filter((r) => r.f1 === null).length;
    el('charts-summary').textContent = `${runs.length} seeded runs on ${twin ? `a synthetic twin (k = ${twin.k}) of ` : ''}the first ${recs.length.toLocaleString('en')} records of ${el('dataset').value.toUpperCase()} in ${ms(performance.now() - t0)}; other options as above.${gaps ? ` ${gaps} run${gaps > 1 ? 's' : ''} found no gram at all (too little ε for so few records): gaps in the lines.` : ''}`;
    el('chart-section').dataset.drawn = 'true';
  }),
);

function plot(fig, xLabel, logX, xs, series) {
  const width = Math.max(260, Math.min(fig.clientWidth || 480, 640));
  const u = new uPlot(
    {
      width,
      height: 260,
      scales: { x: { time: false, ...(logX ? { distr: 3 } : {}) }, y: { range: [0, 1] } },
      axes: [{ label: xLabel }, { label: 'F1' }],
      series: [{ label: xLabel }, ...series.map(([label, , stroke, dash]) => ({ label, stroke, width: 2, dash, points: { show: !dash } }))],
    },
    [xs, ...series.map(([, ys]) => ys)],
    fig,
  );
  return u;
}

// keep charts as wide as their column on a narrow or resized screen
addEventListener('resize', () => {
  for (const c of charts) c.setSize({ width: Math.max(260, Math.min(c.root.parentElement.clientWidth, 640)), height: 260 });
});

init();
