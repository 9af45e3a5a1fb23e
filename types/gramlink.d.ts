// Hand-written declarations of the gramlink API (src/wasm/), replacing the `any`s of
// the ones wasm-bindgen generates. Every function throws a `GramlinkError` (a real JS
// `Error` with a stable `code`) on bad input; none traps.

// Whole records (docs/RECORDS.md) are declared in ./gramlink-records.d.ts.
import type { Schema } from './gramlink-records.js';
export * from './gramlink-records.js';

/** Stable error codes (`Error.code`), from the core's `Error::code`. */
export type ErrorCode =
  | 'INVALID_EPSILON' | 'BUDGET_EXCEEDED' | 'ENTROPY' | 'INVALID_PARAMETER' | 'INVALID_LEDGER'
  | 'IO' | 'EMPTY_INPUT' | 'NOT_TEXT' | 'MISSING_COLUMN' | 'MALFORMED_CSV' | 'INVALID_FORMAT' | 'DUPLICATE_ID'
  | 'INVALID_ALPHABET' | 'RECORD_TOO_LONG' | 'REPEATED_COLUMN'
  | 'INCOMPATIBLE_BASES' | 'INVALID_BASE' | 'BASE_TWICE'
  | 'MALFORMED_MESSAGE' | 'UNSUPPORTED_VERSION' | 'WRONG_MESSAGE_KIND' | 'FINGERPRINT_MISMATCH'
  | 'INVALID_MESSAGE' | 'TRUNCATED_MESSAGE' | 'IMPLAUSIBLE_BATCH' | 'SIGNATURE_MISSING' | 'SIGNATURE_INVALID'
  | 'PARTY_TWICE' | 'BATCH_TWICE' | 'NO_RECORDS' | 'ID_CLASH'
  | 'CANCELLED' | 'INVALID_KEY' | 'TRANSFORM_MISMATCH' | 'FIT_REFUSED';

/** What every gramlink function throws. */
export interface GramlinkError extends Error {
  code: ErrorCode;
}

/**
 * Progress of long work: `phase` (e.g. "embed", a miner's level), `done` of `total`.
 * Return `false` to cancel (the call then throws with code `CANCELLED`).
 */
export type ProgressCallback = (phase: string, done: number, total: number) => boolean | void;

/** A shared-base or noisy-base message: JSON text. */
export type BaseMessage = string;
/** A vector-batch message: JSON text, or the compact binary form. */
export type VectorBatchMessage = string | Uint8Array;

/**
 * A party: a letter. Two parties are A (sends thresholds) and B; a linkage of more parties
 * (`linkParties`) names the others C to Z, and every one sends thresholds. Lower case is accepted.
 */
export type PartyName =
  | 'A' | 'B' | 'C' | 'D' | 'E' | 'F' | 'G' | 'H' | 'I' | 'J' | 'K' | 'L' | 'M'
  | 'N' | 'O' | 'P' | 'Q' | 'R' | 'S' | 'T' | 'U' | 'V' | 'W' | 'X' | 'Y' | 'Z'
  | Lowercase<'A' | 'B' | 'C' | 'D' | 'E' | 'F' | 'G' | 'H' | 'I' | 'J' | 'K' | 'L' | 'M'
  | 'N' | 'O' | 'P' | 'Q' | 'R' | 'S' | 'T' | 'U' | 'V' | 'W' | 'X' | 'Y' | 'Z'>;

export interface DataOwnerOptions {
  /** The public alphabet: "letters" (A–Z and space, the default), "letters+digits", or its symbols. */
  alphabet?: string;
  /** The party's total privacy budget ε. Default 0.1. */
  budget?: number;
  /** Seed for reproducible experiments: everything made is then NOT private. Default: none. */
  seed?: number;
}

export type Miner = 'fpm' | 'prefix-tree' | 'exact' | 'random';
export type Strategy = 'linear' | 'exponential' | 'adaptive' | 'hybrid';

/**
 * Mining options, also the shape of the shared base (`mergeBases` takes the same
 * object: `k`, `padding`, `publicQ`). Unknown keys are refused. Defaults: the default
 * configuration's (`defaults().config.mine`: 75 prefix-tree 3-grams of the records
 * padded as `^record$`, public 2-grams); the keys given override those fields. The
 * paper's Table 3 is `defaults().presets.paper.mine`.
 */
