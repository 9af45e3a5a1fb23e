// The data-owner page: records → normalization → noisy base → shared base → vector batch.
// Everything runs here and in a worker; the only outputs are the files the user downloads.
import { $, WorkerClient, showError, clearErrors, describe, download, numberField, setProgress, fmt, downloadChecked, keyControls, showFileNames, addParties } from './common.js';
import { PageLedger, fileLedgerKey } from './ledger.js';
import { ownIdsStep } from './own-ids.js';
import { ownerSigning } from './signing.js';
import { presetNote, applyPreset, mineOptions, mineErrorTarget } from './owner-config.js';

showFileNames();

const worker = new WorkerClient(new URL('./owner-worker.js', import.meta.url));
const state = {
  bytes: null, // the file, kept here so a cancelled worker can be refilled
  fileName: '',
  loadArgs: null,
  budget: 0.1,
  spentBefore: 0, // ε spent by workers since cancelled (their releases stand)
  spent: 0,
  ledger: null, // this file's privacy ledger, kept in this browser across loads and reloads (ledger.js)
  base: null, // our noisy base (JSON)
  minedWith: null, // the configuration (preset) our noisy base was mined with
  shared: null,
  defaults: null,
};

const el = (id) => document.getElementById(id);
const enable = (section, on) => section.setAttribute('aria-disabled', on ? 'false' : 'true');

function updateBudget() {
  // the file's ledger, once loaded, is the meter: it never resets (not on Load, not on a reload)
  const l = state.ledger;
  const spent = l ? l.spent : state.spentBefore + state.spent;
  const budget = l ? l.total : state.budget;
  el('budget-meter').max = budget;
  el('budget-meter').value = Math.min(spent, budget);
  el('budget-text').textContent = `${fmt(spent, 4)} of ${fmt(budget, 4)} (${fmt(Math.max(0, budget - spent), 4)} left)`;
  if (l) {
    el('ledger-text').textContent = `spent so far on this file in this browser: ε ${fmt(spent, 4)} in ${l.spends.length} mining${l.spends.length === 1 ? '' : 's'}`;
    el('ledger-export').hidden = false;
    el('ledger-import-label').hidden = false;
  }
}

/** The ledger of the loaded file, its total set from the page's budget (a raise is kept on record). */
async function openLedger(budget) {
  const key = await fileLedgerKey(state.bytes, state.fileName);
  const ledger = new PageLedger(key, state.fileName, budget);
  ledger.setTotal(budget);
  ledger.save();
  state.ledger = ledger;
  return ledger;
}

// the core's owner needs a budget above 0 even when the ledger has none left (embedding spends nothing)
const workerBudget = (l) => Math.max(l.remaining, 2 ** -40);

async function init() {
  try {
    const d = await worker.call('defaults');
    state.defaults = d;
    el('owner-budget').value = d.owner.budget;
    el('alphabet').value = d.owner.alphabet;
    const c = d.config;
    el('miner').value = c.mine.miner;
    el('strategy').value = c.mine.strategy;
    el('epsilon').value = c.mine.epsilon;
    el('k').value = c.mine.k;
    el('q-min').value = c.mine.qMin;
    el('q-max').value = c.mine.qMax;
    el('h-max').value = c.mine.hMax;
    el('merge-k').value = c.mine.k;
    el('party').value = d.embed.party;
    thresholdControls();
    el('ed').value = c.thresholds.ed;
    el('mode').value = typeof c.thresholds.mode === 'string' ? c.thresholds.mode : 'global';
    // the defaults are the recommended configuration
    el('preset').value = 'recommended';
    el('preset-note').textContent = presetNote(state.defaults.presets, 'recommended');
    state.budget = d.owner.budget;
    updateBudget();
    document.body.dataset.ready = 'true';
  } catch (e) {
    showError(el('file'), `gramlink could not start: ${describe(e)}`);
  }
}

function fillColumns(header) {
  const col = el('column');
  const idc = el('id-column');
  col.replaceChildren(...header.map((h) => new Option(h, h)));
  idc.replaceChildren(new Option('(row number)', ''), ...header.map((h) => new Option(h, h)));
  const guess = header.find((h) => /name|surname|city|place|text|string/i.test(h)) ?? header[0];
  if (guess !== undefined) col.value = guess;
  const id = header.find((h) => /^(id|key|record[_ ]?id)$/i.test(h));
  idc.value = id ?? '';
}

