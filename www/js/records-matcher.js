// The records matcher page: schema + two record batches → M / P / U, a weight
// histogram with the two thresholds, clerical review of P, export.
import uPlot from '/vendor/uplot/uPlot.esm.js';
import { WorkerClient, showError, clearErrors, describe, download, fmt, withProgress, showFileNames } from './common.js';
import { FEBRL } from './febrl-schema.js';
import { verifyOptions, signatureError } from './signing.js';

showFileNames();

const worker = new WorkerClient(new URL('./records-worker.js', import.meta.url));
const el = (id) => document.getElementById(id);
const SHOWN = 200; // rows per tab
let res = null; // the worker's last link/decide result
let weights = null;
let proposed = null;
let tab = 'M';
let chart = null;
const review = new Map(); // "aId\tbId" → 'a' | 'r'

// a review band this wide (in weight, log₂ units) below the upper threshold when the
// proposed thresholds coincide: the pairs nearest the line are then shown for review
const REVIEW_BAND = 5;
// a rule that makes more than this share of all pairs candidates is named before linking
const LOOSE_RULE = 0.5;

/** What Link still needs, in words ('' when nothing). */
function missing() {
  const need = [];
  if (el('schema-choice').value === 'file' && !el('schema').files[0]) need.push('the schema file');
  if (!el('batch-a').files[0]) need.push('party A\'s record batch');
  if (!el('batch-b').files[0]) need.push('party B\'s record batch');
  return need.length ? `Link needs ${need.join(', ').replace(/, ([^,]*)$/, ' and $1')}.` : '';
}
const ready = () => {
  const why = missing();
  el('link').disabled = !!why;
  el('link-why').textContent = why;
};
for (const id of ['schema', 'batch-a', 'batch-b']) el(id).addEventListener('change', ready);
el('schema-choice').addEventListener('change', () => {
  el('schema-field').hidden = el('schema-choice').value !== 'file';
  ready();
});
ready();

/** Shows a warning naming the loose rule; resolves true to link anyway. */
function confirmLoose(rule, info) {
  return new Promise((resolve) => {
    const box = document.createElement('div');
    box.className = 'warning';
    box.setAttribute('role', 'alert');
    const p = document.createElement('p');
    const share = Math.round((100 * rule.pairs) / info.pairs);
    p.textContent = `The blocking rule "${rule.rule}" makes ${rule.pairs.toLocaleString('en')} of all ${info.pairs.toLocaleString('en')} pairs (${share} %) candidates: linking would compare almost every pair and may take minutes. Ask the data owners for a stricter rule in the schema, or link anyway.`;
    const yes = document.createElement('button');
    yes.type = 'button';
    yes.id = 'link-anyway';
    yes.textContent = 'Link anyway';
    const no = document.createElement('button');
    no.type = 'button';
    no.className = 'secondary';
    no.textContent = 'Do not link';
    const done = (ok) => {
      box.remove();
      resolve(ok);
    };
    yes.addEventListener('click', () => done(true));
    no.addEventListener('click', () => done(false));
    box.append(p, yes, no);
    el('link-warning').replaceChildren(box);
    yes.focus();
  });
}

