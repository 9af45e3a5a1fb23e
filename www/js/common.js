// Shared helpers of the pages: worker calls, error display, downloads, formatting.

export const $ = (sel, root = document) => root.querySelector(sel);

/**
 * Calls into a module worker (js/*-worker.js). Each call is `{id, op, args}`; the
 * worker answers `{id, result}` or `{id, error: {message, code}}` and may send
 * `{id, progress: {phase, done, total}}` before. `cancel()` terminates the worker
 * (the only way to stop wasm busy in a worker) and starts a fresh one.
 */
export class WorkerClient {
  constructor(url) {
    this.url = url;
    this.next = 1;
    this.pending = new Map();
    this.start();
  }
  start() {
    this.worker = new Worker(this.url, { type: 'module' });
    this.worker.onmessage = (ev) => {
      const { id, progress, result, error } = ev.data;
      const p = this.pending.get(id);
      if (!p) return;
      if (progress) {
        p.onProgress?.(progress);
        return;
      }
      this.pending.delete(id);
      if (error) p.reject(Object.assign(new Error(error.message), { code: error.code }));
      else p.resolve(result);
    };
    this.worker.onerror = (ev) => {
      // a worker that fails to start or throws outside a call: fail every pending call in words
      ev.preventDefault?.();
      const e = Object.assign(new Error(`the background worker failed: ${ev.message || 'it could not start (is the package built? npm run build)'}`), { code: 'WORKER' });
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    };
  }
  call(op, args = {}, onProgress = null, transfer = []) {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      this.worker.postMessage({ id, op, args }, transfer);
    });
  }
  cancel() {
    this.worker.terminate();
    const e = Object.assign(new Error('cancelled'), { code: 'CANCELLED' });
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
    this.start();
  }
}

/** Worker side: serves `ops` (name → async (args, progress) => result). */
export function serveOps(ops) {
  self.onmessage = async (ev) => {
    const { id, op, args } = ev.data;
    let last = 0;
    // progress is throttled to ~20 messages a second, plus the end of each phase
    const progress = (phase, done, total) => {
      const now = performance.now();
      if (now - last > 50 || done === total) {
        last = now;
        self.postMessage({ id, progress: { phase, done, total } });
      }
    };
    try {
      if (!ops[op]) throw Object.assign(new Error(`unknown operation ${op}`), { code: 'INVALID_PARAMETER' });
      const { result, transfer } = await wrapResult(ops[op](args, progress));
      self.postMessage({ id, result }, transfer);
    } catch (e) {
      self.postMessage({ id, error: { message: e?.message ?? String(e), code: e?.code ?? 'ERROR' } });
    }
  };
}

async function wrapResult(p) {
  const r = await p;
  if (r && r.__transfer) return { result: r.value, transfer: r.__transfer };
  return { result: r, transfer: [] };
}

/** A result with buffers to transfer instead of copy. */
export const transferring = (value, buffers) => ({ __transfer: buffers, value });

/**
 * Streams a `File` into a core reader (`RecordReader`, `RecordTableReader`) chunk by
 * chunk, never holding it whole, reporting `progress('reading', bytes read, size)`.
 */
export async function streamInto(file, reader, progress) {
  const stream = file.stream().getReader();
  for (;;) {
    const { done, value } = await stream.read();
    if (done) break;
    reader.push(value);
    progress('reading', reader.bytesRead, file.size);
  }
}

/** Shows `message` in the error slot of `control` (#<id>-error) and marks it invalid. */
export function showError(control, err) {
  const slot = document.getElementById(`${control.id}-error`);
  const text = typeof err === 'string' ? err : describe(err);
  if (slot) slot.textContent = text;
  if (control.matches('input, select, textarea')) control.setAttribute('aria-invalid', 'true');
  // an error on an expert setting opens its "Advanced" disclosure, so it is seen
  const details = control.closest('details');
  if (details) details.open = true;
  return text;
}

/**
 * The JSON in the file chosen in `input` (a file input), or null when none is chosen.
 * A file that is not JSON is refused next to `input`; the error is thrown, marked shown.
 */
export async function jsonFile(input) {
  const f = input.files[0];
  if (!f) return null;
  try {
    return JSON.parse(await f.text());
  } catch (e) {
    showError(input, `${f.name}: not JSON (${describe(e)})`);
    throw Object.assign(e, { shown: true });
  }
}

/** Clears the error slots inside `scope`. */
export function clearErrors(scope = document) {
  for (const s of scope.querySelectorAll('.error')) s.textContent = '';
  for (const c of scope.querySelectorAll('[aria-invalid="true"]')) c.removeAttribute('aria-invalid');
}

