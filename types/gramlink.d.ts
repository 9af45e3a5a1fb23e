// Hand-written declarations of the gramlink API (src/wasm/), replacing the `any`s of
// the ones wasm-bindgen generates. Every function throws a `GramlinkError` (a real JS
// `Error` with a stable `code`) on bad input; none traps.

/** Stable error codes (`Error.code`), from the core's `Error::code`. */
export type ErrorCode =
  | 'INVALID_EPSILON' | 'BUDGET_EXCEEDED' | 'ENTROPY' | 'INVALID_PARAMETER'
  | 'IO' | 'EMPTY_INPUT' | 'NOT_TEXT' | 'MISSING_COLUMN' | 'MALFORMED_CSV' | 'DUPLICATE_ID'
  | 'INVALID_ALPHABET' | 'RECORD_TOO_LONG'
  | 'INCOMPATIBLE_BASES' | 'INVALID_BASE'
  | 'MALFORMED_MESSAGE' | 'UNSUPPORTED_VERSION' | 'WRONG_MESSAGE_KIND' | 'FINGERPRINT_MISMATCH'
  | 'INVALID_MESSAGE' | 'TRUNCATED_MESSAGE'
  | 'CANCELLED' | 'INVALID_KEY' | 'TRANSFORM_MISMATCH';

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

export interface DataOwnerOptions {
  /** The public alphabet, as its symbols. Default: A–Z and space. */
  alphabet?: string;
  /** The party's total privacy budget ε. Default 0.1. */
  budget?: number;
  /** Seed for reproducible experiments: everything made is then NOT private. Default: none. */
  seed?: number;
}

export type Miner = 'fpm' | 'prefix-tree' | 'exact' | 'random';
export type Strategy = 'linear' | 'exponential' | 'adaptive' | 'hybrid';

/**
 * Mining options (unknown keys are refused). Defaults: the recommended configuration
 * (`defaults().mine`: 75 prefix-tree 3-grams of the records padded as `^record$`); the
 * keys given override those fields. The paper's Table 3 is `defaults().presets.paper.mine`
 * (`qMin: 1, padding: false`).
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
  /** Mine the records padded as `^record$` (public padding symbols). Default true (the paper's: false); `mergeBases` must be given the same. */
  padding?: boolean;
  /** Not used by the miner: the public gram length of the configuration (`mergeBases`' option). Default 2; `null`: none. */
  publicQ?: number | null;
}

/**
 * The shape of the shared base (`mergeBases`' options). Default: the recommended
 * `{publicQ: 2, padding: true}`; `{publicQ: null, padding: false}` is the paper's base.
 */
export interface MergeOptions {
  /** Add every gram of this length over Σ (public, no budget), and with padding the boundary grams. Default 2; `null`: none. */
  publicQ?: number | null;
  /** Records embedded as `^record$`: must be how the noisy bases were mined (else INCOMPATIBLE_BASES). Default true. */
  padding?: boolean;
}

/** `"paper"` (Algorithm 2, not an upper bound), `"sound"` (proven), or one global value (`null`: Δq·ed). */
export type ThresholdMode = 'paper' | 'sound' | { global: number | null };

export interface ThresholdOptions {
  /** Edit distance. Default 1 (at most 10). */
  ed?: number;
  /** Default "sound" (the paper's: "paper"). */
  mode?: ThresholdMode;
}

export interface EmbedOptions {
  /** Default "A". Party A's batch carries thresholds. */
  party?: 'A' | 'B' | 'a' | 'b';
  /** Party A: default `{ed: 1, mode: "sound"}`; party B: none unless given. */
  thresholds?: ThresholdOptions;
  /** Return the compact binary form (Uint8Array) instead of JSON. Default false. */
  binary?: boolean;
  /** Keyed transform: the key shared with the other party (64 hex digits, from `keygen()`). Throws INVALID_KEY if malformed. */
  key?: string;
  /** Keyed transform: a shared passphrase (at least 8 characters; Argon2id). Not together with `key`. */
  passphrase?: string;
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
}

