// The three-party page (Kuzu et al.): each party's section calls the worker and offers
// the messages to download; the next party uploads them. Long steps show progress
// and can be cancelled (the worker is terminated and a fresh one started).
import { WorkerClient, showError, clearErrors, describe, download, numberField, setProgress, jsonFile } from './common.js';
import { PageLedger, fileLedgerKey } from './ledger.js';

const worker = new WorkerClient(new URL('./kuzu-worker.js', import.meta.url));
const el = (id) => document.getElementById(id);
const state = {};

const text = async (id) => { const f = el(id).files[0]; return f ? f.text() : null; };
const bytes = async (id) => { const f = el(id).files[0]; return f ? f.arrayBuffer() : null; };
const count = (n) => n.toLocaleString('en');

/** The files a step needs, or an error next to the first missing one. */
async function need(ids, read = text) {
  const out = [];
  for (const id of ids) {
    const v = await read(id);
    if (v === null) {
      showError(el(id), 'choose a file');
      throw Object.assign(new Error('missing file'), { shown: true });
    }
    out.push(v);
  }
  return out;
}

async function rule() {
  const [r] = await need(['rule-file'], (id) => jsonFile(el(id)));
  return r;
}

el('rule-file').addEventListener('change', async () => {
  clearErrors(el('rule-file').closest('section'));
  el('rule-summary').textContent = '';
  try {
    const r = await rule();
    el('rule-summary').textContent = `Blocking on ${r.block}; threshold ${r.threshold}; attributes: ${(r.attribute ?? []).map((a) => `${a.column} (${a.kind}, weight ${a.weight})`).join(', ')}.`;
  } catch (e) {
    if (!e.shown) showError(el('rule-file'), describe(e));
  }
});

/** Runs one long step with its progress bar and Cancel button; resolves to whether it finished, or the error's code. */
async function step(role, button, op, args, transfer, done) {
  clearErrors(el(button).closest('section'));
  const [btn, cancel, box] = [el(button), el(`${role}-cancel`), el(`${role}-progress`)];
  btn.disabled = true;
  cancel.hidden = false;
  box.hidden = false;
  el(`${role}-progress-text`).textContent = 'starting…';
  try {
    const r = await worker.call(op, args, (p) => setProgress(el(`${role}-progress-bar`), el(`${role}-progress-text`), p), transfer);
    el(`${role}-progress-text`).textContent = 'done';
    done(r);
    return 'DONE';
  } catch (e) {
    if (e.code === 'CANCELLED') el(`${role}-progress-text`).textContent = 'cancelled: nothing was made or sent';
    else {
      box.hidden = true;
      showError(btn, describe(e));
    }
    return e.code ?? 'FAILED';
  } finally {
    btn.disabled = false;
    cancel.hidden = true;
  }
}

/** A click on the button `id` runs `fn`; an error it has not shown yet is shown next to the button. */
function onClick(id, fn) {
  el(id).addEventListener('click', async () => {
    try {
      await fn();
    } catch (e) {
      if (!e.shown) showError(el(id), describe(e));
    }
  });
}

for (const role of ['setup', 'a', 'b', 'c']) el(`${role}-cancel`).addEventListener('click', () => worker.cancel());

onClick('setup', async () => {
  const r = await rule();
  const [list] = await need(['public-list']);
  const args = {
    list, name: el('public-list').files[0].name, identifier: r.block, bits: Number(el('key-bits').value),
    blocks: numberField(el('blocks'), { min: 1, integer: true }), take: numberField(el('take'), { min: 1, integer: true }),
  };
  await step('setup', 'setup', 'setup', args, [], (out) => {
    state.setup = out;
    el('setup-out').hidden = false;
    el('setup-summary').textContent = `A ${args.bits}-bit key pair (fingerprint ${out.fingerprint.slice(0, 16)}…) and ${count(out.blocks)} blocks on ${r.block}.`;
  });
});
el('save-model').addEventListener('click', () => download('kuzu-model.json', state.setup.model, 'application/json'));
el('save-public-key').addEventListener('click', () => download('kuzu-public-key.json', state.setup.publicKey, 'application/json'));
el('save-private-key').addEventListener('click', () => download('kuzu-private-key.json', state.setup.privateKey, 'application/json'));

const showLedger = (ledger) => {
  el('a-ledger-text').textContent = `ε spent so far on this file in this browser: ${ledger.spent.toFixed(4)} of ${ledger.total.toFixed(4)}`;
};

