// The records data-owner page: a CSV and a schema → noisy bases, shared bases, a record batch.
// The simple path: choose a file; the schema is FEBRL's bundled one when the columns are
// FEBRL's, else guessed from the columns (or the partner's file, under "Advanced"); one
// button checks the file and mines.
import { WorkerClient, showError, clearErrors, describe, download, downloadChecked, numberField, keyControls, withProgress, contentFingerprint, showFileNames, addParties, jsonFile } from './common.js';
import { PageLedger, fileLedgerKey } from './ledger.js';
import { ownIdsStep } from './own-ids.js';
import { ownerSigning } from './signing.js';
import { FEBRL } from './febrl-schema.js';

showFileNames();

const worker = new WorkerClient(new URL('./records-worker.js', import.meta.url));
const el = (id) => document.getElementById(id);
const KINDS = ['id', 'name', 'string', 'date', 'number', 'keyed', 'clear', 'suppress'];
// the CSV: the File itself goes to the worker, which streams it (never read whole
// here); the page holds only its head, for the columns, the kind guesses and the preview
let file = null;
let head = null; // its first 64 KiB
let fileName = 'records.csv';
let columns = [];
let partnerSchema = null; // a schema file, used as it is
let loaded = null; // what the worker read

/** A kind from a column's name and first values (the user can change it). */
function guess(name, values) {
  const n = name.toLowerCase();
  const v = values.filter((x) => x.trim() !== '');
  if (/^(rec_?)?id$|_id$/.test(n) && !/soc|ssn|sec/.test(n)) return 'id';
  if (/given|first|surname|last|family|^name$/.test(n)) return 'name';
  if (/birth|dob|date/.test(n)) return 'date';
  // a few values: even a keyed hash is named by its frequency (docs/THREAT_MODEL.md)
  if (/^(sex|gender|state)$/.test(n)) return 'suppress';
  if (v.length && v.every((x) => /^[\d\s-]+$/.test(x.trim()))) return 'number';
  return 'string';
}

// the reader's layouts (src/record/dates.rs), in its order: year, day or month first, and
// what separates the parts (a separated day or month may have one digit)
const DATE_FORMATS = ['YYYYMMDD', 'YYYY-MM-DD', 'DD/MM/YYYY', 'MM/DD/YYYY', 'MMDDYYYY', 'DDMMYYYY',
  'YYYY/MM/DD', 'YYYY.MM.DD', 'DD.MM.YYYY', 'DD-MM-YYYY', 'MM.DD.YYYY', 'MM-DD-YYYY'];
// a format's shape, and where its year, month and day are among the matched parts
function dateLayout(f) {
  const sep = f.replace(/[YMD]/g, '')[0] ?? '';
  const order = [...new Set(f.replace(/[^YMD]/g, ''))]; // e.g. ['M', 'D', 'Y']
  const part = (p) => (p === 'Y' ? '(\\d{4})' : sep ? '(\\d{1,2})' : '(\\d{2})');
  const shape = new RegExp(`^${order.map(part).join(sep.replace(/[./]/, '\\$&'))}$`);
  return [shape, order.indexOf('Y') + 1, order.indexOf('M') + 1, order.indexOf('D') + 1];
}
let preview = []; // the head's first rows, split (for the date guesses)

/** Whether `x` is a date in format `f`: its shape, a month 1–12 and a day 1–31 (as the reader checks). */
function readsAs(f, x) {
  const [shape, , mi, di] = dateLayout(f);
  const m = shape.exec(x);
  return !!m && +m[mi] >= 1 && +m[mi] <= 12 && +m[di] >= 1 && +m[di] <= 31;
}

/**
 * The date format of a column's first values: the one that reads the most of them (the
 * list's order breaks ties: a slash date is day first, and eight digits YYYYMMDD, unless a
 * part above 12 says otherwise); null when none fits.
 */
