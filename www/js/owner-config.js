// The owner page's configuration and mining options: what each preset builds, the fields it
// fills, the options of a mining read from the form, and the field an error belongs to.
import { showError, numberField } from './common.js';

const el = (id) => document.getElementById(id);

/** What each configuration builds, in words (from its options). */
export function presetNote(presets, name) {
  const p = presets[name];
  const grams = p.mine.qMin === p.mine.qMax ? `${p.mine.qMin}-grams` : `${p.mine.qMin}–${p.mine.qMax}-grams`;
  const pub = p.mine.publicQ ? `every public ${p.mine.publicQ}-gram of the alphabet (no budget) + ` : '';
  return `${name}: shared base = ${pub}${p.mine.k} mined ${grams}${p.mine.padding ? ' of the records padded as ^record$' : ''}; ${p.thresholds.mode} thresholds; the matcher's rule: ${p.rule}.`;
}

/** Fills the fields a configuration decides (gram lengths, threshold mode). */
export function applyPreset(presets, name) {
  const p = presets[name];
  el('q-min').value = p.mine.qMin;
  el('q-max').value = p.mine.qMax;
  el('mode').value = typeof p.thresholds.mode === 'string' ? p.thresholds.mode : 'global';
  el('preset-note').textContent = presetNote(presets, name);
}

export function mineErrorTarget(e) {
  const m = e.message;
  if (e.code === 'INVALID_EPSILON' || e.code === 'BUDGET_EXCEEDED' || e.code === 'INVALID_LEDGER') return el('epsilon');
  if (/q_min|qMin/.test(m)) return el('q-min');
  if (/q_max|qMax/.test(m)) return el('q-max');
  if (/h_max|hMax/.test(m)) return el('h-max');
  if (/\bk\b/.test(m)) return el('k');
  return el('mine');
}

/** The mining options of the form, under the chosen configuration (`presets`: the core's defaults). */
export function mineOptions(presets) {
  const o = {
    miner: el('miner').value,
    epsilon: numberField(el('epsilon'), { above: 0, max: 1000 }),
    k: numberField(el('k'), { min: 1, integer: true }),
    qMin: numberField(el('q-min'), { min: 1, integer: true }),
    qMax: numberField(el('q-max'), { min: 1, integer: true }),
  };
  if (o.qMin > o.qMax) {
    showError(el('q-max'), `the longest gram (${o.qMax}) must be at least the shortest (${o.qMin})`);
    throw Object.assign(new Error('range'), { shown: true });
  }
  if (o.miner === 'prefix-tree') {
    o.strategy = el('strategy').value;
    o.hMax = numberField(el('h-max'), { min: 1, integer: true });
  }
  // padding (and the public grams merge adds) come with the configuration
  const p = presets[el('preset').value].mine;
  o.padding = p.padding;
  o.publicQ = p.publicQ;
  return o;
}