export interface MineOptions {
  /** Default "prefix-tree". "exact" is not private; "random" costs no budget. */
  miner?: Miner;
  /** Budget strategy of the prefix-tree miner. Default "hybrid". */
  strategy?: Strategy;
  /** The ε this mining spends (charged to the owner's budget). Default 0.1. */
  epsilon?: number;
  /** Number of grams. Default 75. */
  k?: number;
  /** Shortest gram. Default 3 (the paper's: 1). */
  qMin?: number;
  /** Longest gram. Default 3. */
  qMax?: number;
  /** Prefix-tree depth (public). Default 7. */
  hMax?: number;
  /** FPM: distinct grams of each length one record may contribute. Default 12. */
  maxGramsPerRecord?: number;
  /** Mine (and embed) the records padded as `^record$` (public padding symbols). Default true (the paper's: false). */
  padding?: boolean;
  /** Not used by the miner: `mergeBases` adds every gram of this length over Σ (public, no budget). Default 2; `null`: none. */
  publicQ?: number | null;
}

/** `"paper"` (Algorithm 2, not an upper bound), `"sound"` (proven), or one global value (`null`: Δq·ed). */
export type ThresholdMode = 'paper' | 'sound' | { global: number | null };

export interface ThresholdOptions {
  /**
   * Edit distance: a number of edits (at most 10), or "auto" (the default): party A's
   * thresholds then cover 2 edits and the matcher keeps the candidates a cut-off fitted
   * on them without labels calls matches (`MatchOutput.cutoff` says what it chose).
   */
  ed?: number | 'auto';
  /** Default "sound" (the paper's: "paper"). */
  mode?: ThresholdMode;
}

/**
 * The embed options of one string (`DataOwner.embed`) and of records (`RecordOwner.embed`) alike:
 * the core's one options type, read by serde (a key left out, `undefined` or `null` takes its default).
 */
export interface EmbedRequest {
  /** Default "A". Party A's batch carries thresholds; in a linkage of more parties (C to Z), every party's does. */
  party?: PartyName;
  /**
   * Keyed transform: the key shared with the other party (64 hex digits, from `keygen()`). Throws
   * INVALID_KEY if malformed. Records: it also hashes the keyed fields.
   */
  key?: string | null;
  /**
   * Keyed transform: a shared passphrase (at least 8 characters; Argon2id, salted with the shared base's
   * fingerprint, or the schema's for records). Not together with `key`.
   */
  passphrase?: string | null;
  /**
   * Export unkeyed vectors anyway: the matcher can then re-identify records with a name list and, in
   * the recommended preset, rebuild most of them (docs/THREAT_MODEL.md). Without `key`, `passphrase`
   * or `noKey: true`, `embed` throws KEY_REQUIRED. One string: not together with a key (INVALID_KEY);
   * records: with a key, the key only hashes the keyed fields and the vectors go unrotated.
   */
  noKey?: boolean;
  /**
   * Send the owner's own ids (row numbers or `idColumn`'s values) instead of random pseudonyms:
   * the matcher then sees them. Default false: the batch carries fresh 64-bit pseudonyms (16 hex digits) and
   * `idMapCsv()` gives the map back. Either way the batch's rows are shuffled.
   */
  keepIds?: boolean;
  /**
   * The keyed encoding with a key: `'sketch'` (keyed buckets of 4 grams, sparse; the default for one
   * string), `'sketch:N'` (N grams a bucket; `'sketch:8'` is the default of `RecordOwner.embed`), or `'rotation'` (the old keyed rotation: dense, and decoded by
   * the matcher's exact-algebra attack; docs/THREAT_MODEL.md). Both parties must use the same.
   */
  encoding?: string;
}

export interface EmbedOptions extends EmbedRequest {
  /** Party A and parties C to Z: default `{ed: "auto", mode: "sound"}`; party B: none unless given. */
  thresholds?: ThresholdOptions;
  /** Return the compact binary form (Uint8Array) instead of JSON. Default false. */
  binary?: boolean;
}