/** One party's records, normalized onto the public alphabet, with its privacy budget. */
export class DataOwner {
  free(): void;
  /** Records as strings; their ids are their 1-based positions. Throws EMPTY_INPUT on []. */
  constructor(records: string[], options?: DataOwnerOptions | null);
  /** Records from CSV text: `column` holds them, `idColumn` (optional) their ids. */
  static fromCsv(text: string, column: string, idColumn?: string | null, options?: DataOwnerOptions | null): DataOwner;
  normalizationReport(): NormalizationReport;
  /** Records kept after normalization. */
  readonly size: number;
  /** Their ids, in order (the rows of `embed`). */
  readonly ids: string[];
  readonly epsilonBudget: number;
  readonly epsilonSpent: number;
  /** False when a seed was given. */
  readonly private: boolean;
  /** Mines a noisy base; returns the noisy-base message. Throws BUDGET_EXCEEDED past the budget. */
  mine(options?: MineOptions | null, onProgress?: ProgressCallback | null): BaseMessage;
  /**
   * Merges two noisy bases into the shared base: the top `k` mined grams (deterministic;
   * costs no budget) plus, by default, every public 2-gram and the boundary grams.
   * Throws INCOMPATIBLE_BASES when `options.padding` is not how the noisy bases were mined.
   */
  static mergeBases(a: BaseMessage, b: BaseMessage, k: number, options?: MergeOptions | null): BaseMessage;
  /** The vector-batch message over the shared base: JSON text, or a Uint8Array with `binary: true`. */
  embed(sharedBase: BaseMessage, options?: EmbedOptions & { binary?: false } | null, onProgress?: ProgressCallback | null): string;
  embed(sharedBase: BaseMessage, options: EmbedOptions & { binary: true }, onProgress?: ProgressCallback | null): Uint8Array;
  embed(sharedBase: BaseMessage, options?: EmbedOptions | null, onProgress?: ProgressCallback | null): VectorBatchMessage;
  /** The records' vectors, row-major (`size` rows), for local use. */
  embedVectors(sharedBase: BaseMessage): Float32Array;
  /** Per-record thresholds. Defaults: ed 1, mode "sound". */
  thresholds(sharedBase: BaseMessage, ed?: number | null, mode?: ThresholdMode | null): Float64Array;
}

/** The shared base's fingerprint (SHA-256 hex, checked against its content), to compare out of band. */
export function fingerprint(sharedBase: BaseMessage): string;

/** A new random key for the keyed transform (64 hex digits): share it with the other party only. */
export function keygen(): string;

/**
 * Which pairs `match` returns: "ranked" (recommended: the q-gram count filter, ranked by
 * cosine distance, greedy one-to-one), "greedy" (one-to-one by increasing distance),
 * "nearest" (mutual unique nearest neighbours) or "all" (every B within A's threshold:
 * the paper's rule).
 */
export type MatchRule = 'all' | 'greedy' | 'nearest' | 'ranked';

/** A rule's name in match results: "threshold" is "all", "one-to-one" is "greedy". */
export type MatchRuleName = 'threshold' | 'one-to-one' | 'nearest' | 'ranked';

export interface MatchOptions {
  /** Default "ranked". */
  rule?: MatchRule;
  /**
   * The older option: `true` is rule "greedy", `false` is rule "all". Given with `rule`
   * it must agree (`true` with a one-to-one rule, `false` with "all"), else INVALID_PARAMETER.
   */
  oneToOne?: boolean;
}

export interface MatchOutput {
  rule: MatchRuleName;
  fingerprint: string;
  /** Pairs whose distance the matcher computed. */
  candidates: number;
  /** Number of pairs. */
  count: number;
  /** Pair i links row `a[i]` of A's batch with row `b[i]` of B's, at `distances[i]`. */
  a: Uint32Array;
  b: Uint32Array;
  distances: Float64Array;
  /** The same pairs by the parties' ids. */
  aIds: string[];
  bIds: string[];
}

/** Both parties' vector batches, checked: same shared base (else FINGERPRINT_MISMATCH), A with thresholds, same dimension. */
export class Matcher {
  free(): void;
  constructor(batchA: VectorBatchMessage, batchB: VectorBatchMessage);
  readonly fingerprint: string;
  readonly sizeA: number;
  readonly sizeB: number;
  readonly dim: number;
  match(options?: MatchOptions | null): MatchOutput;
  /** The pairs as the match-result message (JSON, by ids). */
  matchResult(options?: MatchOptions | null): string;
}

/**
 * Options of the SCENARIO.md evaluation (unknown keys are refused). Defaults: the
 * recommended configuration (`defaults().scenario`); the keys given override those
 * fields, so the paper's configuration switches off what it does not use
 * (`defaults().presets.paper.scenario` writes every field out).
 */