el('link').addEventListener('click', async () => {
  clearErrors();
  let schema, a, b;
  try {
    schema = el('schema-choice').value === 'febrl' ? JSON.stringify(FEBRL) : await el('schema').files[0].text();
    JSON.parse(schema);
  } catch (e) {
    return showError(el('schema'), `This is not a schema file (JSON): ${describe(e)}. Ask the data owner who made the schema for schema.json.`);
  }
  [a, b] = await Promise.all([el('batch-a').files[0].arrayBuffer(), el('batch-b').files[0].arrayBuffer()]);
  let verify;
  try {
    verify = await verifyOptions();
  } catch (e) {
    return showError(e.control ? el(e.control) : el('link'), e.control ? e.message : `a file could not be read: ${describe(e)}`);
  }
  el('status').textContent = '';
  el('link').disabled = true;
  try {
    // the rules' pair counts first (cheap): a rule that admits most pairs is named before the long part
    const info = await withProgress(el('link-progress'), worker, 'blocking', { schema, a: a.slice(0), b: b.slice(0), verify });
    const loose = info.rules.filter((r) => r.pairs > LOOSE_RULE * info.pairs).sort((x, y) => y.pairs - x.pairs)[0];
    if (loose && !(await confirmLoose(loose, info))) return;
    const t0 = performance.now();
    res = await withProgress(el('link-progress'), worker, 'link', { schema, a, b, verify }, [a, b]);
    weights = res.weights;
    proposed = { upper: res.upper, lower: res.lower };
    review.clear();
    el('status').textContent = `linked in ${(performance.now() - t0) / 1000 < 1 ? `${Math.round(performance.now() - t0)} ms` : `${((performance.now() - t0) / 1000).toFixed(1)} s`}`;
    el('status').dataset.ms = String(Math.round(performance.now() - t0));
    if (proposed.lower >= proposed.upper) {
      proposed.lower = proposed.upper - REVIEW_BAND;
      res = { ...res, ...(await worker.call('decide', proposed)) };
    }
    showFit();
    showHistogram();
    show();
    el('results').hidden = false;
  } catch (e) {
    el('status').textContent = '';
    if (e.code === 'CANCELLED') return showError(el('link'), 'Cancelled: nothing was linked. Press Link to start again.');
    const signed = signatureError(e);
    if (signed) return showError(signed.control, signed.text);
    const target = /party B|different keys/.test(e.message) ? 'batch-b' : /party A/.test(e.message) ? 'batch-a' : /schema/.test(e.message) ? 'schema' : 'link';
    // plain words first for what a matcher can fix; the core's message after them
    const plain =
      e.code === 'FINGERPRINT_MISMATCH'
        ? 'These batches were made under another schema than the one chosen here: choose the schema file the data owners used (or the bundled FEBRL one, if they chose it).'
        : /different keys/.test(e.message)
          ? 'The two owners embedded with different keys: ask them to use the same shared key (one makes it with New key and sends the file to the other) and embed again.'
          : /party A/.test(e.message) && /party B/.test(e.message)
            ? 'The two batches look swapped: put party A\'s batch (records-a.glrb) in the first box and party B\'s (records-b.glrb) in the second.'
            : null;
    showError(el(target === 'schema' && el('schema-choice').value === 'febrl' ? 'link' : target), plain ? `${plain} (Details: ${describe(e)})` : describe(e));
  } finally {
    ready();
  }
});

function showFit() {
  const tbody = el('fit').querySelector('tbody');
  tbody.replaceChildren();
  for (const f of res.fit.fields) {
    const tr = document.createElement('tr');
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = f.name;
    const td = document.createElement('td');
    td.textContent = f.levels.map((l, i) => `${l}: m ${fmt(f.m[i], 3)}, u ${fmt(f.u[i], 4)}, w ${f.weights[i] >= 0 ? '+' : ''}${fmt(f.weights[i], 2)}`).join(' | ');
    tr.append(th, td);
    tbody.append(tr);
  }
}