function guessDateFormat(values) {
  const v = values.map((x) => x.trim()).filter(Boolean);
  let best = null;
  let hits = 0;
  for (const f of DATE_FORMATS) {
    const n = v.filter((x) => readsAs(f, x)).length;
    if (n > hits) [best, hits] = [f, n];
  }
  return best;
}

/** The date fields of the schema chosen, each with its format in this file (guessed, or as the user set it). */
function showDates() {
  let s = null;
  try {
    s = schemaShape();
  } catch {
    s = null;
  }
  const dates = (s?.field ?? []).filter((f) => f.kind === 'date');
  const box = el('date-fields');
  const before = new Map([...box.querySelectorAll('select')].map((x) => [x.dataset.field, x.value]));
  box.replaceChildren();
  for (const f of dates) {
    const cols = f.columns ?? [f.name];
    const i = columns.indexOf(cols[0]);
    const values = i < 0 ? [] : preview.map((r) => r[i] ?? '');
    const guessed = guessDateFormat(values);
    const div = document.createElement('div');
    div.className = 'field';
    const id = `date-format-${f.name}`;
    const label = document.createElement('label');
    label.htmlFor = id;
    label.textContent = `Date format of ${f.name}`;
    const sel = document.createElement('select');
    sel.id = id;
    sel.dataset.field = f.name;
    // a schema without a format reads each value in its own layout: the choice here is this file's
    sel.dataset.schema = f.format ?? '';
    for (const x of DATE_FORMATS) sel.append(new Option(x, x));
    sel.value = before.get(f.name) ?? guessed ?? f.format ?? 'YYYYMMDD';
    const hint = document.createElement('span');
    hint.className = 'hint';
    hint.id = `${id}-hint`;
    sel.setAttribute('aria-describedby', hint.id);
    const first = values.filter(Boolean).slice(0, 2).join(', ');
    hint.textContent = guessed
      ? `Guessed from your first values (${first}). Change it if it is wrong.`
      : first ? `No known format fits your first values (${first}): choose the right one, or fix the column.` : 'No values in the first rows.';
    div.append(label, sel, hint);
    box.append(div);
  }
  el('dates').hidden = !dates.length || !head;
}

/** This file's date formats where they differ from the schema's: the reader's per-file setting. */
function dateFormats() {
  const out = {};
  for (const sel of el('date-fields').querySelectorAll('select')) if (sel.value !== sel.dataset.schema) out[sel.dataset.field] = sel.value;
  return out;
}

addParties(el('party'));
const party = () => el('party').value;
const partner = () => (party() === 'A' ? 'B' : 'A');

/** Whether the file has every column the bundled FEBRL schema reads. */
const febrlFits = () => [FEBRL.id, ...FEBRL.field.map((f) => f.name)].every((c) => columns.includes(c));

/** Shows what the schema choice means, and the columns table only for a guessed schema. */
function showChoice() {
  const choice = el('schema-choice').value;
  el('schema-choice').querySelector('option[value=febrl]').disabled = !!head && !febrlFits();
  el('schema-choice').querySelector('option[value=partner]').disabled = !partnerSchema;
  el('columns').hidden = choice !== 'guessed' || !head;
  el('schema-hint').textContent = !head
    ? 'Both parties must use the same schema. Choose your file first.'
    : choice === 'febrl'
      ? `Your columns are FEBRL's: the bundled schema (${FEBRL.field.length} fields, id ${FEBRL.id}) is used. Both parties must use the same schema.`
      : choice === 'partner'
        ? 'Your partner\'s schema file is used as it is.'
        : `${febrlFits() ? '' : 'Your columns are not all FEBRL\'s, so '}the schema is guessed from your columns' names and values: check each column's kind under "Advanced", then send the schema to your partner (Download the schema).`;
}

