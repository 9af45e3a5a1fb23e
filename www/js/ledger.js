// The data owner's privacy ledger in this browser: one per data file (keyed by the
// SHA-256 of its bytes, so a reload, a second tab or the same file under another
// name finds it), kept in localStorage, in the CLI's ledger-file format
// (src/dp/ledger_file.rs: format "gramlink privacy ledger", version 1), so an exported ledger
// reads with `gramlink mine --ledger`.
//
// Every ε is kept as an exact multiple of 2^-40, as the core's Epsilon is: units
// below 2^53 add exactly in a JS number, so `spent` is the exact sum of the spends.
// A mining is charged before it starts and keeps its ε when cancelled: its
// progress (nodes expanded, levels) depends on the noisy counts.

const UNIT = 2 ** 40;
const FORMAT = 'gramlink privacy ledger';
const VERSION = 1;
const PREFIX = 'gramlink.ledger.';

const units = (eps) => Math.floor(eps * UNIT);
const value = (u) => u / UNIT;

function ledgerError(message, code = 'INVALID_LEDGER') {
  return Object.assign(new Error(`${code === 'INVALID_LEDGER' ? 'invalid privacy ledger: ' : ''}${message}`), { code });
}

/**
 * The key of a file's ledger: the SHA-256 of the bytes the page holds of it, its first 64 KiB
 * (the worker streams the rest); its size and name where there is no WebCrypto. A copy
 * edited past its first 64 KiB thus shares the ledger, which errs on the side of privacy.
 */
async function ledgerKey(bytes, name) {
  if (globalThis.crypto?.subtle) {
    const h = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
    return PREFIX + Array.from(h, (b) => b.toString(16).padStart(2, '0')).join('');
  }
  return `${PREFIX}${name}:${bytes.byteLength}`;
}

/** The ledger key of a `File` or its bytes: every page keys one file's ledger the same way (its first 64 KiB). */
export async function fileLedgerKey(fileOrBytes, name) {
  const head = fileOrBytes instanceof ArrayBuffer ? fileOrBytes.slice(0, 65536) : await fileOrBytes.slice(0, 65536).arrayBuffer();
  return ledgerKey(head, name);
}

/** Reads and checks a ledger's JSON as the core does (format, version, spent = Σ spends ≤ total). */
export function parseLedger(text) {
  let l;
  try {
    l = JSON.parse(text);
  } catch (e) {
    throw ledgerError(`not a ledger file: ${e.message}`);
  }
  if (l?.format !== FORMAT) throw ledgerError(`format is ${JSON.stringify(l?.format)}, expected "${FORMAT}"`);
  if (l.version !== VERSION) throw ledgerError(`version ${l.version} is not supported (this page reads ${VERSION})`);
  if (!Array.isArray(l.spends) || typeof l.total !== 'number' || typeof l.spent !== 'number') throw ledgerError('fields are missing');
  const sum = l.spends.reduce((s, x) => s + units(x.epsilon), 0);
  if (sum !== units(l.spent)) throw ledgerError(`spent ${l.spent} is not the sum of its spends: the ledger was altered`);
  if (!(l.total > 0) || units(l.spent) > units(l.total)) throw ledgerError(`spent ${l.spent} exceeds its total ${l.total}`);
  return l;
}

export class PageLedger {
  /** The ledger stored under `key`, or a fresh one of `total` for the file `name`. Throws INVALID_LEDGER on a damaged one. */
  constructor(key, name, total) {
    this.key = key;
    const stored = localStorage.getItem(key);
    this.l = stored === null
      ? { format: FORMAT, version: VERSION, data: name, total: value(units(total)), spent: 0, spends: [] }
      : parseLedger(stored);
  }

  get total() { return this.l.total; }
  get spent() { return this.l.spent; }
  get remaining() { return value(Math.max(0, units(this.l.total) - units(this.l.spent))); }
  get spends() { return this.l.spends; }

