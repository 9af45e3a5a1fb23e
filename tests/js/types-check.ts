// Type-checked by scripts/check-pkg.mjs (tsc --strict, when TypeScript is installed) against
// the installed package: the hand-written declarations in types/ must accept real use.
import { DataOwner, Matcher, defaults, fingerprint, runScenario, type GramlinkError, type ScenarioResult, type MatchOutput, type MatchRule } from 'gramlink';
const a = new DataOwner(['Paris', 'Zürich'], { budget: 1 });
const b = DataOwner.fromCsv('id,c\n1,Paris\n', 'c', 'id');
const na: string = a.mine({ miner: 'fpm', epsilon: 0.5 }, (phase, done, total) => { const p: string = phase; return done < total; });
const nb = b.mine({ miner: 'random' });
const shared = DataOwner.mergeBases(na, nb, 75);
const paperBase: string = DataOwner.mergeBases(na, nb, 75, defaults().presets.paper.merge);
const mergedOwn = DataOwner.mergeBases(na, nb, 75, { publicQ: null, padding: true });
const fp: string = fingerprint(shared);
const ja: string = a.embed(shared, { thresholds: { ed: 2, mode: { global: null } } });
const jb: Uint8Array = b.embed(shared, { party: 'B', binary: true });
const m = new Matcher(ja, jb);
const out: MatchOutput = m.match({ oneToOne: true });
const rule: MatchRule = defaults().match.rule;
const ranked: 'ranked' | 'threshold' | 'one-to-one' | 'nearest' = m.match({ rule }).rule;
const paper: ScenarioResult = runScenario(['A'], defaults().presets.paper.scenario);
const ia: Uint32Array = out.a; const d: Float64Array = out.distances; const ids: string[] = out.aIds;
const v: Float32Array = a.embedVectors(shared);
const th: Float64Array = a.thresholds(shared, 1, 'sound');
const r: ScenarioResult = runScenario(['A', 'B'], { threshold: 'paper', hMax: null });
const f1: number = r.f1 + r.otherRule.true_pairs + r.timingsMs['match'];
try { a.mine(); } catch (e) { const code = (e as GramlinkError).code; if (code === 'BUDGET_EXCEEDED') {} }
// @ts-expect-error unknown option
a.mine({ kk: 1 });
// @ts-expect-error unknown rule
m.match({ rule: 'bogus' });
// @ts-expect-error wrong mode
a.thresholds(shared, 1, 'lenient');
console.log(fp, ia, d, ids, v, th, f1, a.size, a.epsilonSpent, m.fingerprint, paperBase, mergedOwn, ranked, paper.f1);