export interface NormalizationReport {
  total: number;
  kept: number;
  /** Records whose text normalization changed (accents, case, punctuation…). */
  changed: number;
  /** Records that normalized to the empty string (set aside). */
  empty: number;
  /** Their ids (the core names this field in snake case). */
  empty_ids: string[];
  /** Characters kept and dropped by normalization, by class. */
  characters: CharCounts;
  /** Set when more than 1 % of the characters were dropped: which, and an alphabet that keeps them. */
  warning: string | null;
}

export interface CharCounts {
  kept: number;
  digits: number;
  punctuation: number;
  /** Letters of other scripts, or letters the alphabet lacks. */
  letters: number;
  other: number;
}

/** How `DataOwner.fromBytes` reads a file's bytes. */
export interface InputOptions {
  /** "auto" (default: CSV for a .csv/.tsv name, a header-like first line, or a named column), "text" or "csv". */
  format?: 'auto' | 'text' | 'csv';
  /** The CSV column holding the records (CSV without it throws MISSING_COLUMN, naming the header's columns). */
  column?: string | null;
  /** The CSV column holding the ids. Default: the row number. */
  idColumn?: string | null;
  /** The input's name (a file name): its extension helps detection; errors name it. */
  name?: string | null;
}

/**
 * A party's input read chunk by chunk (a `File`'s stream in a Worker): the file is
 * never one string. Push every chunk in order, then hand the reader to
 * `DataOwner.fromReader`. An error (NOT_TEXT, MISSING_COLUMN, MALFORMED_CSV, …), thrown by
 * `push` or at the end by `fromReader`, uses the reader up.
 */
export class RecordReader {
  free(): void;
  /** `format` "auto" is settled from the first line. */
  constructor(input?: InputOptions | null);
  push(chunk: Uint8Array): void;
  readonly bytesRead: number;
  /** Records parsed so far (complete records are parsed a megabyte at a time). */
  readonly recordsRead: number;
}

/** One party's records, normalized onto the public alphabet, with its privacy budget. */
export class DataOwner {
  free(): void;
  /** Records as strings; their ids are their 1-based positions. Throws EMPTY_INPUT on []. */
  constructor(records: string[], options?: DataOwnerOptions | null);
  /** Records from a file's bytes (text or CSV), read by the same reader as the CLI's. */
  static fromBytes(bytes: Uint8Array, input?: InputOptions | null, options?: DataOwnerOptions | null): DataOwner;
  /** Records from a reader that has taken the whole input (the reader is then used up). */
  static fromReader(reader: RecordReader, options?: DataOwnerOptions | null): DataOwner;
  normalizationReport(): NormalizationReport;
  /** Records kept after normalization. */
  readonly size: number;
  /** Their own ids, in order (the rows of `embed`; the batch carries pseudonyms unless `keepIds`). */
  readonly ids: string[];
  readonly epsilonBudget: number;
  readonly epsilonSpent: number;
  /** False when a seed was given. */
  readonly private: boolean;
  /** Mines a noisy base; returns the noisy-base message. Throws BUDGET_EXCEEDED past the budget. */
  mine(options?: MineOptions | null, onProgress?: ProgressCallback | null): BaseMessage;
  /**
   * Merges two noisy bases into the shared base under the mining options both parties
   * used: the top `k` mined grams (deterministic; costs no budget) plus, by default,
   * every public 2-gram and the boundary grams. Throws INCOMPATIBLE_BASES when a noisy
   * base was mined with other padding.
   */
  static mergeBases(a: BaseMessage, b: BaseMessage, options?: MineOptions | null): BaseMessage;
  /** The shared base of every party's noisy base (two or more), as `mergeBases` of two; one party's base twice throws BASE_TWICE. */
  static mergeAllBases(bases: BaseMessage[], options?: MineOptions | null): BaseMessage;
  /** The vector-batch message over the shared base: JSON text, or a Uint8Array with `binary: true`. */
  embed(sharedBase: BaseMessage, options?: EmbedOptions & { binary?: false } | null, onProgress?: ProgressCallback | null): string;
  embed(sharedBase: BaseMessage, options: EmbedOptions & { binary: true }, onProgress?: ProgressCallback | null): Uint8Array;
  embed(sharedBase: BaseMessage, options?: EmbedOptions | null, onProgress?: ProgressCallback | null): VectorBatchMessage;
  /**
   * The map of the last `embed`'s pseudonyms to the own ids, as CSV (`pseudonym,id`): keep it, never
   * send it; `unmapPairs` maps the matcher's pairs back with it. Undefined before an embed or after one
   * with `keepIds: true`.
   */
  idMapCsv(): string | undefined;
  /** `idMapCsv()`'s CSV as UTF-8 bytes, with no JS string made (a worker transfers them to its page). */
  idMapBytes(): Uint8Array | undefined;
  /** The records' vectors, row-major (`size` rows), for local use. */
  embedVectors(sharedBase: BaseMessage): Float32Array;
  /**
   * The records' vectors as sparse rows, for local use: row `r`'s coordinates are
   * `cols[starts[r]..starts[r + 1]]` (ascending) with the same range of `vals`; every other
   * coordinate is zero (a few dozen entries per record instead of `dim`).
   */
  embedSparse(sharedBase: BaseMessage): SparseVectors;
  /** Per-record thresholds. Defaults: ed 1, mode "sound". */
  thresholds(sharedBase: BaseMessage, ed?: number | 'auto' | null, mode?: ThresholdMode | null): Float64Array;
}