/** An error in words for the page: the message, and the code when there is one. */
export function describe(e) {
  if (!e) return 'unknown error';
  const msg = e.message ?? String(e);
  return e.code && e.code !== 'ERROR' ? `${msg} (${e.code})` : msg;
}

/** Offers `data` as a file download (a local blob URL: nothing is sent anywhere). */
export function download(name, data, type = 'application/octet-stream') {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Reads a number field; shows an error next to it and throws if it is not in range. */
export function numberField(input, { min = -Infinity, max = Infinity, integer = false, above = null } = {}) {
  const raw = input.value.trim();
  const x = Number(raw);
  const label = document.querySelector(`label[for="${input.id}"]`)?.textContent.trim() ?? input.name;
  let why = null;
  if (raw === '' || !Number.isFinite(x)) why = `${label}: enter a number`;
  else if (integer && !Number.isInteger(x)) why = `${label} must be a whole number`;
  else if (above !== null && !(x > above)) why = `${label} must be greater than ${above}`;
  else if (x < min) why = `${label} must be at least ${min}`;
  else if (x > max) why = `${label} must be at most ${max}`;
  if (why) {
    showError(input, why);
    throw Object.assign(new Error(why), { code: 'FIELD', shown: true });
  }
  return x;
}

/** Sets a progress bar from `{phase, done, total}`. */
export function setProgress(bar, label, { phase, done, total }) {
  if (total > 0) {
    bar.max = total;
    bar.value = done;
  } else {
    bar.removeAttribute('value');
  }
  label.textContent = `${phase}: ${done.toLocaleString('en')} / ${total.toLocaleString('en')}`;
}

export const fmt = (x, d = 3) => (Number.isFinite(x) ? x.toFixed(d) : String(x));
export const ms = (x) => (x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${Math.round(x)} ms`);

/** Decodes base64 (the wasm bytes served as a module). */
export function fromBase64(b64) {
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** Downloads above this size ask first (the page's `data-large-download` attribute can lower it). */
export const LARGE_DOWNLOAD = 100 * 1024 * 1024;

/**
 * Offers `data` as a download at once, or, when it is larger than LARGE_DOWNLOAD, first
 * shows its size and a warning in `slot` (an element) with a "Download anyway" button.
 * Resolves true when the file was offered, false when the user declined.
 */
export function downloadChecked(slot, name, data, type = 'application/octet-stream') {
  const bytes = typeof data === 'string' ? new Blob([data]).size : data.byteLength;
  const limit = Number(document.body.dataset.largeDownload || LARGE_DOWNLOAD);
  if (bytes <= limit) {
    download(name, data, type);
    return Promise.resolve(true);
  }
  const mb = (bytes / 1024 / 1024).toFixed(1);
  return new Promise((resolve) => {
    const box = document.createElement('div');
    box.className = 'warning';
    box.setAttribute('role', 'alert');
    const p = document.createElement('p');
    p.textContent = `${name} is ${mb} MB (${bytes.toLocaleString('en')} bytes). Check that you have the disk space, and that the receiver can take a file this large (the matcher's page holds it in memory).`;
    const yes = document.createElement('button');
    yes.type = 'button';
    yes.className = 'download-anyway';
    yes.textContent = `Download anyway (${mb} MB)`;
    const no = document.createElement('button');
    no.type = 'button';
    no.textContent = 'Do not download';
    const done = (ok) => {
      box.remove();
      if (ok) download(name, data, type);
      resolve(ok);
    };
    yes.addEventListener('click', () => done(true));
    no.addEventListener('click', () => done(false));
    box.append(p, yes, no);
    slot.replaceChildren(box);
    yes.focus();
  });
}

/**
 * The shared-key controls of both owner pages (#key, #new-key, #key-file, #no-key): a new
 * key is made in the worker and downloaded for the partner; a key file fills the field;
 * "send unkeyed" is an explicit choice that empties and locks the key. Returns what the
 * worker's embed takes: `{ key, noKey }` (the core refuses neither: KEY_REQUIRED).
 */
export function keyControls(worker) {
  const key = $('#key');
  const noKey = $('#no-key');
  $('#new-key').addEventListener('click', async () => {
    key.value = await worker.call('keygen');
    download('shared-key.txt', `${key.value}\n`, 'text/plain');
  });
  $('#key-file').addEventListener('change', async () => {
    const f = $('#key-file').files[0];
    if (f) key.value = (await f.text()).trim();
  });
  noKey.addEventListener('change', () => {
    key.disabled = noKey.checked;
    $('#new-key').disabled = noKey.checked;
    $('#key-file').disabled = noKey.checked;
  });
  return () => (noKey.checked ? { key: null, noKey: true } : { key: key.value.trim() || null, noKey: false });
}