/** The fields of the schema chosen, without checking ε (for the date controls). */
function schemaShape() {
  const choice = el('schema-choice').value;
  if (choice === 'partner') return partnerSchema;
  if (choice === 'febrl') return FEBRL;
  return schema({ epsilon: 0.1 });
}

/** The schema chosen: FEBRL's, the partner's as it is, or the one from the table. */
function schema(fixed = null) {
  const choice = el('schema-choice').value;
  if (choice === 'partner') {
    if (partnerSchema) return partnerSchema;
    throw Object.assign(new Error('choose the schema file your partner sent (under "Advanced")'), { code: 'FIELD' });
  }
  const epsilon = fixed?.epsilon ?? numberField(el('epsilon'), { above: 0, max: 1000 });
  if (choice === 'febrl') return { ...FEBRL, epsilon };
  const rows = [...el('columns').querySelectorAll('tbody tr')];
  const kinds = rows.map((r) => [r.dataset.column, r.querySelector('select').value]);
  const block = rows
    .filter((r) => r.querySelector('input[type=checkbox]').checked && !['id', 'suppress'].includes(r.querySelector('select').value))
    .map((r) => ({ field: r.dataset.column }));
  const ids = kinds.filter(([, k]) => k === 'id');
  if (ids.length > 1) throw Object.assign(new Error(`two id columns: ${ids.map(([c]) => c).join(' and ')}`), { code: 'FIELD' });
  const field = kinds
    .filter(([, k]) => k !== 'id')
    .map(([name, kind]) => (kind === 'date' ? { name, kind, invalid: 'missing' } : { name, kind }));
  return { version: 1, ...(ids.length ? { id: ids[0][0] } : {}), epsilon, field, ...(block.length ? { block } : {}) };
}

el('file').addEventListener('change', async () => {
  clearErrors();
  el('columns').hidden = true;
  el('split-out').hidden = true;
  el('quick').disabled = true;
  const f = el('file').files[0];
  if (!f) return;
  try {
    head = await f.slice(0, 65536).arrayBuffer();
    file = f;
    fileName = f.name;
    // the core's peek reads only the head's complete lines
    const peek = await worker.call('peek', { bytes: head.slice(0) });
    columns = peek.columns ?? [];
    const tbody = el('columns').querySelector('tbody');
    tbody.replaceChildren();
    // the first rows, for the kind guesses and the preview (a rough split: the core reads the file)
    const lines = new TextDecoder().decode(head.slice(0, 16384)).split(/\r?\n/).slice(1, 6).filter(Boolean);
    const sep = /\t/.test(lines[0] ?? '') && !/,/.test(lines[0] ?? '') ? '\t' : ',';
    const rows = lines.map((line) => line.split(sep).map((x) => x.trim().replace(/^"|"$/g, '')));
    preview = rows;
    columns.forEach((c, i) => {
      const tr = document.createElement('tr');
      tr.dataset.column = c;
      const values = rows.map((r) => r[i] ?? '');
      const sel = document.createElement('select');
      sel.setAttribute('aria-label', `kind of column ${c}`);
      sel.id = `kind-${i}`;
      for (const k of KINDS) sel.append(new Option(k, k));
      sel.value = guess(c, values);
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = c;
      const td = document.createElement('td');
      td.textContent = values.slice(0, 3).join(' · ');
      const tk = document.createElement('td');
      tk.append(sel);
      if (/^(sex|gender|state)$/i.test(c)) {
        const why = document.createElement('small');
        why.textContent = ' left out: it has a few values, and the matcher could name them by how often each occurs';
        tk.append(why);
      }
      // candidates: pairs that agree (within one edit) on a checked column; names and
      // identifier-like numbers by default (a postcode or a state would admit too many)
      const tb = document.createElement('td');
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.id = `block-${i}`;
      box.setAttribute('aria-label', `block on ${c}`);
      box.checked = sel.value === 'name' || (sel.value === 'number' && /id|ssn|sec|passport|nhs|insurance/i.test(c));
      tb.append(box);
      tr.append(th, td, tk, tb);
      tbody.append(tr);
    });
    el('schema-choice').value = partnerSchema ? 'partner' : febrlFits() ? 'febrl' : 'guessed';
    showChoice();
    el('date-fields').replaceChildren();
    showDates();
    el('check').disabled = false;
    el('quick').disabled = false;
    el('save-schema').disabled = false;
  } catch (e) {
    showError(el('file'), `${f.name}: ${describe(e)}`);
  }
});

