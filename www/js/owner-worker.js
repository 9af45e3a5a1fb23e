// The data owner's worker: holds the DataOwner (records and budget) so that long
// work (normalizing, mining, embedding 150,000 records) never blocks the page.
import * as gl from './wasm.js';
import { serveOps, transferring, csvHead } from './common.js';

let owner = null;

const fail = (message, code) => Object.assign(new Error(message), { code });

/** Bytes to text, refusing what is not UTF-8 text (as the core does for CSV). */
function decode(bytes) {
  if (bytes.byteLength === 0) throw fail('the file is empty', 'EMPTY_INPUT');
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw fail('the file is not UTF-8 text (is it a spreadsheet or another binary file? save it as CSV)', 'NOT_TEXT');
  }
  const nul = text.indexOf('\0');
  if (nul >= 0) throw fail(`the file is binary, not text (a NUL character at position ${nul})`, 'NOT_TEXT');
  return text;
}

/** One record a line, as the core's text format: `\n` or `\r\n`, no record after a final newline. */
function lines(text) {
  const out = text.split('\n');
  if (out.length && out[out.length - 1] === '') out.pop();
  return out.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

serveOps({
  defaults: () => gl.defaults(),

  load({ bytes, format, column, idColumn, alphabet, budget }) {
    const text = decode(bytes);
    owner?.free();
    owner = null;
    const opts = { alphabet, budget };
    let head;
    if (format === 'text') {
      const recs = lines(text);
      if (recs.length === 0) throw fail('the file has no record', 'EMPTY_INPUT');
      owner = new gl.DataOwner(recs, opts);
      head = recs.slice(0, 12);
    } else {
      owner = gl.DataOwner.fromCsv(text, column, idColumn || null, opts);
      const { header, rows } = csvHead(text, 12);
      const c = header.indexOf(column);
      head = rows.map((r) => r[c] ?? '');
    }
    const report = owner.normalizationReport();
    const preview = gl.normalize(head, alphabet);
    return {
      report: { ...report, empty_ids: report.empty_ids.slice(0, 100) },
      size: owner.size,
      budget: owner.epsilonBudget,
      spent: owner.epsilonSpent,
      private: owner.private,
      preview: { raw: head, normalized: preview.normalized },
    };
  },

  mine({ options }, progress) {
    if (!owner) throw fail('load your records first', 'INVALID_PARAMETER');
    const base = owner.mine(options, progress);
    const parsed = JSON.parse(base);
    return { base, grams: parsed.grams, params: parsed.params, private: parsed.private, spent: owner.epsilonSpent, budget: owner.epsilonBudget };
  },

  merge({ mine, partner, k, options }) {
    const shared = gl.DataOwner.mergeBases(mine, partner, k, options);
    return { shared, fingerprint: gl.fingerprint(shared), grams: JSON.parse(shared).grams?.length };
  },

  embed({ shared, party, thresholds, binary }, progress) {
    if (!owner) throw fail('load your records first', 'INVALID_PARAMETER');
    const options = party === 'A' ? { party, thresholds, binary } : { party, binary };
    const batch = owner.embed(shared, options, progress);
    const info = { size: owner.size, fingerprint: gl.fingerprint(shared) };
    return batch instanceof Uint8Array ? transferring({ batch, ...info }, [batch.buffer]) : { batch, ...info };
  },
});