function showHistogram() {
  let lo = Infinity, hi = -Infinity;
  for (const w of weights) { if (w < lo) lo = w; if (w > hi) hi = w; }
  if (!Number.isFinite(lo)) { lo = -1; hi = 1; }
  lo = Math.floor(Math.min(lo, proposed.lower)); hi = Math.ceil(Math.max(hi, proposed.upper));
  const bins = 60;
  const width = (hi - lo) / bins || 1;
  const xs = Array.from({ length: bins }, (_, i) => lo + (i + 0.5) * width);
  const counts = new Array(bins).fill(0);
  for (const w of weights) counts[Math.min(bins - 1, Math.floor((w - lo) / width))]++;
  for (const id of ['upper', 'lower']) {
    el(id).min = String(lo);
    el(id).max = String(hi);
    el(id).value = String(res[id]);
  }
  sliderText();
  chart?.destroy();
  const fig = el('histogram');
  chart = new uPlot(
    {
      width: Math.max(280, Math.min(fig.clientWidth || 640, 900)),
      height: 220,
      scales: { x: { time: false }, y: { distr: 3 } },
      axes: [{ label: 'weight' }, { label: 'pairs' }],
      series: [{ label: 'weight' }, { label: 'pairs', fill: 'rgba(11,92,173,0.35)', stroke: '#0b5cad', paths: uPlot.paths.bars({ size: [1, Infinity] }) }],
      hooks: {
        draw: [
          (u) => {
            const ctx = u.ctx;
            for (const [id, color] of [['upper', '#1a7f37'], ['lower', '#9a6700']]) {
              const x = u.valToPos(Number(el(id).value), 'x', true);
              ctx.save();
              ctx.strokeStyle = color;
              ctx.lineWidth = 2;
              ctx.beginPath();
              ctx.moveTo(x, u.bbox.top);
              ctx.lineTo(x, u.bbox.top + u.bbox.height);
              ctx.stroke();
              ctx.restore();
            }
          },
        ],
      },
    },
    [xs, counts.map((c) => (c > 0 ? c : null))],
    fig,
  );
}

function sliderText() {
  el('upper-value').textContent = fmt(Number(el('upper').value), 1);
  el('lower-value').textContent = fmt(Number(el('lower').value), 1);
}

for (const id of ['upper', 'lower']) {
  el(id).addEventListener('input', () => {
    // the lower threshold never above the upper one
    if (Number(el('lower').value) > Number(el('upper').value)) el(id === 'upper' ? 'lower' : 'upper').value = el(id).value;
    sliderText();
    chart?.redraw(false, false);
  });
  el(id).addEventListener('change', () => decide({ upper: Number(el('upper').value), lower: Number(el('lower').value) }));
}
el('proposed').addEventListener('click', () => {
  el('upper').value = String(proposed.upper);
  el('lower').value = String(proposed.lower);
  sliderText();
  chart?.redraw(false, false);
  decide(proposed);
});

async function decide(t) {
  try {
    const r = await worker.call('decide', t);
    res = { ...res, ...r };
    show();
  } catch (e) {
    showError(el('export'), describe(e));
  }
}

const key = (i) => `${res.pairs.aIds[i]}\t${res.pairs.bIds[i]}`;

