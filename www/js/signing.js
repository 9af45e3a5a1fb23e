// Signed batches in the pages (issue 31): the owner's signing key and its batch's
// signature, the matcher's public keys and signatures. The files are the CLI's
// (`gramlink sign-keygen`, `<batch>.sig`), so a batch signed here verifies in the
// CLI and the other way round. Everything sits under an optional disclosure: the
// simple path neither asks for nor shows a key.
import { $, download, showError, describe } from './common.js';

/**
 * The owner's disclosure "Sign your batch (optional)" (#signing): make a new key
 * (its secret and public files offered for download, named with the party) or load
 * one. `worker` answers `signKeygen` and `signCheck`; `party()` is the page's party.
 * Returns `{ key, offer }`: the signing key's text (null: not signing), and a
 * function that offers a batch's signature for download after the embed step.
 */
export function ownerSigning(worker, party) {
  let key = null;
  let pair = null; // the key made in this tab: { signingKey, publicKey, party }
  const status = $('#sign-status');
  const clear = () => {
    for (const id of ['sign-new', 'sign-key-file']) {
      $(`#${id}-error`).textContent = '';
      $(`#${id}`).removeAttribute('aria-invalid');
    }
  };

  $('#sign-new').addEventListener('click', async () => {
    clear();
    try {
      const k = await worker.call('signKeygen');
      pair = { ...k, party: party() };
      key = k.signingKey;
      $('#download-sign-key').textContent = `Download your secret key (signing-key-${pair.party}.txt)`;
      $('#download-sign-pub').textContent = `Download your public key (signing-key-${pair.party}.pub)`;
      $('#sign-keys').hidden = false;
      status.textContent = `A new signing key is set for party ${pair.party}. Download both files: keep the secret key (never send it); give the public key to the matcher.`;
    } catch (e) {
      showError($('#sign-new'), `No key was made: ${describe(e)}`);
    }
  });
  $('#download-sign-key').addEventListener('click', () => pair && download(`signing-key-${pair.party}.txt`, pair.signingKey, 'text/plain'));
  $('#download-sign-pub').addEventListener('click', () => pair && download(`signing-key-${pair.party}.pub`, pair.publicKey, 'text/plain'));

  $('#sign-key-file').addEventListener('change', async () => {
    clear();
    const f = $('#sign-key-file').files[0];
    if (!f) return;
    try {
      const text = await f.text();
      await worker.call('signCheck', { key: text });
      key = text;
      pair = null;
      $('#sign-keys').hidden = true;
      status.textContent = `Signing with the key in ${f.name}.`;
    } catch (e) {
      key = null;
      status.textContent = '';
      showError($('#sign-key-file'), `${f.name} is not a secret signing key (the signing-key-${party()}.txt this page made, or the file of gramlink sign-keygen; not the .pub): ${describe(e)}`);
    }
  });

  /** After an embed: the signature of `batchName` offered as `<batchName>.sig` (nothing when not signing). */
  function offer(batchName, signature) {
    const out = $('#sig-out');
    out.hidden = !signature;
    if (!signature) return;
    const name = `${batchName}.sig`;
    const button = $('#download-sig');
    button.textContent = `Download the signature (${name})`;
    button.onclick = () => download(name, signature, 'text/plain');
    $('#sig-hint').textContent = `Send the batch and its .sig to the matcher, and give your public key (signing-key-${party()}.pub) to the matcher out of band: compare it by phone, as you compare fingerprints.`;
  }

  return { key: () => key, offer };
}

/** The matcher's files for `party` ('A' or 'B'): its public key and its batch's signature, as texts (null: none). */
async function partyFiles(party) {
  const p = party.toLowerCase();
  const read = async (id) => (await $(`#${id}-${p}`).files[0]?.text()) ?? null;
  return { key: await read('pub'), signature: await read('sig') };
}