/** `DataOwner.embedSparse`'s rows: `starts` has one entry more than there are records. */
export interface SparseVectors {
  dim: number;
  starts: Uint32Array;
  cols: Uint32Array;
  vals: Float32Array;
}

/** The shared base's fingerprint (SHA-256 hex, checked against its content), to compare out of band. */
export function fingerprint(sharedBase: BaseMessage): string;

/** A new random key for the keyed transform (64 hex digits): share it with the other party only. */
export function keygen(): string;

/**
 * The matcher's pairs CSV (one string's or records': `a_id,b_id,…`) with party A's pseudonyms replaced
 * by its own ids (`aMapCsv`: A's `idMapCsv()` or `idMapBytes()`) and party B's likewise; either map may be null, not both
 * (INVALID_PARAMETER). The other columns are kept. A pseudonym not in its map throws INVALID_FORMAT.
 */
export function unmapPairs(pairsCsv: string | Uint8Array, aMapCsv?: string | Uint8Array | null, bMapCsv?: string | Uint8Array | null): string;

/**
 * `linkParties`' clusters CSV (`party,id,cluster`) or its pairs (`party_a,id_a,party_b,id_b`) with the
 * pseudonyms of `party`'s rows replaced by its own ids (`mapCsv`: its `idMapCsv()` or `idMapBytes()`);
 * the other parties' rows are unchanged. A pseudonym of that party not in its map throws INVALID_FORMAT.
 */
export function unmapClusters(clustersCsv: string | Uint8Array, party: PartyName, mapCsv: string | Uint8Array): string;

/** Options of `linkParties`; unknown keys are refused. */
export interface LinkPartiesOptions {
  /** The share of candidate pairs between two clusters that merges them (anonlink's greedy solver), in (0, 1]. Default 0.5. */
  mergeThreshold?: number;
  /** Also return `pairsCsv`, the pairs of records sharing a cluster. Default false. */
  pairs?: boolean;
  /** Each batch's name in errors (its file's name, say), one per batch. Default "batch 1", "batch 2", … */
  names?: string[];
  /** The linkage schema of record batches (`RecordOwner.embed`'s): each pair of parties then goes through the record linker. Default: none (vector batches). */
  schema?: Schema | string;
}