/** The column pickers, from the core's reading of the file (`peekInput`). */
async function setFormat() {
  const csv = el('format').value === 'csv';
  // off while the core reads the header: a column chosen meanwhile would be reset by it
  el('column').disabled = true;
  el('id-column').disabled = true;
  if (csv && state.bytes) {
    try {
      const { columns } = await worker.call('peek', { bytes: state.bytes, name: state.fileName, format: 'csv' });
      fillColumns(columns ?? []);
    } catch (e) {
      fillColumns([]);
      showError(el('format'), describe(e));
    }
  } else {
    el('column').replaceChildren();
    el('id-column').replaceChildren();
  }
  el('column').disabled = !csv || !state.bytes;
  el('id-column').disabled = !csv || !state.bytes;
}

el('file').addEventListener('change', async () => {
  clearErrors($('#step-file'));
  const f = el('file').files[0];
  el('preview').hidden = true;
  // nothing to load, and no column to pick (setFormat would reset it), until this file's header is read
  for (const id of ['load', 'quick', 'column', 'id-column']) el(id).disabled = true;
  if (!f) return;
  try {
    // the file itself goes to the worker, which streams it; here only its head
    // (format detection, columns, preview)
    state.file = f;
    state.bytes = await f.slice(0, 65536).arrayBuffer();
  } catch (e) {
    showError(el('file'), `the file could not be read: ${describe(e)}`);
    return;
  }
  state.fileName = f.name;
  try {
    // detected by the core: a .csv/.tsv name or a header-like first line
    el('format').value = (await worker.call('peek', { bytes: state.bytes, name: f.name, format: 'auto' })).format;
  } catch (e) {
    el('format').value = 'text';
    showError(el('file'), describe(e));
  }
  await setFormat();
  el('load').disabled = false;
  el('quick').disabled = false;
  el('load-status').textContent = `${f.name}: ${f.size.toLocaleString('en')} bytes, read locally`;
});
el('format').addEventListener('change', async () => {
  clearErrors($('#step-file'));
  el('load').disabled = true;
  el('quick').disabled = true;
  await setFormat();
  el('load').disabled = !state.bytes;
  el('quick').disabled = !state.bytes;
});

/** Where a loading error belongs. */
function loadErrorTarget(e, args) {
  switch (e.code) {
    case 'MISSING_COLUMN':
      return args.idColumn && e.message.includes(`"${args.idColumn}"`) && !e.message.includes(`"${args.column}" `) ? el('id-column') : el('column');
    case 'DUPLICATE_ID':
      return el('id-column');
    case 'INVALID_ALPHABET':
      return el('alphabet');
    case 'INVALID_EPSILON':
      return el('owner-budget');
    case 'MALFORMED_CSV':
      return /id column/.test(e.message) ? el('id-column') : el('file');
    default:
      return el('file');
  }
}

async function load(args) {
  const r = await worker.call('load', { ...args, file: state.file, bytes: state.bytes }, (p) => {
    el('load-status').textContent = `reading ${state.fileName}: ${Math.round((100 * p.done) / Math.max(1, p.total))} %`;
  });
  state.spent = r.spent;
  updateBudget();
  return r;
}

