// The data owner's worker: holds the DataOwner (records and budget) so that long
// work (normalizing, mining, embedding 150,000 records) never blocks the page.
import * as gl from './wasm.js';
import { serveOps, transferring, streamInto, unmapOwn } from './common.js';
import { signingOps } from './signing.js';

let owner = null;

const fail = (message, code) => Object.assign(new Error(message), { code });

serveOps({
  defaults: () => gl.defaults(),

  /** The file's format as the core reads it, its CSV columns, and its first records. */
  peek({ bytes, name, format, column }) {
    return gl.peekInput(new Uint8Array(bytes), { name, format, column: column || null });
  },

  /**
   * The records, read and normalized by the core (text or CSV, as `peek` saw it):
   * `file` (a File) is streamed chunk by chunk, never held whole; `bytes` is its
   * head, for the preview.
   */
  async load({ file, bytes, name, format, column, idColumn, alphabet, budget }, progress) {
    owner?.free();
    owner = null;
    const input = { name, format, column: column || null, idColumn: idColumn || null };
    const reader = new gl.RecordReader(input);
    try {
      await streamInto(file, reader, progress);
      owner = gl.DataOwner.fromReader(reader, { alphabet, budget });
    } finally {
      reader.free();
    }
    const head = gl.peekInput(new Uint8Array(bytes), input).head;
    const report = owner.normalizationReport();
    const preview = gl.normalize(head.length ? head : [''], alphabet);
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

  merge({ mine, partner, options }) {
    const shared = gl.DataOwner.mergeBases(mine, partner, options);
    return { shared, fingerprint: gl.fingerprint(shared), grams: JSON.parse(shared).grams?.length };
  },

  keygen: () => gl.keygen(),

  ...signingOps(gl),

  /** The matcher's pairs with this party's pseudonyms replaced by its own ids (the map stays in this tab). */
  unmap(args) {
    return unmapOwn(gl, args);
  },

  embed({ shared, party, thresholds, sendThresholds, binary, key, noKey, keepIds, signingKey }, progress) {
    if (!owner) throw fail('load your records first', 'INVALID_PARAMETER');
    const options = { party, binary, key, noKey, keepIds, ...(party !== 'B' || sendThresholds ? { thresholds } : {}) };
    const batch = owner.embed(shared, options, progress);
    // the map from the batch's pseudonyms to the own ids, as CSV bytes moved to
    // the page without a copy (null when the ids were kept)
    const idMap = owner.idMapBytes() ?? null;
    // the signature of the batch's bytes as they are downloaded (a JSON string as its UTF-8)
    const signature = signingKey ? gl.signBatch(signingKey, batch) : null;
    const info = { size: owner.size, fingerprint: gl.fingerprint(shared), keyed: !noKey, idMap, signature };
    const moved = [batch, idMap].filter((x) => x instanceof Uint8Array).map((x) => x.buffer);
    return transferring({ batch, ...info }, moved);
  },
});
