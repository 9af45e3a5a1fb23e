// The matcher page with three parties or more: the further batches (#batch-more) checked
// file by file, then every batch linked into clusters in the worker (linkParties: the CLI's
// `match a.vec b.vec c.vec …`), summed up in plain words, clusters.csv offered for download.
import { $, showError, describe, download } from './common.js';
import { verifyOptions, signatureError } from './signing.js';

const el = (id) => document.getElementById(id);
const n = (x) => x.toLocaleString('en');
const BATCHES = ['batch-a', 'batch-b', 'batch-more'];

/** The controls of the clusters flow; `ready()` is the page's (it asks `state()`). */
export function clusterControls(worker, ready) {
  let checked = 'none'; // 'none' (no further batch), 'checking', 'ok' or 'bad'
  let result = null;
  let choice = 0; // the latest choice of further batches: an older one's check is dropped

  /** Each further batch checked on its own, so an error names its file. */
  el('batch-more').addEventListener('change', async () => {
    const input = el('batch-more');
    const hint = el('batch-more-info');
    el('batch-more-error').textContent = '';
    el('match-error').textContent = '';
    input.removeAttribute('aria-invalid');
    const files = [...input.files];
    const mine = ++choice;
    checked = files.length ? 'checking' : 'none';
    el('match').textContent = files.length ? 'Link into clusters' : 'Match';
    hint.textContent = files.length ? 'checking…' : '';
    ready();
    if (!files.length) return;
    const seen = [];
    for (const f of files) {
      try {
        const bytes = await f.arrayBuffer();
        const i = await worker.call('info', { bytes }, null, [bytes]);
        if (mine !== choice) return;
        if (i.thresholdMode === null) {
          throw new Error(`this is party ${i.party}'s batch without thresholds; with three parties or more every party's batch must carry them (embed it with thresholds)`);
        }
        seen.push(`${f.name}: party ${i.party}, ${n(i.size)} records`);
      } catch (e) {
        if (mine !== choice) return;
        hint.textContent = '';
        showError(input, `${f.name}: ${describe(e)}`);
        checked = 'bad';
        return ready();
      }
    }
    hint.textContent = seen.join('; ');
    checked = 'ok';
    ready();
  });

  /** The control an error is about: the batch input holding the file it names last (the later of two). */
  function target(e, files) {
    let best = null;
    let at = -1;
    for (const { id, name } of files) {
      const i = e.message.lastIndexOf(name);
      if (i > at) [best, at] = [id, i];
    }
    return el(best ?? 'match');
  }

  async function run() {
    const files = BATCHES.flatMap((id) => [...el(id).files].map((file) => ({ id, file, name: file.name })));
    let buffers, verify;
    try {
      buffers = await Promise.all(files.map((f) => f.file.arrayBuffer()));
      verify = await verifyOptions();
    } catch (e) {
      if (e.control) return showError(el(e.control), e.message);
      return showError(el('match'), `a file could not be read: ${describe(e)}`);
    }
    el('status').textContent = `linking ${files.length} batches into clusters…`;
    const t0 = performance.now();
    try {
      result = await worker.call('link', { batches: buffers, names: files.map((f) => f.name), verify }, null, buffers);
      el('status').textContent = '';
      summarize(result, performance.now() - t0);
      el('results').hidden = true;
      el('clusters').hidden = false;
    } catch (e) {
      el('status').textContent = '';
      const signed = signatureError(e);
      if (signed) showError(signed.control, signed.text);
      else if (e.code === 'FINGERPRINT_MISMATCH') showError(target(e, files), `These batches were made with different shared bases, so they cannot be linked: ${describe(e)}. Every owner must embed over the same merged base and compare the fingerprint.`);
      else showError(target(e, files), describe(e));
      el('clusters').hidden = true;
    }
  }

  /** The clusters in words: how many, how many hold records of 2, 3, … parties. */
  function summarize(r, t) {
    const parties = r.parties.length;
    const records = r.sizes.reduce((x, y) => x + y, 0);
    const each = r.parties.map((p, i) => `${p}: ${n(r.sizes[i])}`).join(', ');
    const linked = [];
    for (let k = parties; k >= 2; k--) if (r.spans[k]) linked.push(`${n(r.spans[k])} hold a record of ${k === parties ? `each of the ${k}` : k} parties`);
    const alone = r.spans[1];
    el('clusters-summary').textContent = `${n(records)} records of ${parties} parties (${each}) form ${n(r.count)} clusters. ${linked.length ? `${linked.join(', ')}; ` : 'No record was linked to another party\'s; '}${n(alone)} ${alone === 1 ? 'record was' : 'records were'} linked to no other party's. A cluster never holds two records of one party: its records are likely one person. ${n(r.compared)} distances computed; ${Math.round(t)} ms.`;
    el('clusters-summary').dataset.count = String(r.count);
    el('clusters-summary').dataset.spans = r.spans.join(',');
    el('clusters-fingerprint').textContent = r.fingerprint;
    const rows = [];
    for (let k = parties; k >= 1; k--) {
      const tr = document.createElement('tr');
      const what = k === 1 ? '1 (linked to no other party)' : `${k} of ${parties}`;
      for (const [text, cls] of [[what, ''], [n(r.spans[k]), 'num'], [n(k * r.spans[k]), 'num']]) tr.append(Object.assign(document.createElement('td'), { textContent: text, className: cls }));
      rows.push(tr);
    }
    $('#spans tbody').replaceChildren(...rows);
  }

  el('download-clusters').addEventListener('click', () => result && download('clusters.csv', result.csv, 'text/csv'));
  el('download-cluster-pairs').addEventListener('click', () => result && download('cluster-pairs.csv', result.pairsCsv, 'text/csv'));

  return {
    /** 'none' (two parties: the pairs flow), 'checking', 'ok' or 'bad'. */
    state: () => checked,
    run,
  };
}