  /** Another tab may have charged since: read the stored ledger again. */
  refresh() {
    const stored = localStorage.getItem(this.key);
    if (stored !== null) this.l = parseLedger(stored);
  }

  save() {
    try {
      localStorage.setItem(this.key, JSON.stringify(this.l, null, 2));
    } catch (e) {
      throw ledgerError(`the ledger cannot be kept in this browser's storage (${e.message}): nothing is mined without it`);
    }
  }

  /** A new total: the owner's decision, kept on record; never below what is spent. */
  setTotal(total) {
    this.refresh();
    const t = units(total);
    if (t === units(this.l.total)) return;
    if (t < units(this.l.spent)) throw ledgerError(`a total of ${total} is below the ${this.l.spent} already spent on this file: spent ε is never given back`);
    (this.l.raises ??= []).push({ at: new Date().toISOString(), from: this.l.total, to: value(t) });
    this.l.total = value(t);
    this.save();
  }

  /** Charges ε before a mechanism runs (BUDGET_EXCEEDED past the total); returns the spend to update. */
  charge(command, epsilon, released) {
    this.refresh();
    const e = units(epsilon);
    if (units(this.l.spent) + e > units(this.l.total)) {
      throw ledgerError(`privacy budget exceeded: this file's ledger has spent ε ${this.l.spent.toFixed(4)} of its total ${this.l.total.toFixed(4)}; this mining asks for ε ${epsilon} more`, 'BUDGET_EXCEEDED');
    }
    const spend = { at: new Date().toISOString(), command, epsilon: value(e), released };
    this.l.spends.push(spend);
    this.l.spent = value(units(this.l.spent) + e);
    this.save();
    return spend;
  }

  /** What a charged run released, once known; `epsilon` (what it actually spent) never above the charge. */
  settle(spend, released, epsilon = spend.epsilon) {
    this.refresh();
    const s = this.l.spends.find((x) => x.at === spend.at && x.released === spend.released);
    if (!s) return;
    const e = Math.min(units(epsilon), units(s.epsilon));
    this.l.spent = value(units(this.l.spent) - units(s.epsilon) + e);
    Object.assign(s, { epsilon: value(e), released });
    this.save();
  }

  /** A charge the core refused before drawing any noise (a bad parameter): taken back. */
  refund(spend) {
    this.refresh();
    const i = this.l.spends.findIndex((x) => x.at === spend.at && x.released === spend.released);
    if (i < 0) return;
    this.l.spent = value(units(this.l.spent) - units(this.l.spends[i].epsilon));
    this.l.spends.splice(i, 1);
    this.save();
  }

  /**
   * Takes in a ledger kept elsewhere for the same data (the CLI's `<file>.ledger.json`, or
   * another browser's export), so that one party keeps one ledger across the CLI and its
   * pages: the spends of both are kept (a spend found in both is counted once), so ε spent
   * anywhere is never spent again here. The total stays this page's; where the spends
   * together pass it, it is raised to what is spent (on record in `raises`), leaving
   * nothing. Throws INVALID_LEDGER on a damaged file. Returns the number of spends added.
   */
  importFrom(text) {
    const other = parseLedger(text);
    this.refresh();
    const same = (a, b) => a.at === b.at && a.command === b.command && units(a.epsilon) === units(b.epsilon);
    const added = other.spends.filter((s) => !this.l.spends.some((t) => same(s, t)));
    if (added.length === 0) return 0;
    for (const s of added) this.l.spends.push({ at: s.at, command: s.command, epsilon: value(units(s.epsilon)), released: s.released });
    const spent = this.l.spends.reduce((u, s) => u + units(s.epsilon), 0);
    this.l.spent = value(spent);
    if (spent > units(this.l.total)) {
      (this.l.raises ??= []).push({ at: new Date().toISOString(), from: this.l.total, to: value(spent) });
      this.l.total = value(spent);
    }
    this.save();
    return added.length;
  }

  toJSON() {
    return this.l;
  }

  text() {
    return `${JSON.stringify(this.l, null, 2)}\n`;
  }
}