/** Loads and normalizes the chosen file; true when it loaded. */
async function loadFile() {
  clearErrors($('#step-file'));
  if (!state.bytes) return showError(el('file'), 'choose a file first') && false;
  let budget;
  try {
    budget = numberField(el('owner-budget'), { above: 0, max: 1000 });
  } catch {
    return false;
  }
  const csv = el('format').value === 'csv';
  const args = {
    name: state.fileName,
    format: csv ? 'csv' : 'text',
    column: csv ? el('column').value : null,
    idColumn: csv ? el('id-column').value || null : null,
    alphabet: el('alphabet').value,
    budget,
  };
  if (csv && !args.column) return showError(el('column'), 'the file has no header row to pick a column from; is it a text file?') && false;
  if (csv && args.idColumn && args.idColumn === args.column) return showError(el('id-column'), 'the id column must differ from the column to link') && false;
  el('load').disabled = true;
  el('load-status').textContent = 'normalizing…';
  const t0 = performance.now();
  try {
    args.budget = workerBudget(await openLedger(budget));
    const r = await load(args);
    const rep = r.report;
    state.loadArgs = args;
    state.budget = budget;
    state.base = state.shared = null;
    updateBudget();
    el('norm-summary').textContent = `${rep.total.toLocaleString('en')} records: ${rep.kept.toLocaleString('en')} kept${rep.changed ? `, ${rep.changed.toLocaleString('en')} changed by normalization other than upper case (accents, punctuation)` : ''}${rep.empty ? `, ${rep.empty.toLocaleString('en')} normalize to empty (set aside, never matched)` : ''}.${rep.warning ? ` Warning: ${rep.warning}.` : ''}`;
    const tbody = $('#preview-table tbody');
    tbody.replaceChildren(...r.preview.raw.map((raw, i) => {
      const tr = document.createElement('tr');
      for (const v of [String(i + 1), raw, r.preview.normalized[i] || '(empty)']) tr.append(Object.assign(document.createElement('td'), { textContent: v }));
      return tr;
    }));
    el('empty-ids').textContent = rep.empty ? `Ids of the records that normalize to empty${rep.empty > rep.empty_ids.length ? ` (first ${rep.empty_ids.length})` : ''}: ${rep.empty_ids.join(', ')}` : 'No record normalizes to empty.';
    if (rep.empty > rep.total / 2) showError(el(csv ? 'column' : 'file'), `${rep.empty} of ${rep.total} records normalize to empty: is this the right ${csv ? 'column' : 'file'}?`);
    el('preview').hidden = false;
    el('load-status').textContent = `loaded ${rep.kept.toLocaleString('en')} records in ${Math.round(performance.now() - t0)} ms`;
    enable($('#step-mine'), true);
    el('mine').disabled = false;
    return true;
  } catch (e) {
    el('load-status').textContent = '';
    // the core refuses a party whose records all normalize to empty (EMPTY_INPUT naming
    // the normalization): say it next to the column, in the page's words
    if (e.code === 'EMPTY_INPUT' && /normalization/.test(e.message)) showAllEmpty(args);
    else showError(e.code === 'INVALID_LEDGER' ? el('owner-budget') : loadErrorTarget(e, args), describe(e));
    return false;
  } finally {
    el('load').disabled = false;
  }
}

el('load').addEventListener('click', loadFile);
// the simple path: one button loads with the defaults and mines
el('quick').addEventListener('click', async () => {
  el('quick').disabled = true;
  try {
    if (await loadFile()) el('mine').click();
  } finally {
    el('quick').disabled = false;
  }
});

/** Every record normalized to the empty string: most likely the wrong column or file. */
function showAllEmpty(args) {
  const csv = args.format === 'csv';
  showError(csv ? el('column') : el('file'), `every record of ${csv ? `column "${args.column}"` : 'the file'} normalizes to the empty string over the alphabet: ${csv ? 'pick the column that holds the strings to link' : 'is this the right file?'}`);
}

el('miner').addEventListener('change', () => {
  el('strategy').disabled = el('miner').value !== 'prefix-tree';
  el('h-max').disabled = el('miner').value !== 'prefix-tree';
});

/** Where a mining error belongs. */
el('preset').addEventListener('change', () => {
  clearErrors($('#step-mine'));
  applyPreset(state.defaults.presets, el('preset').value);
});

el('mine').addEventListener('click', async () => {
  clearErrors($('#step-mine'));
  let options;
  try {
    options = mineOptions(state.defaults.presets);
  } catch {
    return;
  }
  // charged before the worker starts: a cancelled run keeps its ε, as its progress depends on the noisy counts
  let spend = null;
  try {
    if (options.miner !== 'random') spend = state.ledger.charge('page: mine', options.epsilon, `mining ${options.miner} (not finished: cancelled or failed)`);
  } catch (e) {
    return showError(el('epsilon'), describe(e));
  }
  updateBudget();
  let cancelled = false;
  el('mine').disabled = true;
  el('cancel').hidden = false;
  el('progress').hidden = false;
  el('progress-text').textContent = 'starting…';
  try {
    const preset = el('preset').value;
    const r = await worker.call('mine', { options }, (p) => setProgress(el('progress-bar'), el('progress-text'), p));
    if (spend) state.ledger.settle(spend, `noisy base of ${r.grams.length} grams (${r.params.miner})${r.private ? '' : ', NOT private'} -> ${baseName()}.noisy-base.json`, r.params.epsilon_spent);
    state.base = r.base;
    state.minedWith = preset;
    el('merge-shape').textContent = `The shared base follows the configuration your base was mined with (${presetNote(state.defaults.presets, preset)}); your partner must have chosen the same.`;
    state.spent = r.spent;
    updateBudget();
    const p = r.params;
    el('base-summary').textContent = `${r.grams.length} grams of lengths ${p.q_min}–${p.q_max}${options.padding ? ' (records padded as ^record$)' : ''} by ${p.miner}${p.strategy ? ` (${p.strategy})` : ''}; ε spent by this mining: ${fmt(p.epsilon_spent, 4)} of ${fmt(p.epsilon, 4)}.${r.private ? '' : ' WARNING: this base is NOT private (exact miner or seeded): do not send it.'}`;
    const tbody = $('#base-table tbody');
    tbody.replaceChildren(...r.grams.map((g, i) => {
      const tr = document.createElement('tr');
      tr.append(Object.assign(document.createElement('td'), { textContent: String(i + 1) }));
      tr.append(Object.assign(document.createElement('td'), { textContent: JSON.stringify(g.gram), className: 'mono' }));
      tr.append(Object.assign(document.createElement('td'), { textContent: fmt(g.count, 1), className: 'num' }));
      return tr;
    }));
    el('base-out').hidden = false;
    el('progress-text').textContent = 'done';
    enable($('#step-merge'), true);
    el('partner').disabled = false;
    el('merge-k').value = options.k;
  } catch (e) {
    if (e.code === 'CANCELLED') {
      // the cancel handler owns what follows: it reloads the records into a fresh worker and
      // only then gives Mine back (a Mine sent before the reload ends would find no records)
      cancelled = true;
    } else {
      // refused before any noise was drawn (a parameter or the budget): the charge is taken back
      if (spend && /^(INVALID_|BUDGET_EXCEEDED)/.test(e.code ?? '')) state.ledger.refund(spend);
      el('progress').hidden = true;
      showError(mineErrorTarget(e), describe(e));
    }
    updateBudget();
  } finally {
    if (!cancelled) el('mine').disabled = false;
    el('cancel').hidden = true;
  }
});