onClick('encrypt', async () => {
  clearErrors(el('encrypt').closest('section'));
  const r = await rule();
  const [csv, model, publicKey] = await need(['a-file', 'a-model', 'a-key']);
  const args = {
    csv, rule: r, model, publicKey, epsilon: numberField(el('epsilon'), { above: 0 }),
    wn: numberField(el('wn'), { above: 0 }), bRecords: numberField(el('b-records'), { min: 1, integer: true }),
  };
  // the block release is ε-DP: charged to the file's ledger before it runs (a cancelled
  // release keeps its ε: its progress follows the noisy sizes), as the CLI's kuzu encrypt does
  const file = el('a-file').files[0];
  const total = numberField(el('a-budget'), { above: 0 });
  const ledger = new PageLedger(await fileLedgerKey(file, file.name), file.name, total);
  ledger.setTotal(total);
  ledger.save();
  let spend;
  try {
    spend = ledger.charge('page: kuzu encrypt', args.epsilon, 'Kuzu block release (not finished: cancelled or failed)');
  } catch (e) {
    showError(el('epsilon'), describe(e));
    return;
  } finally {
    showLedger(ledger);
  }
  const ended = await step('a', 'encrypt', 'encrypt', args, [], (out) => {
    ledger.settle(spend, `Kuzu block release of ${out.size} records (noisy block sizes) -> kuzu-blocks.glka`);
    state.a = out;
    const rep = JSON.parse(out.report);
    el('a-out').hidden = false;
    el('a-summary').textContent = `${count(out.size)} records; released ${count(rep.handles.length)} encrypted records: `
      + `${count(rep.release.fakes)} fakes added, ${count(rep.release.suppressed.length)} of yours suppressed (only you know which); ${count(out.blocks.length)} bytes.`;
  });
  // refused before any noise was drawn (a bad parameter or file): the charge is taken back
  if (/^INVALID_|^MALFORMED_|^MISSING_/.test(ended)) ledger.refund(spend);
  showLedger(ledger);
});
el('save-blocks').addEventListener('click', () => download('kuzu-blocks.glka', state.a.blocks));
el('save-report').addEventListener('click', () => download('kuzu-release-report.json', state.a.report, 'application/json'));

onClick('compare', async () => {
  const r = await rule();
  const [csv, model, publicKey] = await need(['b-file', 'b-model', 'b-key']);
  const [blocks] = await need(['b-blocks'], bytes);
  const args = { csv, rule: r, model, publicKey, blocks, rerandomize: el('rerandomize').checked };
  await step('b', 'compare', 'compare', args, [blocks], (out) => {
    state.b = out;
    el('b-out').hidden = false;
    el('b-summary').textContent = `${count(JSON.parse(out.map).pairs.length)} pairs compared and blinded; ${count(out.pairs.length)} bytes for Charlie.`;
  });
});
el('save-pairs').addEventListener('click', () => download('kuzu-pairs.glkc', state.b.pairs));
el('save-map').addEventListener('click', () => download('kuzu-pair-map.json', state.b.map, 'application/json'));

onClick('decide', async () => {
  const r = await rule();
  const [privateKey] = await need(['c-key']);
  const [pairs] = await need(['c-pairs'], bytes);
  await step('c', 'decide', 'decide', { pairs, rule: r, privateKey }, [pairs], (out) => {
    state.c = out;
    el('c-out').hidden = false;
    el('c-summary').textContent = `${count(JSON.parse(out).pairs.length)} pairs match.`;
  });
});
el('save-matches').addEventListener('click', () => download('kuzu-matches.json', state.c, 'application/json'));

// The links: plain joins on the parties' own files, by the core (as `gramlink kuzu resolve`)
const rows = (csv) => csv.trim().split('\n').length - 1;
const linkErrorTarget = (e, ids) => (/pair-map|release-report/.test(e.message) ? el(ids[1]) : el(ids[0]));

/**
 * The button `button` joins two files by the worker's `op`: `files` maps each of its
 * arguments to the file input that gives it. It downloads the links as `name` and says
 * `said(count)`; an error with a code is shown next to the file it names.
 */
function onLinks(button, files, op, name, said) {
  const ids = Object.values(files);
  el(button).addEventListener('click', async () => {
    clearErrors(el(button).closest('section'));
    try {
      const texts = await need(ids);
      const csv = await worker.call(op, Object.fromEntries(Object.keys(files).map((k, i) => [k, texts[i]])));
      download(name, csv, 'text/csv');
      el('links-summary').textContent = said(count(rows(csv)));
    } catch (e) {
      if (!e.shown) showError(e.code ? linkErrorTarget(e, ids) : el(button), describe(e));
    }
  });
}

onLinks('bob-links', { matches: 'l-matches', map: 'l-map' }, 'linksForA', 'kuzu-links-for-alice.csv',
  (n) => `${n} links (Alice's handle, your id) for Alice.`);
onLinks('alice-links', { links: 'l-handles', report: 'l-report' }, 'finalLinks', 'kuzu-links.csv',
  (n) => `${n} final links (your id, Bob's id).`);

// ready once the worker has loaded the package
worker.call('ping').then(
  () => {},
  (e) => showError(el('setup'), `gramlink could not start: ${describe(e)}`),
).finally(() => { document.body.dataset.ready = 'true'; });
