// Type-checked by scripts/check-pkg.mjs (tsc --strict, when TypeScript is installed) against
// the installed package: the hand-written declarations in types/ must accept real use.
import { KuzuOwner, kuzuBlockModel, kuzuDecide, kuzuKeygen, makeTwin, runScenario, type KuzuRule, type ScenarioResult, type TwinReport, defaults as labDefaults } from 'gramlink/lab';
import { signBatch, signKeygen, verifyBatch, type SigningKeyPair, type VerifyOptions } from 'gramlink';
import { linkParties, unmapClusters, type LinkPartiesOutput } from 'gramlink';
import { DataOwner, Matcher, RecordMatcher, RecordOwner, RecordTableReader, keygen, unmapPairs, type RecordLinkageOutput, type Schema, defaults, fingerprint, peekInput, type Config, type GramlinkError, type MatchOutput, type MatchRule, type SparseVectors } from 'gramlink';
const a = new DataOwner(['Paris', 'Zürich'], { budget: 1 });
const b = DataOwner.fromBytes(new TextEncoder().encode('id,c\n1,Paris\n'), { column: 'c', idColumn: 'id' });
const na: string = a.mine({ miner: 'fpm', epsilon: 0.5 }, (phase, done, total) => { const p: string = phase; return done < total; });
const nb = b.mine({ miner: 'random' });
const shared = DataOwner.mergeBases(na, nb);
const paperBase: string = DataOwner.mergeBases(na, nb, defaults().presets.paper.mine);
const mergedOwn = DataOwner.mergeBases(na, nb, { k: 75, publicQ: null, padding: true });
const c = DataOwner.fromBytes(new Uint8Array([80, 10]), { format: 'auto', column: null, name: 'a.txt' }, { alphabet: 'letters+digits' });
const warn: string | null = c.normalizationReport().warning;
const peek: string[] = peekInput(new Uint8Array([80, 10])).head;
const fp: string = fingerprint(shared);
const ja: string = a.embed(shared, { thresholds: { ed: 2, mode: { global: null } }, key: keygen() });
const jb: Uint8Array = b.embed(shared, { party: 'B', binary: true, noKey: true, keepIds: false });
const mapA: string | undefined = a.idMapCsv();
const mapBytes: Uint8Array | undefined = a.idMapBytes();
const ownPairs: string = unmapPairs('a_id,b_id\n', mapA ?? null, b.idMapCsv()) + unmapPairs(new Uint8Array([1]), null, 'pseudonym,id\n') + unmapPairs('a_id,b_id\n', mapBytes ?? null, null);
const jc: Uint8Array = c.embed(shared, { party: 'C', binary: true, noKey: true, thresholds: { ed: 1, mode: 'sound' } });
const clustered: LinkPartiesOutput = linkParties([ja, jb, jc], { mergeThreshold: 0.5, pairs: true, names: ['a', 'b', 'c'] });
const recordClusters: LinkPartiesOutput = linkParties([new Uint8Array(), new Uint8Array()], { schema: '{}' });
void recordClusters;
const spanning: number = clustered.spans[3] + clustered.cluster[0] + clustered.sizes[0];
const ownRows: string = unmapClusters(clustered.csv, 'c', c.idMapCsv() ?? '') + (clustered.pairsCsv ?? '');
// @ts-expect-error parties are letters
c.embed(shared, { party: 'C1', noKey: true });
const keepDefault: boolean = defaults().embed.keepIds;
// @ts-expect-error keepIds is a boolean
a.embed(shared, { noKey: true, keepIds: 'yes' });
const m = new Matcher(ja, jb);
const out: MatchOutput = m.match({ rule: 'greedy' });
const rule: MatchRule = defaults().config.rule;
const ranked: MatchRule = m.match({ rule }).rule;
const paperConfig: Config = defaults().presets.paper;
const paper: ScenarioResult = runScenario(['A'], { config: paperConfig, meanHMax: true });
const ia: Uint32Array = out.a; const d: Float64Array = out.distances; const ids: string[] = out.aIds;
const v: Float32Array = a.embedVectors(shared);
const sv: SparseVectors = a.embedSparse(shared); const svDim: number = sv.dim + sv.starts[0] + sv.cols[0] + sv.vals[0];
const th: Float64Array = a.thresholds(shared, 1, 'sound');
const r: ScenarioResult = runScenario(['A', 'B'], { config: { thresholds: { mode: 'paper' } }, seed: 7 });
const usedRule: MatchRule = r.options.config.rule;
const f1: number = r.f1 + r.otherRule.true_pairs + r.timingsMs['match'];
try { a.mine(); } catch (e) { const code = (e as GramlinkError).code; if (code === 'BUDGET_EXCEEDED') {} }
// @ts-expect-error unknown option
a.mine({ kk: 1 });
// @ts-expect-error unknown rule
m.match({ rule: 'bogus' });
// @ts-expect-error the older option is gone
m.match({ oneToOne: true });
// @ts-expect-error scenario options take a configuration, not flat fields
runScenario(['A'], { ed: 1 });
// @ts-expect-error wrong mode
a.thresholds(shared, 1, 'lenient');
console.log(ownPairs, keepDefault, fp, ia, d, ids, v, th, f1, a.size, a.epsilonSpent, m.fingerprint, paperBase, mergedOwn, ranked, paper.f1, warn, peek, usedRule);
// whole records
const schema: Schema = { version: 1, id: 'id', field: [{ name: 'surname', kind: 'name' }, { name: 'dob', kind: 'date', invalid: 'missing' }], block: [{ field: 'surname', ed: 1 }] };
const ra = new RecordOwner('id,surname,dob\n1,SMITH,19800101\n', schema, { seed: 1 });
const rb = new RecordOwner(new Uint8Array([1]), JSON.stringify(schema));
const tableReader = new RecordTableReader(schema);
tableReader.push(new Uint8Array([1]));
const streamedRows: number = tableReader.recordsRead + tableReader.bytesRead;
const rs: RecordOwner = RecordOwner.fromReader(tableReader, { seed: 2 });
const split: number = ra.budgetSplit()[0].epsilon + ra.fields()[0].present;
const sharedRecords: string = RecordOwner.mergeBases(ra.mine(), rb.mine(), schema);
const rm = new RecordMatcher(schema, ra.embed(sharedRecords, { party: 'A', key: keygen() }), rb.embed(sharedRecords, { party: 'B', noKey: true }));
const linked: RecordLinkageOutput = rm.link({ upper: 3 });
// signed batches: the key pair's texts, a signature per batch, the matchers' checks
const signer: SigningKeyPair = signKeygen();
const recordsA = ra.embed(sharedRecords, { party: 'A', noKey: true });
const sigA: string = signBatch(signer.signingKey, recordsA);
verifyBatch(signer.publicKey, recordsA, sigA);
verifyBatch(new TextEncoder().encode(signer.publicKey), ja, null);
const verify: VerifyOptions = { verifyA: signer.publicKey, signatureA: sigA, verifyB: null };
new RecordMatcher(schema, recordsA, rb.embed(sharedRecords, { party: 'B', noKey: true }), verify);
new Matcher(ja, jb, { verifyA: signer.publicKey, signatureA: signBatch(signer.signingKey, ja) });
// @ts-expect-error a typo in the options
new Matcher(ja, jb, { verify_a: signer.publicKey });
const firstLevel: number = linked.pairs.levels[0] + linked.fit.fields[0].m[0] + rm.weights()[0];
const csvText: string = unmapPairs(rm.pairsCsv(null), ra.idMapCsv(), null);
rb.embed(sharedRecords, { party: 'B', noKey: true, keepIds: true });
rb.embed(sharedRecords, { party: 'B', passphrase: 'correct horse battery staple', keepIds: false });
// @ts-expect-error a kind that does not exist
const badSchema: Schema = { version: 1, field: [{ name: 'x', kind: 'blob' }] };
const twin = makeTwin(['SMITH', 'JONES'], { seed: 1, twin: { condense: { k: 1 }, nnSample: 10 } });
const twinReport: TwinReport = twin.report;
const twinShare: number = twinReport.fields[0].equalToReal + (twinReport.categorical?.normalizedAnonymityScore ?? 0);
const twinCsv = makeTwin('id,name\n1,A\n', { schema: { version: 1, field: [{ name: 'name', kind: 'name' }] } }).records;
const kuzuRule: KuzuRule = { id: 'id', block: 'surname', threshold: 0.6, attribute: [{ column: 'surname', kind: 'string', weight: 1 }, { column: 'yob', kind: 'year', weight: 0.2, min: 1900, max: 2010 }] };
const kuzuKey = kuzuKeygen(512, { seed: 1 });
const kuzuModel: string = kuzuBlockModel('SMITH\n', { take: 1, blocks: 1 });
const kuzuA = new KuzuOwner('id,surname,yob\n1,SMITH,1980\n', kuzuRule);
const kuzuEnc = kuzuA.encrypt(kuzuModel, kuzuKey.publicKey, { bRecords: 1 }, (phase, done, total) => done < total);
const kuzuCmp = new KuzuOwner('id,surname,yob\n9,SMYTH,1980\n', JSON.stringify(kuzuRule)).compare(kuzuModel, kuzuKey.publicKey, kuzuEnc.blocks, { rerandomize: false });
const kuzuMatches: string = kuzuDecide(kuzuCmp.pairs, kuzuRule, kuzuKey.privateKey) + kuzuEnc.report + kuzuCmp.map;
const scenarioSeed: number = labDefaults().scenario.seed + labDefaults().config.mine.k;
// @ts-expect-error the core's defaults have no scenario (gramlink/lab's have)
defaults().scenario;