const CANCELLED = 'cancelled: no base was made, but its ε stays spent (its progress depended on the noisy counts)';

el('cancel').addEventListener('click', async () => {
  el('mine').disabled = true;
  worker.cancel();
  // The fresh worker has no records: load them again, with what the ledger has left
  // (the cancelled mining was charged when it started, and stays charged).
  state.ledger.refresh();
  const left = state.ledger.remaining;
  el('progress-text').textContent = 'cancelled; reloading your records…';
  try {
    if (left > 0) {
      await load({ ...state.loadArgs, budget: left });
      el('progress-text').textContent = CANCELLED;
      el('mine').disabled = false;
    } else {
      el('mine').disabled = true;
      el('progress-text').textContent = 'cancelled; the budget is spent: no more mining';
    }
  } catch (e) {
    showError(el('mine'), `reloading after the cancel failed: ${describe(e)}`);
  }
});

// one ledger per party: what the CLI (or another browser) spent on this data counts here too
el('ledger-import').addEventListener('change', async () => {
  const input = el('ledger-import');
  clearErrors(el('budget'));
  const f = input.files[0];
  if (!f || !state.ledger) return;
  try {
    const added = state.ledger.importFrom(await f.text());
    updateBudget();
    el('ledger-text').textContent += added ? ` (${added} spent elsewhere, imported from ${f.name})` : ` (${f.name} adds nothing new)`;
  } catch (e) {
    showError(input, describe(e));
  } finally {
    input.value = '';
  }
});

el('ledger-export').addEventListener('click', () => {
  if (state.ledger) download(`${baseName()}.ledger.json`, state.ledger.text(), 'application/json');
});

el('download-base').addEventListener('click', () => {
  if (state.base) download(`${baseName()}.noisy-base.json`, state.base, 'application/json');
});
const baseName = () => state.fileName.replace(/\.[^.]*$/, '') || 'records';

el('merge').addEventListener('click', async () => {
  clearErrors($('#step-merge'));
  const f = el('partner').files[0];
  if (!f) return showError(el('partner'), "choose your partner's noisy base file");
  let k;
  try {
    k = numberField(el('merge-k'), { min: 1, integer: true });
  } catch {
    return;
  }
  let partner;
  try {
    partner = await f.text();
  } catch (e) {
    return showError(el('partner'), `the file could not be read: ${describe(e)}`);
  }
  if (partner.trim() === state.base.trim()) return showError(el('partner'), 'This is your own noisy base: load the one your partner sent you.');
  el('merge').disabled = true;
  try {
    // merged under the configuration the base was mined with, for k grams
    const options = { ...state.defaults.presets[state.minedWith].mine, k };
    const r = await worker.call('merge', { mine: state.base, partner, options });
    state.shared = r.shared;
    el('fingerprint').textContent = r.fingerprint.match(/.{1,4}/g).join(' ');
    el('fingerprint').dataset.value = r.fingerprint;
    el('merge-out').hidden = false;
    enable($('#step-embed'), true);
    el('embed').disabled = false;
  } catch (e) {
    // the page merges as it mined: a padding mismatch is the partner's other configuration
    const msg = e.code === 'INCOMPATIBLE_BASES' && /padding/.test(e.message)
      ? `your partner's noisy base was mined with the other configuration (yours: ${state.minedWith}): both parties must choose the same one and mine again (INCOMPATIBLE_BASES)`
      : describe(e);
    showError(/\bk\b/.test(e.message) && e.code === 'INVALID_BASE' ? el('merge-k') : el('partner'), msg);
  } finally {
    el('merge').disabled = false;
  }
});
el('partner').addEventListener('change', () => {
  clearErrors($('#step-merge'));
  el('merge').disabled = !el('partner').files[0];
});

