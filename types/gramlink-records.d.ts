// Hand-written declarations of the core's whole-record API (docs/RECORDS.md; src/wasm/records.rs),
// re-exported by ./gramlink.d.ts: a file of its own for the 500-line layout rule.
import type { EmbedRequest, ProgressCallback, VerifyOptions } from './gramlink.js';

/** A field of a linkage schema; unknown keys are refused. */
/** What one blocking rule found: its name as reports show it, its candidate pairs, and
 * the fields its terms name. */
export interface BlockRuleCount {
  rule: string;
  pairs: number;
  fields: string[];
}

/** A date layout: year, day or month first, separated by -, / or . or by nothing. */
export type DateFormat =
  | 'YYYYMMDD' | 'YYYY-MM-DD' | 'YYYY/MM/DD' | 'YYYY.MM.DD'
  | 'DD/MM/YYYY' | 'DD.MM.YYYY' | 'DD-MM-YYYY' | 'DDMMYYYY'
  | 'MM/DD/YYYY' | 'MM-DD-YYYY' | 'MM.DD.YYYY' | 'MMDDYYYY';

export interface SchemaField {
  name: string;
  /** The CSV column(s); several are joined by a space. Default: [name]. */
  columns?: string[];
  kind: 'string' | 'name' | 'date' | 'number' | 'keyed' | 'clear' | 'suppress';
  /** This field's explicit share of ε (mined kinds). */
  epsilon?: number;
  /** Edit distances below exact (a split date: weighted-distance bands). Default [1, 2]. */
  levels?: number[];
  alphabet?: string;
  /** A date's layout (DateFormat; default: each value's own by its shape, a file's 8-digit values in the layout of eight digits that reads them). */
  format?: DateFormat;
  /** A date sent as year, month and day parts (default false: whole; split parts are small domains graph matching names, docs/THREAT_MODEL.md). */
  split?: boolean;
  /** A split date's part weights (needs split: true). */
  weights?: { year?: number; month?: number; day?: number };
  /** A date's level "day and month swapped", from one more part (default true for a whole date, false for a split one). */
  swap?: boolean;
  /** A date's level "within N days", from the date's N-day cells on two grids (2 to 366; default none). */
  days?: number;
  /** A date's level "year ± 1": the same month and day, the years one apart, from two more parts (default false). */
  year_off?: boolean;
  /** A date that does not parse: "error" (default) or "missing". */
  invalid?: 'error' | 'missing';
  /** A name's nicknames become their formal name before encoding (default false: more records share a value, and the matcher names more of them). */
  nicknames?: boolean;
  /** A name written as a placeholder ("Wife", "Unknown") is missing (default true). */
  fillers?: boolean;
  /** A name's level "initial": one side a single letter that begins or ends the other ("J" against "JOHN"), after the edit levels (default true). */
  initials?: boolean;
  /** Another field whose value salts this one's keyed encoding (a date salts by its year): values compare only where the salts agree (docs/THREAT_MODEL.md, "Salted fields"). */
  salt?: string;
  m?: number[];
  u?: number[];
}

/** A linkage schema (the same JSON the CLI reads). */
export interface Schema {
  version: 1;
  /** The CSV column of the ids (default: row numbers). */
  id?: string;
  /** Each party's total ε (default 0.1). */
  epsilon?: number;
  field: SchemaField[];
  /** Blocking rules (their union); `and`: more terms that must hold as well. */
  block?: { field: string; ed?: number; and?: { field: string; ed?: number }[] }[];
  /** `'auto'`: the matcher designs the blocking rules from the batches (without `block`). */
  blocking?: 'auto';
  decision?: {
    precision?: number;
    recall?: number;
    assignment?: 'auto' | 'one-to-one' | 'many-to-one' | 'all';
    upper?: number;
    lower?: number;
  };
}

/** One party's records under a linkage schema. */
/**
 * A party's record CSV read chunk by chunk (a `File`'s stream in a Worker): the file is never
 * whole in JS or in wasm. The schema is checked at construction. Push every chunk in order, then
 * hand the reader to `RecordOwner.fromReader`: the same table and errors as `new RecordOwner`
 * with the whole file. An error (NOT_TEXT, MISSING_COLUMN, MALFORMED_CSV, …), thrown by `push`
 * or at the end by `fromReader` (a file cut off inside a quoted field or a UTF-8 character is
 * named so there), uses the reader up.
 */
export class RecordTableReader {
  free(): void;
  /** `options.dateFormats`: this file's date format per date field (`{ dob: "YYYY-MM-DD" }`); the schema and its fingerprint stay as they are. */
  constructor(schema: Schema | string, options?: { dateFormats?: Record<string, DateFormat> } | null);
  push(chunk: Uint8Array): void;
  readonly bytesRead: number;
  /** Records parsed so far (complete records are parsed a megabyte at a time). */
  readonly recordsRead: number;
}

