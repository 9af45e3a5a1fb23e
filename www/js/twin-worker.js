// The twin page's worker: makeTwin off the page's thread.
import * as gl from './wasm-lab.js';
import { serveOps } from './common.js';

serveOps({
  /** Loads the package (the page is ready when this answers). */
  ping: () => gl.defaults().config.rule,

  /** A twin of `text` (one string a line) or, with a schema, of the CSV `bytes`. */
  twin({ bytes, schema, twin }) {
    if (schema) return gl.makeTwin(new Uint8Array(bytes), { schema, twin });
    const lines = new TextDecoder().decode(bytes).split(/\r?\n/).filter((l) => l.trim() !== '');
    return gl.makeTwin(lines, { twin });
  },
});