addParties(el('party'));
// A and every party after B send thresholds; B only when three parties or more link
const thresholdControls = () => {
  const b = el('party').value === 'B';
  const send = !b || el('send-thresholds').checked;
  el('send-thresholds').disabled = !b;
  el('ed').disabled = !send;
  el('mode').disabled = !send;
};
el('party').addEventListener('change', thresholdControls);
el('send-thresholds').addEventListener('change', thresholdControls);

const keyChoice = keyControls(worker);
const signing = ownerSigning(worker, () => el('party').value);

el('embed').addEventListener('click', async () => {
  clearErrors($('#step-embed'));
  const party = el('party').value;
  let ed = 'auto';
  if (el('ed').value.trim().toLowerCase() !== 'auto') {
    try {
      ed = numberField(el('ed'), { min: 0, max: 10, integer: true });
    } catch {
      return;
    }
  }
  const m = el('mode').value;
  const thresholds = { ed, mode: m === 'global' ? { global: null } : m };
  const binary = el('binary').value === 'binary';
  el('embed').disabled = true;
  el('progress').hidden = false;
  el('cancel').hidden = true;
  el('id-map').hidden = true;
  state.idMap = null;
  signing.offer('', null);
  try {
    const keepIds = el('keep-ids').checked;
    const sendThresholds = el('send-thresholds').checked;
    const r = await worker.call('embed', { shared: state.shared, party, thresholds, sendThresholds, binary, keepIds, ...keyChoice(), signingKey: signing.key() }, (p) => setProgress(el('progress-bar'), el('progress-text'), p));
    const name = `${baseName()}.party-${party}.vectors.${binary ? 'bin' : 'json'}`;
    const bytes = binary ? r.batch.byteLength : new Blob([r.batch]).size;
    el('progress-text').textContent = 'done';
    // the map is offered even if the batch is not saved now: a later batch has other codes
    state.idMap = r.idMap && { name: `${baseName()}.party-${party}.ids.csv`, bytes: r.idMap };
    el('id-map').hidden = !state.idMap;
    unmapReady();
    signing.offer(name, r.signature);
    if (!(await downloadChecked(el('embed-warning'), name, r.batch, binary ? 'application/octet-stream' : 'application/json'))) {
      el('embed-out').textContent = `Vector batch of ${r.size.toLocaleString('en')} records (${bytes.toLocaleString('en')} bytes) not saved.`;
      return;
    }
    el('embed-out').textContent = `Vector batch of ${r.size.toLocaleString('en')} records (${bytes.toLocaleString('en')} bytes) saved as ${name}${party !== 'B' || sendThresholds ? `, with ${m} thresholds for ed ${ed}` : ''}${r.keyed ? ', keyed' : ', NOT keyed (you chose to send unkeyed vectors)'}${r.idMap ? ', ids replaced by random codes' : ', with your own ids'}. Send it to the matcher (never the key or the id map); when the matcher sends back its pairs, go on with step 5 in this tab.`;
    el('progress-text').textContent = 'done';
  } catch (e) {
    const target = /^(INVALID_KEY|KEY_REQUIRED)$/.test(e.code ?? '') ? el('key') : e.code === 'INVALID_PARAMETER' && /\bed\b/.test(e.message) ? el('ed') : el('embed');
    // the core's message names the JS API; the page's words first
    if (e.code === 'KEY_REQUIRED') showError(target, 'Your vectors leave keyed: press New key and send the key file to your partner (never to the matcher), or paste the key your partner sent.');
    else showError(target, describe(e));
  } finally {
    el('embed').disabled = false;
  }
});

el('download-ids').addEventListener('click', () => {
  if (state.idMap) download(state.idMap.name, state.idMap.bytes, 'text/csv');
});

// step 5: the matcher's pairs with this party's own ids (the id map stays in this tab)
const unmapReady = ownIdsStep({ worker, party: () => el('party').value, keptMap: () => state.idMap?.bytes ?? null, outName: (p) => `${baseName()}.party-${p}.pairs-own-ids.csv` });

init();
