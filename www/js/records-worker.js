// The records pages' worker: a RecordOwner (the party's CSV under a schema) or a
// RecordMatcher (two record batches), off the page's thread.
import * as gl from './wasm.js';
import { serveOps, transferring, streamInto, unmapOwn } from './common.js';
import { checkedVerifyOptions, verifyParties, signingOps } from './signing.js';

let owner = null;
let matcher = null;

serveOps({
  /** The CSV's columns and first rows, as the core reads them. */
  peek({ bytes }) {
    return gl.peekInput(new Uint8Array(bytes), { format: 'csv', column: null });
  },

  /**
   * Reads the CSV under the schema: fields, budget split, size. `file` (a File) is
   * streamed chunk by chunk into the core's table reader, never held whole.
   */
  async load({ file, schema, dateFormats }, progress) {
    owner?.free();
    owner = null;
    // dateFormats: this file's own date formats (the schema and its fingerprint unchanged)
    const reader = new gl.RecordTableReader(schema, { dateFormats });
    try {
      await streamInto(file, reader, progress);
      owner = gl.RecordOwner.fromReader(reader);
    } finally {
      reader.free();
    }
    return { size: owner.size, fingerprint: owner.schemaFingerprint, fields: owner.fields(), split: owner.budgetSplit() };
  },

  mine(_, progress) {
    return owner.mine(progress);
  },

  merge({ a, b, schema }) {
    return gl.RecordOwner.mergeBases(a, b, schema);
  },

  keygen: () => gl.keygen(),

  ...signingOps(gl),

  embed({ shared, party, key, noKey, keepIds, signingKey }, progress) {
    const batch = owner.embed(shared, { party, key, noKey, keepIds }, progress);
    const signature = signingKey ? gl.signBatch(signingKey, batch) : null;
    // the map from the batch's pseudonyms to the own ids (null when the ids were kept)
    // the id map as CSV bytes, moved to the page as the batch is
    const idMap = owner.idMapBytes() ?? null;
    return transferring({ batch, idMap, signature }, idMap ? [batch.buffer, idMap.buffer] : [batch.buffer]);
  },

  /** The matcher's pairs with this party's pseudonyms replaced by its own ids (the map stays in this tab). */
  unmap(args) {
    return unmapOwn(gl, args);
  },

  /** The blocking rules' pair counts, before any comparison (a page warns on a loose rule). */
  blocking({ schema, a, b, verify }) {
    // the signatures first (the CLI checks them before it reads a batch)
    verifyParties(gl, verify, { A: new Uint8Array(a), B: new Uint8Array(b) }, 'record batch');
    return gl.RecordMatcher.blocking(schema, new Uint8Array(a), new Uint8Array(b));
  },

  /** Scores the candidates once; `decide` then moves the thresholds. */
  link({ schema, a, b, verify }) {
    matcher?.free();
    matcher = null;
    matcher = new gl.RecordMatcher(schema, new Uint8Array(a), new Uint8Array(b), checkedVerifyOptions(gl, verify));
    const weights = matcher.weights();
    return { sizeA: matcher.sizeA, sizeB: matcher.sizeB, private: matcher.private, weights, ...matcher.link({}) };
  },

  decide({ upper, lower }) {
    return matcher.link({ upper, lower });
  },

  csv({ upper, lower, review }) {
    return matcher.pairsCsv({ upper, lower }, review);
  },
});