/** The clusters of `linkParties`. */
export interface LinkPartiesOutput {
  /** The shared base's fingerprint (record batches: the schema's). */
  fingerprint: string;
  /** The vectors' dimension (vector batches only). */
  dim?: number;
  /** Each batch's party, in the order given. */
  parties: Uppercase<PartyName>[];
  /** Each batch's records. */
  sizes: number[];
  /** How many clusters (records linked to none are clusters of one). */
  count: number;
  /** Pairs the q-gram filter verified, over every pair of parties (once for both ways of a pair where one pass gives them). */
  compared: number;
  /** Candidate pairs the solver read. */
  candidates: number;
  /** What the pairs' fits said (record batches), each named by its pair of parties: repairs, and a field no candidate agrees on. */
  warnings: string[];
  /** `spans[k]`: the clusters of `k` records, each of another party (so spanning `k` parties), `k` from 0 to the parties. */
  spans: number[];
  /** Every record's cluster: batch after batch, row after row. */
  cluster: Uint32Array;
  /** One row per record, `party,id,cluster` (the CLI's clusters.csv of `match a.vec b.vec c.vec …`). */
  csv: string;
  /** With `pairs: true`: `party_a,id_a,party_b,id_b`, the pairs sharing a cluster. */
  pairsCsv?: string;
}

/**
 * Links the vector batches of two parties or more (each with thresholds, one party each, the same shared
 * base, key and dimension) into clusters with at most one record of each party: every pair of parties
 * through the matcher's candidate filter, then anonlink's greedy solver. With `options.schema`, the
 * batches are record batches (`RecordOwner.embed`'s), each pair of parties linked by the record linker
 * (the CLI's `match --schema s.toml a b c …`), then the same solver. Throws PARTY_TWICE (two
 * batches of one party), BATCH_TWICE (one batch given twice), NO_RECORDS, ID_CLASH (one id in two
 * parties' batches), FINGERPRINT_MISMATCH (another shared base), INVALID_PARAMETER (fewer than two
 * batches, a batch without thresholds, another key or dimension, a bad option).
 */
export function linkParties(batches: VectorBatchMessage[], options?: LinkPartiesOptions | null): LinkPartiesOutput;

/**
 * Which pairs `match` returns: "ranked" (recommended: the q-gram count filter, ranked by
 * cosine distance, greedy one-to-one), "greedy" (one-to-one by increasing distance),
 * "nearest" (mutual unique nearest neighbours) or "all" (every B within A's threshold:
 * the paper's rule).
 */
export type MatchRule = 'all' | 'greedy' | 'nearest' | 'ranked';

export interface MatchOptions {
  /** Default: the default configuration's, "ranked". */
  rule?: MatchRule;
}

export interface MatchOutput {
  /** The rule, spelled as the option. */
  rule: MatchRule;
  fingerprint: string;
  /** Pairs whose distance the matcher computed. */
  candidates: number;
  /** Number of pairs. */
  count: number;
  /** With `ed: "auto"` (and the q-gram filter): what the fitted cut-off chose, and why. */
  cutoff?: string;
  /** Pair i links row `a[i]` of A's batch with row `b[i]` of B's, at `distances[i]`. */
  a: Uint32Array;
  b: Uint32Array;
  distances: Float64Array;
  /** The same pairs by the parties' ids. */
  aIds: string[];
  bIds: string[];
}

/**
 * A matcher's signature checks (issue 31; the CLI's `match --verify-a/--verify-b`). With a party's public key
 * (`publicKey` of its `signKeygen()`, or the CLI's `.pub` file), its batch must come with a signature that
 * verifies for its bytes: none is SIGNATURE_MISSING, another key's or a changed byte SIGNATURE_INVALID, a key
 * that is not a public signing key INVALID_KEY. Without a party's key its batch is not checked; a signature
 * without its key is INVALID_PARAMETER. Keys and signatures: the files' text, or their bytes.
 */
export interface VerifyOptions {
  /** Party A's public signing key. */
  verifyA?: string | Uint8Array | null;
  /** A's batch's signature (`signBatch`, or the CLI's `<batch>.sig`). */
  signatureA?: string | Uint8Array | null;
  verifyB?: string | Uint8Array | null;
  signatureB?: string | Uint8Array | null;
}

/** A new Ed25519 signing key pair: the texts of `gramlink sign-keygen`'s two files (`key` and `key.pub`). */
export interface SigningKeyPair {
  /** `gramlink signing key v1 …`: keep it (it signs your batches). */
  signingKey: string;
  /** `gramlink signing public key v1 …`: give it to the matcher out of band, as the base fingerprint. */
  publicKey: string;
}