export class RecordOwner {
  free(): void;
  /** The CSV (with a header) under `schema`; `seed` makes the noise reproducible and NOT private; `dateFormats`: this file's own date formats, as `RecordTableReader`'s. */
  constructor(csv: string | Uint8Array, schema: Schema | string, options?: { seed?: number; dateFormats?: Record<string, DateFormat> } | null);
  /** The table a reader has read to its end, under the reader's schema (the reader is then used up). */
  static fromReader(reader: RecordTableReader, options?: { seed?: number } | null): RecordOwner;
  readonly size: number;
  /** How the file was read where it differs from the schema: a date format found in the file instead of the schema's. */
  readonly notes: string[];
  readonly schemaFingerprint: string;
  fields(): { name: string; kind: SchemaField['kind']; present: number }[];
  /** One entry per gram space: its share of ε (0: public grams only) and its fields. */
  budgetSplit(): { space: string; epsilon: number; fields: string[] }[];
  /** The noisy bases message (JSON); spends the schema's ε (a second call: BUDGET_EXCEEDED). */
  mine(onProgress?: ProgressCallback | null): string;
  /** The shared bases message (JSON) from both parties' noisy bases. */
  static mergeBases(a: string, b: string, schema: Schema | string): string;
  /** The shared bases of every party's noisy bases (two or more), as `mergeBases` of two; one party's bases twice throw BASE_TWICE. */
  static mergeAllBases(bases: string[], schema: Schema | string): string;
  /**
   * The record batch (binary). `key` or `passphrase`: the parties' shared key (hex, from `keygen()`), or
   * a passphrase salted with the schema: it hashes the keyed fields and rotates every embedded field's vectors.
   * A schema that embeds a field needs a key or `noKey: true` (unkeyed vectors: the matcher's dictionary and
   * reconstruction attacks apply), else KEY_REQUIRED. The batch carries random pseudonyms unless
   * `keepIds: true` (the schema's `id` column, or row numbers); its rows are shuffled.
   */
  embed(shared: string, options?: EmbedRequest | null, onProgress?: ProgressCallback | null): Uint8Array;
  /** The map of the last `embed`'s pseudonyms to the own ids (CSV `pseudonym,id`; `unmapPairs`); undefined before an embed or with `keepIds`. */
  idMapCsv(): string | undefined;
  /** `idMapCsv()`'s CSV as UTF-8 bytes, with no JS string made. */
  idMapBytes(): Uint8Array | undefined;
}

export interface RecordFieldFit {
  name: string;
  levels: string[];
  m: number[];
  u: number[];
  u_random: number[];
  weights: number[];
  fixed_m: boolean;
  fixed_u: boolean;
}

export interface RecordLinkageOutput {
  upper: number;
  lower: number;
  /** The match probability of the kept pair at the upper weight, its records' rivals set aside (null: no match). */
  upperProbability: number | null;
  assignment: 'one-to-one' | 'many-to-one' | 'all';
  candidates: number;
  matches: number;
  possible: number;
  nonMatches: number;
  reductionRatio: number;
  /** Each blocking rule: its name, its candidate pairs, the fields its terms name. */
  rules: BlockRuleCount[];
  /**
   * `fields`: one per comparison. Two fields that disagree together among matches are one
   * comparison (`joint`: their indices among the sent fields, the first's place in `fields`).
   * Two comparisons that agree together among non-matches (a household's surname and address)
   * weigh an agreement on both once (`interactions`: indices into `fields`, their agreeing
   * levels, the non-matches' share agreeing on both and the product of their u).
   */
  fit: {
    lambda: number;
    iterations: number;
    converged: boolean;
    fields: RecordFieldFit[];
    joint: { first: number; second: number; both_disagree: number; independent: number }[];
    interactions: {
      first: number;
      second: number;
      agree_first: number[];
      agree_second: number[];
      both_agree: number;
      independent: number;
    }[];
  };
  /** The sent fields and the names of their levels. */
  fields: { name: string; levels: string[] }[];
  /** M then P, each by weight. Pair i: rows a[i], b[i]; classes[i] is "M" or "P"; its levels are levels[i*F .. (i+1)*F] (F fields; 255: missing). */
  pairs: {
    a: Uint32Array;
    b: Uint32Array;
    aIds: string[];
    bIds: string[];
    weight: Float64Array;
    probability: Float64Array;
    classes: string;
    swapped: Uint8Array;
    levels: Uint8Array;
  };
}

/**
 * Links two record batches: candidates, levels and the EM fit are made by the constructor; `link` decides. With
 * `options`' keys, the batches must be signed (checked first, see VerifyOptions).
 */
export class RecordMatcher {
  free(): void;
  constructor(schema: Schema | string, batchA: Uint8Array, batchB: Uint8Array, options?: VerifyOptions | null);
  /** What the schema's blocking rules admit, before any pair is compared (`pairs`: A × B). */
  static blocking(schema: Schema | string, batchA: Uint8Array, batchB: Uint8Array): { pairs: number; candidates: number; rules: BlockRuleCount[] };
  readonly sizeA: number;
  readonly sizeB: number;
  /** Both batches made with secure noise. */
  readonly private: boolean;
  /** Every candidate's weight. */
  weights(): Float64Array;
  /** Thresholds absent: the schema's, else the proposed ones. */
  link(options?: { upper?: number | null; lower?: number | null } | null): RecordLinkageOutput;
  /** `review`: one character per pair of `link(options)`: "a" accepted, "r" rejected, else none (adds a review column). */
  pairsCsv(options?: { upper?: number | null; lower?: number | null } | null, review?: string | null): string;
}