el('schema-file').addEventListener('change', async () => {
  clearErrors();
  partnerSchema = null;
  if (!el('schema-file').files[0]) return;
  try {
    partnerSchema = await jsonFile(el('schema-file'));
    el('schema-choice').querySelector('option[value=partner]').disabled = false;
    el('schema-choice').value = 'partner';
  } catch {
    // shown next to the file
  }
  showChoice();
  showDates();
});

el('schema-choice').addEventListener('change', () => {
  clearErrors();
  el('split-out').hidden = true;
  el('mine').disabled = true;
  showChoice();
  showDates();
});
// a kind changed to or from date in the guessed schema
el('columns').addEventListener('change', showDates);
// a new date format answers the error of the last one
el('date-fields').addEventListener('change', () => clearErrors(el('h-file').parentElement));

/** Reads the file under the chosen schema and shows the budget split; false on an error (shown). */
async function check() {
  clearErrors();
  el('split-out').hidden = true;
  el('mine').disabled = true;
  try {
    const s = schema();
    loaded = null;
    loaded = await withProgress(el('load-progress'), worker, 'load', { file, schema: s, dateFormats: dateFormats() });
    loaded.schema = s;
    const sparse = loaded.fields.filter((f) => f.present < loaded.size);
    el('loaded').textContent = `${loaded.size.toLocaleString('en')} records read, ${loaded.fields.length} fields compared${sparse.length ? `; some values are empty in ${sparse.map((f) => f.name).join(', ')} (they count neither for nor against a pair)` : ''}.`;
    el('loaded-fields').textContent = loaded.fields.map((f) => `${f.name} (${f.kind}, ${f.present.toLocaleString('en')} present)`).join(', ');
    el('schema-fingerprint').textContent = loaded.fingerprint.slice(0, 32).match(/.{4}/g).join(' ');
    el('schema-fingerprint').dataset.value = loaded.fingerprint;
    const choice = el('schema-choice').value;
    el('schema-next').textContent = choice === 'febrl'
      ? `Next: mine (step 2). Your partner chooses the bundled FEBRL schema too; the matcher chooses it on its page.`
      : choice === 'partner'
        ? `Next: mine (step 2). You use the schema your partner sent; the matcher needs the same file.`
        : `Send the schema (Download the schema: schema.json) to your partner, party ${partner()}, and to the matcher; then mine (step 2).`;
    const tbody = el('split').querySelector('tbody');
    tbody.replaceChildren();
    for (const sp of loaded.split) {
      const tr = document.createElement('tr');
      for (const t of [sp.space, sp.fields.join(', '), sp.epsilon === 0 ? '0 (public grams)' : sp.epsilon.toFixed(4)]) {
        const td = document.createElement('td');
        td.textContent = t;
        tr.append(td);
      }
      tbody.append(tr);
    }
    el('split-out').hidden = false;
    el('mine').disabled = false;
    el('embed').disabled = !el('shared').files[0];
    return true;
  } catch (e) {
    el('loaded').textContent = '';
    if (e.code === 'CANCELLED') {
      showError(el('check'), 'Cancelled: nothing was read. Press the button again to read your file.');
      return false;
    }
    if (e.code === 'FIELD' && el('schema-choice').value === 'partner') showError(el('schema-choice'), describe(e));
    else if (!e.shown) showError(el('check'), describe(e));
    return false;
  }
}

el('check').addEventListener('click', check);