/**
 * Runs `worker.call(op, args)` with a progress line in `slot` (an empty element): after one
 * second it shows the phase, the counts done of the total, an estimate of the time left
 * (from the phase's pace so far) and a Cancel button. Cancel stops the worker (its state is
 * lost: the caller resets its page) and the call rejects with code CANCELLED.
 */
export function withProgress(slot, worker, op, args = {}, transfer = []) {
  const t0 = performance.now();
  let phase = null;
  let phaseStart = t0;
  let last = null;
  const bar = document.createElement('progress');
  bar.setAttribute('aria-label', 'progress');
  const text = document.createElement('span');
  text.setAttribute('aria-live', 'polite');
  const cancel = document.createElement('button');
  cancel.type = 'button';
  cancel.className = 'secondary cancel';
  cancel.textContent = 'Cancel';
  cancel.addEventListener('click', () => worker.cancel());
  slot.classList.add('progress');
  const draw = () => {
    const secs = (performance.now() - t0) / 1000;
    if (!last || !(last.total > 0)) {
      bar.removeAttribute('value');
      text.textContent = `${last?.phase ?? 'working'}… ${secs.toFixed(0)} s so far`;
      return;
    }
    bar.max = last.total;
    bar.value = last.done;
    const spent = (performance.now() - phaseStart) / 1000;
    const left = last.done > 0 ? (spent / last.done) * (last.total - last.done) : NaN;
    const eta = Number.isFinite(left) && last.done < last.total ? `, about ${left < 60 ? `${Math.ceil(left)} s` : `${Math.ceil(left / 60)} min`} left` : '';
    text.textContent = `${last.phase}: ${last.done.toLocaleString('en')} of ${last.total.toLocaleString('en')}${eta}`;
  };
  // shown only for work over a second; redrawn each second for the elapsed time
  const show = setTimeout(() => {
    slot.replaceChildren(bar, text, cancel);
    slot.hidden = false;
    draw();
  }, 1000);
  const tick = setInterval(() => !slot.hidden && draw(), 1000);
  const onProgress = (p) => {
    if (p.phase !== phase) {
      phase = p.phase;
      phaseStart = performance.now();
    }
    last = p;
    if (!slot.hidden) draw();
  };
  const done = () => {
    clearTimeout(show);
    clearInterval(tick);
    slot.replaceChildren();
    slot.hidden = true;
  };
  return worker.call(op, args, onProgress, transfer).finally(done);
}

/** A fingerprint of bytes or text for two people to read to each other: SHA-256, groups of four hex digits. */
export async function contentFingerprint(data) {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return [...hash.slice(0, 16)].map((b) => b.toString(16).padStart(2, '0')).join('').match(/.{4}/g).join(' ');
}

/** Under each file input of the page, the chosen files' whole names (the browser cuts them short). */
export function showFileNames(root = document) {
  for (const input of root.querySelectorAll('input[type=file]')) {
    const span = document.createElement('span');
    span.className = 'file-name';
    input.after(span);
    input.addEventListener('change', () => (span.textContent = [...input.files].map((f) => f.name).join(', ')));
  }
}

/**
 * The workers' `unmap`: the matcher's pairs (`a_id,b_id,…`) or clusters (`party,id,cluster`,
 * three parties or more) with `party`'s rows replaced by its own ids from its id map (the
 * core's unmapPairs or unmapClusters). A pairs file names parties A and B only.
 */
export function unmapOwn(gl, { pairs, party, map }) {
  const head = typeof pairs === 'string' ? pairs.slice(0, 64) : new TextDecoder().decode(pairs.subarray(0, 64));
  if (/^\uFEFF?\s*party/.test(head)) return gl.unmapClusters(pairs, party, map);
  if (party !== 'A' && party !== 'B') {
    const e = new Error(`a pairs file names parties A and B only: as party ${party}, give the matcher's clusters file (party,id,cluster)`);
    throw Object.assign(e, { code: 'INVALID_PARAMETER' });
  }
  return party === 'A' ? gl.unmapPairs(pairs, map, null) : gl.unmapPairs(pairs, null, map);
}

/** Appends parties C to Z to a party select (A and B are in the page): three parties or more. */
export function addParties(select) {
  for (let c = 67; c <= 90; c++) {
    const p = String.fromCharCode(c);
    select.append(new Option(`${p} (three parties or more: sends thresholds)`, p));
  }
}