function show() {
  const accepted = [...review.values()].filter((v) => v === 'a').length;
  el('summary').textContent = `${res.matches.toLocaleString('en')} pairs linked, ${res.possible.toLocaleString('en')} to review (${res.sizeA.toLocaleString('en')} records of party A, ${res.sizeB.toLocaleString('en')} of party B).${accepted ? ` ${accepted} accepted in review.` : ''}${res.private ? '' : ' These batches are NOT private (seeded noise).'}`;
  el('link-next').textContent = res.possible
    ? 'Look through the pairs to review (Accept or Reject each), then download the pairs and send record-pairs.csv to both data owners: each puts its own ids back on its page (step 4).'
    : 'Download the pairs and send record-pairs.csv to both data owners: each puts its own ids back on its page (step 4).';
  const rules = el('rules');
  rules.replaceChildren(...(res.rules ?? []).map((r) => Object.assign(document.createElement('li'), { textContent: `blocking rule "${r.rule}": ${r.pairs.toLocaleString('en')} pairs` })));
  el('summary-details').textContent = `${res.candidates.toLocaleString('en')} candidate pairs of ${res.sizeA.toLocaleString('en')} × ${res.sizeB.toLocaleString('en')} records (reduction ratio ${fmt(res.reductionRatio, 4)}); M ${res.matches.toLocaleString('en')} · P ${res.possible.toLocaleString('en')} · U ${res.nonMatches.toLocaleString('en')} at thresholds ${fmt(res.upper, 2)} / ${fmt(res.lower, 2)} (${res.assignment}); EM: ${res.fit.iterations} iterations; ${accepted} possible matches accepted in review. When the proposed thresholds coincide, the review band is the ${REVIEW_BAND} weight units below the upper one.`;
  el('summary').dataset.matches = String(res.matches);
  el('summary').dataset.possible = String(res.possible);
  for (const c of ['M', 'P', 'U']) el(`tab-${c}`).setAttribute('aria-selected', String(c === tab));
  el('tab-M').textContent = `Linked (${res.matches})`;
  el('tab-P').textContent = `To review (${res.possible})`;
  el('tab-U').textContent = `Not linked (${res.nonMatches})`;
  const thead = el('pairs').querySelector('thead');
  const tbody = el('pairs').querySelector('tbody');
  tbody.replaceChildren();
  const head = document.createElement('tr');
  for (const h of ['A id', 'B id', 'weight', 'P(match)', ...res.fields.map((f) => f.name), ...(tab === 'P' ? ['review'] : [])]) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = h;
    head.append(th);
  }
  thead.replaceChildren(head);
  if (tab === 'U') {
    el('pairs').hidden = true;
    el('panel-note').textContent = `${res.nonMatches.toLocaleString('en')} candidate pairs are below the lower threshold (or lost to a better pair in the assignment): not listed; the histogram shows their weights.`;
    return;
  }
  el('pairs').hidden = false;
  const nf = res.fields.length;
  const rows = [];
  for (let i = 0; i < res.pairs.classes.length && rows.length < SHOWN; i++) if (res.pairs.classes[i] === tab) rows.push(i);
  for (const i of rows) {
    const tr = document.createElement('tr');
    const cells = [res.pairs.aIds[i], res.pairs.bIds[i], fmt(res.pairs.weight[i], 2), fmt(res.pairs.probability[i], 4)];
    for (let f = 0; f < nf; f++) {
      const lv = res.pairs.levels[i * nf + f];
      cells.push(lv === 255 ? 'missing' : res.fields[f].levels[lv]);
    }
    for (const c of cells) {
      const td = document.createElement('td');
      td.textContent = c;
      tr.append(td);
    }
    if (tab === 'P') {
      const td = document.createElement('td');
      for (const [v, label] of [['a', 'Accept'], ['r', 'Reject']]) {
        const b = document.createElement('button');
        b.type = 'button';
        b.textContent = label;
        b.className = 'review';
        b.setAttribute('aria-pressed', String(review.get(key(i)) === v));
        b.setAttribute('aria-label', `${label} ${res.pairs.aIds[i]} and ${res.pairs.bIds[i]}`);
        b.addEventListener('click', () => {
          if (review.get(key(i)) === v) review.delete(key(i));
          else review.set(key(i), v);
          show();
        });
        td.append(b);
      }
      tr.append(td);
    }
    tbody.append(tr);
  }
  const total = tab === 'M' ? res.matches : res.possible;
  el('panel-note').textContent = total > rows.length ? `showing the first ${rows.length} of ${total.toLocaleString('en')} (by weight); the export has all` : '';
}

for (const c of ['M', 'P', 'U']) {
  el(`tab-${c}`).addEventListener('click', () => {
    tab = c;
    show();
  });
}

el('export').addEventListener('click', async () => {
  clearErrors();
  try {
    const marks = Array.from({ length: res.pairs.classes.length }, (_, i) => review.get(key(i)) ?? '-').join('');
    const csv = await worker.call('csv', { upper: res.upper, lower: res.lower, review: marks });
    download('record-pairs.csv', csv, 'text/csv');
  } catch (e) {
    showError(el('export'), describe(e));
  }
});

addEventListener('resize', () => {
  if (chart) chart.setSize({ width: Math.max(280, Math.min(el('histogram').clientWidth, 900)), height: 220 });
});

worker.call('keygen').then(
  () => (document.body.dataset.ready = 'true'),
  (e) => showError(el('link'), describe(e)),
);