el('save-schema').addEventListener('click', () => {
  clearErrors();
  try {
    download('schema.json', JSON.stringify(schema(), null, 2), 'application/json');
  } catch (e) {
    if (!e.shown) showError(el('save-schema'), describe(e));
  }
});

/** Mines once (spends ε) and downloads the noisy bases; errors shown at `control`. */
async function mine(control) {
  el('mine').disabled = true;
  let ok = false;
  // the file's privacy ledger in this browser (ledger.js): a second Check and Mine, or a
  // reload, finds what was spent; its total is the schema's ε unless raised on record
  let ledger = null;
  let spend = null;
  try {
    ledger = new PageLedger(await fileLedgerKey(file, fileName), fileName, loaded.schema.epsilon);
    ledger.save();
    spend = ledger.charge('page: mine --schema', loaded.schema.epsilon, 'noisy bases (mining not finished)');
    const noisy = await withProgress(el('mine-progress'), worker, 'mine');
    const name = `noisy-bases-${party()}.json`;
    ledger.settle(spend, `noisy bases -> ${name}`);
    download(name, noisy, 'application/json');
    showMined(noisy, name);
    ok = true;
  } catch (e) {
    if (spend && /^(INVALID_|BUDGET_EXCEEDED)/.test(e.code ?? '')) ledger.refund(spend);
    if (e.code === 'CANCELLED') {
      // the worker is fresh: the file must be read again; the ε stays counted (mining may have run)
      loaded = null;
      showError(control, 'Cancelled. The ε stays counted as spent in this browser. Press "Check the file" to read your file again.');
    } else showError(control, describe(e));
  }
  if (ledger) el('ledger-text').textContent = `ε spent so far on this file in this browser: ${ledger.spent.toFixed(4)} of ${ledger.total.toFixed(4)}`;
  return ok;
}

/** What mining found, per space, in plain words; and what to send to whom. */
function showMined(noisy, name) {
  const bases = JSON.parse(noisy).bases ?? [];
  const counts = bases.map((b) => ({ space: b.space, grams: b.base?.grams?.length ?? 0 }));
  const none = counts.filter((c) => c.grams === 0).map((c) => c.space);
  el('mined').textContent = `Grams mined: ${counts.map((c) => `${c.space} ${c.grams}`).join(', ') || 'no mined spaces (public grams only)'}.${none.length ? ` Mining found no gram frequent enough to release at this ε in ${none.join(', ')}: normal for a few thousand records at the default ε. Those fields are still compared (over the public single letters); a larger ε, under "Advanced", finds more grams at a cost in privacy.` : ''}`;
  el('mine-next').textContent = `Send ${name} to your partner (party ${partner()}) and get theirs (noisy-bases-${partner()}.json); then load both files below and merge.`;
  el('mine-out').hidden = false;
}

el('mine').addEventListener('click', () => {
  clearErrors();
  return mine(el('mine'));
});

// the simple path: check with the chosen schema, then mine and download, in one press
el('quick').addEventListener('click', async () => {
  el('quick').disabled = true;
  // mined once: a second press would spend ε again (the ledger refuses it)
  const done = (await check()) && (await mine(el('quick')));
  el('quick').disabled = done;
});

const mergeReady = () => (el('merge').disabled = !(el('noisy-a').files[0] && el('noisy-b').files[0] && loaded));
for (const id of ['noisy-a', 'noisy-b']) el(id).addEventListener('change', mergeReady);
el('merge').addEventListener('click', async () => {
  clearErrors();
  el('merge-out').hidden = true;
  try {
    const [a, b] = await Promise.all([el('noisy-a').files[0].text(), el('noisy-b').files[0].text()]);
    if (a === b) return showError(el('noisy-b'), `You gave the same file twice (${el('noisy-a').files[0].name}). Load party A's noisy bases in the first box and party B's in the second.`);
    const shared = await worker.call('merge', { a, b, schema: loaded.schema });
    download('shared-bases.json', shared, 'application/json');
    el('merge-fingerprint').textContent = await contentFingerprint(shared);
    el('merge-next').textContent = `Your partner merges the same two files (or you send them shared-bases.json): the fingerprints must read the same. Then embed (step 3) with shared-bases.json.`;
    el('merge-out').hidden = false;
  } catch (e) {
    showError(/party B/.test(e.message) ? el('noisy-b') : /party A/.test(e.message) ? el('noisy-a') : el('merge'), describe(e));
  }
});