/**
 * The matcher's disclosure "Check signatures (optional)": the options of Matcher and
 * RecordMatcher (`{verifyA, signatureA, verifyB, signatureB}`). A party without a
 * public key is not checked; a signature without its key is refused here, in words.
 */
export async function verifyOptions() {
  const [a, b] = await Promise.all([partyFiles('A'), partyFiles('B')]);
  for (const [party, f] of [['A', a], ['B', b]]) {
    if (f.signature !== null && f.key === null) {
      const err = new Error(`You gave party ${party}'s signature but not party ${party}'s public key (signing-key-${party}.pub, which ${party} gives you out of band): add the key, or remove the signature.`);
      err.control = `pub-${party.toLowerCase()}`;
      throw err;
    }
  }
  return { verifyA: a.key, signatureA: a.signature, verifyB: b.key, signatureB: b.signature };
}

/**
 * A signature error in the page's words, with the control it is about, or null when
 * `e` is not one: `{ control, text }`. The core's message follows as the details.
 */
export function signatureError(e) {
  if (e.control) return { control: $(`#${e.control}`), text: e.message };
  const party = /party ([AB])'s/.exec(e.message ?? '')?.[1];
  if (!party) return null;
  const p = party.toLowerCase();
  const details = ` (Details: ${describe(e)})`;
  if (e.code === 'SIGNATURE_MISSING') {
    return { control: $(`#sig-${p}`), text: `Party ${party}'s batch came without its signature, but you gave party ${party}'s public key: choose the batch's .sig file under "Check signatures", or ask ${party} to send the batch and its .sig again.${details}` };
  }
  if (e.code === 'SIGNATURE_INVALID') {
    return { control: $(`#sig-${p}`), text: `Party ${party}'s batch is not signed by the key you were given: ask ${party} to send the batch and its .sig again.${details}` };
  }
  if (e.code === 'INVALID_KEY' && /public key/.test(e.message)) {
    return { control: $(`#pub-${p}`), text: `This is not party ${party}'s public key: choose signing-key-${party}.pub, the file ${party} gave you out of band.${details}` };
  }
  return null;
}

/**
 * Worker side: the matcher's options with each public key read first, so that a
 * file that is not a public key is named with its party (the core's INVALID_KEY
 * does not say whose key it was). `gl` is the wasm module.
 */
export function checkedVerifyOptions(gl, options) {
  for (const party of ['A', 'B']) {
    const key = options?.[`verify${party}`];
    if (key == null) continue;
    try {
      // no signature: a key that reads gives SIGNATURE_MISSING, checked for real by the matcher
      gl.verifyBatch(key, new Uint8Array(0), null);
    } catch (e) {
      if (e.code === 'INVALID_KEY') throw Object.assign(new Error(`party ${party}'s public key: ${e.message}`), { code: e.code });
    }
  }
  return options ?? {};
}

/**
 * Worker side: checks each party's batch (`batches.A`, `batches.B`) against its
 * public key in `options`, as the matchers do, with the party named in errors
 * (`kind`: "vector batch" or "record batch"). For a step that runs before the
 * matcher (the records page's blocking counts).
 */
export function verifyParties(gl, options, batches, kind) {
  const o = checkedVerifyOptions(gl, options);
  for (const party of ['A', 'B']) {
    const key = o[`verify${party}`];
    if (key == null) continue;
    try {
      gl.verifyBatch(key, batches[party], o[`signature${party}`] ?? null);
    } catch (e) {
      throw Object.assign(new Error(`party ${party}'s ${kind}: ${e.message}`), { code: e.code });
    }
  }
}

/** Worker side: the owner workers' signing operations (`gl` is the wasm module). */
export const signingOps = (gl) => ({
  /** A new signing key pair: the texts of the CLI's sign-keygen files. */
  signKeygen: () => gl.signKeygen(),

  /** Throws INVALID_KEY unless `key` is a secret signing key (it signs nothing kept). */
  signCheck({ key }) {
    gl.signBatch(key, new Uint8Array(0));
  },
});