/** A new signing key, from the secure generator (crypto.getRandomValues). The CLI reads the texts as its files. */
export function signKeygen(): SigningKeyPair;

/**
 * The signature of a batch (a vector batch or a record batch, byte for byte as it is sent: a JSON string is
 * signed as its UTF-8 bytes) with `signingKey` (its text or its file's bytes; else INVALID_KEY): the text of the
 * CLI's `<batch>.sig`. Deterministic: the same key and bytes give the same signature, here and in the CLI.
 */
export function signBatch(signingKey: string | Uint8Array, batch: VectorBatchMessage): string;

/**
 * Checks that `signature` is `batch`'s, by the key of `publicKey`; returns nothing, or throws SIGNATURE_MISSING
 * (`signature` null or undefined), SIGNATURE_INVALID (another key's, a changed byte, not a signature) or
 * INVALID_KEY.
 */
export function verifyBatch(publicKey: string | Uint8Array, batch: VectorBatchMessage, signature?: string | Uint8Array | null): void;

/**
 * Both parties' vector batches, checked: same shared base (else FINGERPRINT_MISMATCH), A with thresholds, same
 * dimension; with `options`' keys, signed (checked first, see VerifyOptions).
 */
export class Matcher {
  free(): void;
  constructor(batchA: VectorBatchMessage, batchB: VectorBatchMessage, options?: VerifyOptions | null);
  readonly fingerprint: string;
  readonly sizeA: number;
  readonly sizeB: number;
  readonly dim: number;
  match(options?: MatchOptions | null): MatchOutput;
  /** The pairs as the match-result message (JSON, by ids). */
  matchResult(options?: MatchOptions | null): string;
}

/** One whole configuration: mining (and the shared base's shape), party A's thresholds, the matcher's rule. */
export interface Config {
  mine: Required<MineOptions>;
  thresholds: Required<ThresholdOptions>;
  rule: MatchRule;
}

/** A configuration given in part: the fields given override the default's, object by object. */
export interface PartialConfig {
  mine?: MineOptions;
  thresholds?: ThresholdOptions;
  rule?: MatchRule;
}

/** The defaults of every options object, from the core (the web pages fill their forms from it). */
export interface Defaults {
  owner: { alphabet: string; budget: number; seed: null };
  /** The default configuration (the recommended preset). */
  config: Config;
  /** Every preset's whole configuration, from the core's one definition. */
  presets: { recommended: Config; paper: Config };
  embed: { party: 'A'; thresholds: Required<ThresholdOptions> | null; binary: boolean; key: null; passphrase: null; noKey: boolean; keepIds: boolean; encoding: string | null };
}

/**
 * The default options of `DataOwner`, `mine`, `mergeBases`, `embed`, `thresholds`,
 * `Matcher.match`, and each preset (gramlink/lab's adds `runScenario`'s).
 */
export function defaults(): Defaults;

export interface NormalizationPreview {
  /** The records normalized onto the alphabet, index for index ("" for those that normalize to empty). */
  normalized: string[];
  /** 1-based positions of the records that normalize to empty. */
  empty: number[];
  /** Set when more than 1 % of the characters would be dropped. */
  warning: string | null;
}

/** Normalizes `records` onto `alphabet` (default "letters") as `DataOwner` does: a preview, local only. */
export function normalize(records: string[], alphabet?: string | null): NormalizationPreview;

/** A first look at a file's bytes through the core's reader: its format, CSV columns and first `n` (default 12) records. */
export function peekInput(bytes: Uint8Array, input?: InputOptions | null, n?: number | null): { format: 'text' | 'csv'; columns: string[] | null; head: string[] };

export interface BatchInfo {
  party: Uppercase<PartyName>;
  fingerprint: string;
  size: number;
  dim: number;
  /** Set when the batch carries thresholds (party A's). */
  thresholdMode: string | null;
  ed: number | null;
  /** Party A asked for `ed: "auto"` (`ed` is then the bound; the matcher fits the cut-off). */
  auto: boolean;
  transform: string | null;
}

/** Reads and checks one vector batch on its own (throws what `new Matcher` would throw for it). */
export function batchInfo(batch: VectorBatchMessage): BatchInfo;