const keyChoice = keyControls(worker);
const signing = ownerSigning(worker, party);
/** The last embed's map from the batch's pseudonyms to the own ids: `{name, csv}`, or null. */
let idMap = null;
el('download-ids').addEventListener('click', () => {
  if (idMap) download(idMap.name, idMap.bytes, 'text/csv');
});

el('shared').addEventListener('change', async () => {
  el('embed').disabled = !(loaded && el('shared').files[0]);
  const f = el('shared').files[0];
  el('shared-fingerprint').textContent = f ? `Fingerprint: ${await contentFingerprint(new Uint8Array(await f.arrayBuffer()))} (must be your partner's)` : '';
});
el('embed').addEventListener('click', async () => {
  clearErrors();
  el('status').textContent = '';
  el('embed-next').hidden = true;
  if (!loaded) return showError(el('embed'), 'Read your file first (step 1: Check the file).');
  try {
    const shared = await el('shared').files[0].text();
    const p = party();
    el('id-map').hidden = true;
    idMap = null;
    signing.offer('', null);
    const { batch, idMap: map, signature } = await withProgress(el('embed-progress'), worker, 'embed', { shared, party: p, keepIds: el('keep-ids').checked, ...keyChoice(), signingKey: signing.key() });
    idMap = map && { name: `records-${p.toLowerCase()}.ids.csv`, bytes: map };
    el('id-map').hidden = !idMap;
    unmapReady();
    const name = `records-${p.toLowerCase()}.glrb`;
    const kb = batch.byteLength / 1024 / Math.max(1, loaded.size);
    el('status').textContent = `${name}: ${(batch.byteLength / 1024 / 1024).toFixed(1)} MB, about ${kb.toFixed(1)} KB a record${idMap ? '; your ids replaced by random codes' : '; with your own ids'}`;
    signing.offer(name, signature);
    const sent = await downloadChecked(el('embed-warning'), name, batch);
    el('embed-next').textContent = `${sent ? 'Send' : 'When you have downloaded it, send'} ${name} to the matcher${el('schema-choice').value === 'febrl' ? '' : ', with the schema (schema.json)'}. Never send the key or the id map. When the matcher sends back its pairs, go on with step 4 in this tab.`;
    el('embed-next').hidden = false;
  } catch (e) {
    el('status').textContent = '';
    if (e.code === 'CANCELLED') {
      loaded = null;
      return showError(el('embed'), 'Cancelled. Read your file again (step 1: Check the file), then embed.');
    }
    if (e.code === 'KEY_REQUIRED' && !el('no-key').checked) return showError(el('key'), 'Your records leave keyed: press New key and send the key file to your partner (never to the matcher), or paste the key your partner sent.');
    showError(/^(INVALID_KEY|KEY_REQUIRED)$/.test(e.code ?? '') || /keyed|key/.test(e.message) ? el('key') : el('embed'), describe(e));
  }
});

// step 4: the matcher's pairs with this party's own ids, from the id map kept in this tab
const unmapReady = ownIdsStep({ worker, party, keptMap: () => idMap?.bytes ?? null, outName: (p) => `record-pairs-${p.toLowerCase()}-own-ids.csv` });

worker.call('keygen').then(
  () => (document.body.dataset.ready = 'true'),
  (e) => showError(el('file'), describe(e)),
);