export interface ScenarioOptions {
  /** The public alphabet the records are normalized onto. Default: A–Z and space. */
  alphabet?: string;
  /** Edits per record of B's copy. Default 1. */
  ed?: number;
  /** Default 42 (the run is seeded: an experiment, not private). */
  seed?: number;
  /** Default "prefix-tree". */
  miner?: Miner;
  /** Default "hybrid". */
  strategy?: Strategy;
  /** ε per party. Default 0.1. */
  epsilon?: number;
  /** Default 75. */
  k?: number;
  /** Default 3 (the paper's: 1). */
  qMin?: number;
  /** Default 3. */
  qMax?: number;
  /** Pad records as `^record$`. Default true (the paper's: false). */
  padding?: boolean;
  /** Public gram length added to the shared base. Default 2 (the paper's: null). */
  publicQ?: number | null;
  /** Link by the q-gram count filter ranked by cosine distance (with `oneToOne`). Default true (the paper's: false). */
  qgram?: boolean;
  /** With `oneToOne`: mutual unique nearest neighbours instead of greedy. Default false. */
  nearest?: boolean;
  /** Default null: the mean record length of A. */
  hMax?: number | null;
  /** Default 12. */
  maxGramsPerRecord?: number;
  /** Default "sound" (the paper's: "paper"). */
  threshold?: ThresholdMode;
  /** Default true (the paper's: false). */
  oneToOne?: boolean;
  /** How many linked pairs to return with their strings. Default 20. */
  sample?: number;
  /** Both parties apply the keyed transform (key drawn from the seed: an experiment). Default false. */
  keyed?: boolean;
}

/** Scores of a rule (the core names these fields in snake case). */
export interface Quality {
  precision: number;
  recall: number;
  f1: number;
  pairs: number;
  true_pairs: number;
}

export interface SamplePair {
  a: string;
  b: string;
  distance: number;
  correct: boolean;
}

export interface ScenarioResult {
  /** The options used, defaults filled in (the alphabet aside; flags that are off and a null publicQ are left out). */
  options: Omit<ScenarioOptions, 'alphabet'>;
  n: number;
  /** B records that normalized to empty after corruption. */
  bEmpty: number;
  hMax: number;
  precision: number;
  recall: number;
  f1: number;
  pairs: number;
  truePairs: number;
  /** The other rule on the same range match. */
  otherRule: Quality;
  candidates: number;
  /** True pairs farther apart than A's threshold. */
  trueOutsideThreshold: number;
  meanThreshold: number;
  /** The shared base's grams. */
  base: string[];
  fingerprint: string;
  /** Milliseconds per phase ("corrupt", "mine A", "mine B", "merge", "embed A", "embed B", "thresholds", "match", "one-to-one"). */
  timingsMs: Record<string, number>;
  sample: SamplePair[];
}

/** The seeded SCENARIO.md evaluation on `records` (A's; B is a corrupted copy). */
export function runScenario(records: string[], options?: ScenarioOptions | null, onProgress?: ProgressCallback | null): ScenarioResult;

/** One whole configuration: the options of every step it shapes, every field written out. */
export interface Preset {
  mine: Required<MineOptions>;
  merge: Required<MergeOptions>;
  thresholds: Required<ThresholdOptions>;
  match: { rule: MatchRule };
  scenario: Required<Omit<ScenarioOptions, 'alphabet' | 'hMax' | 'keyed' | 'nearest'>> & { hMax: number | null };
}

/** The defaults of every options object, from the core (the web pages fill their forms from it). */
export interface Defaults {
  owner: { alphabet: string; budget: number; seed: null };
  mine: Required<MineOptions>;
  merge: Required<MergeOptions>;
  embed: { party: 'A'; thresholds: ThresholdOptions | null; binary: boolean };
  thresholds: Required<ThresholdOptions>;
  match: { rule: MatchRule };
  scenario: Required<Omit<ScenarioOptions, 'alphabet' | 'hMax' | 'keyed' | 'nearest'>> & { hMax: number | null };
  /** Both configurations: the recommended one (the defaults above) and the paper's. */
  presets: { recommended: Preset; paper: Preset };
}

/**
 * The default options of `DataOwner`, `mine`, `mergeBases`, `embed`, `thresholds`,
 * `Matcher.match` and `runScenario`: the recommended configuration.
 */
export function defaults(): Defaults;

export interface NormalizationPreview {
  /** The records normalized onto the alphabet, index for index ("" for those that normalize to empty). */
  normalized: string[];
  /** 1-based positions of the records that normalize to empty. */
  empty: number[];
}

/** Normalizes `records` onto `alphabet` (default A–Z and space) as `DataOwner` does: a preview, local only. */
export function normalize(records: string[], alphabet?: string | null): NormalizationPreview;

export interface BatchInfo {
  party: 'A' | 'B';
  fingerprint: string;
  size: number;
  dim: number;
  /** Set when the batch carries thresholds (party A's). */
  thresholdMode: string | null;
  ed: number | null;
  transform: string | null;
}

/** Reads and checks one vector batch on its own (throws what `new Matcher` would throw for it). */
export function batchInfo(batch: VectorBatchMessage): BatchInfo;
