//! Keys of the keyed transform on the command line: `gramlink keygen`, and the
//! `--key-file` / `--passphrase-file` flags of `embed`. Keys and passphrases are
//! read from files, never from arguments (argument lists are visible to other
//! users of the machine).

use crate::io::{self, InFile, Result};
use clap::Args;
use gramlink::keyed::Key;
use std::path::PathBuf;

#[derive(Args)]
pub struct KeygenArgs {
    /// Where to write the new key (64 hex digits; the file is created readable by
    /// its owner only). Give it to the other party out of band, never to the matcher.
    #[arg(long, short)]
    pub out: PathBuf,
}

pub fn cmd_keygen(a: KeygenArgs) -> Result<()> {
    let key = Key::random()?;
    // write_atomic creates its temporary file with mode 0600 and renames it
    io::write_atomic(&a.out, format!("{}\n", key.to_hex()).as_bytes())?;
    eprintln!("new 32-byte key -> {} (share it with the other party only)", a.out.display());
    Ok(())
}

/// What KEY_REQUIRED tells a CLI user to do.
const REMEDY: &str = "Share a key with the other party (gramlink keygen; --key-file or --passphrase-file), or pass \
--no-key to export unkeyed vectors anyway";

/// The key flags of `embed`.
#[derive(Args, Clone, Default)]
pub struct KeyArgs {
    /// Apply the keyed transform with this key (from `gramlink keygen`).
    #[arg(long, conflicts_with = "passphrase_file")]
    pub key_file: Option<PathBuf>,
    /// Apply the keyed transform with a key derived (Argon2id) from the passphrase
    /// in this file (at least 8 characters; surrounding white space ignored).
    #[arg(long)]
    pub passphrase_file: Option<PathBuf>,
    /// Export unkeyed vectors: the matcher can then re-identify records with a
    /// name list and, in the recommended preset, rebuild most of them from the
    /// vectors alone (docs/THREAT_MODEL.md). Without a key or this flag, embed
    /// refuses (KEY_REQUIRED). With --schema it may go with --key-file: the key
    /// then hashes the keyed fields and the vectors go unrotated.
    #[arg(long)]
    pub no_key: bool,
    /// The keyed encoding: "sketch" (the default: keyed buckets of 4 grams, sparse,
    /// the matcher keeps its filter), "sketch:N" (N grams a bucket), or "rotation"
    /// (the old keyed rotation: dense, and decoded by the matcher's exact-algebra
    /// attack, docs/THREAT_MODEL.md). Both parties must use the same.
    #[arg(long, default_value = "sketch")]
    pub encoding: gramlink::keyed::Encoding,
}

impl KeyArgs {
    /// The key; a passphrase is salted with `context`, the linkage's shared
    /// base fingerprint (or schema fingerprint), so both parties derive the same
    /// key and no other linkage shares its Argon2id work ([`Key::from_passphrase_for`]).
    pub fn key(&self, context: &str) -> Result<Option<Key>> {
        let read = |p: &PathBuf| -> Result<String> { io::read_text(p) };
        match (&self.key_file, &self.passphrase_file) {
            (Some(p), _) => Key::from_hex(&read(p)?).map(Some).in_file(p),
            (None, Some(p)) => Key::from_passphrase_for(&read(p)?, context).map(Some).in_file(p),
            (None, None) => Ok(None),
        }
    }

    /// A record batch's key and whether its vectors are rotated, under the
    /// core's export policy for records ([`gramlink::record::owner::export_rotation`]).
    pub fn record_key(&self, schema: &gramlink::record::Schema) -> Result<(Option<Key>, bool)> {
        let key = self.key(&schema.fingerprint())?;
        let rotate = gramlink::record::owner::export_rotation(schema, key.as_ref(), self.no_key, REMEDY)?;
        if self.no_key && schema.sent().any(|f| f.kind().is_some_and(|k| k.is_embedded())) {
            eprintln!("warning: --no-key: {}", gramlink::party::UNKEYED_REVEALS);
        }
        Ok((key, rotate))
    }

    /// The key, under the core's export policy ([`gramlink::party::require_key`]):
    /// none only with `--no-key`, which prints what the vectors then reveal.
    pub fn export_key(&self, context: &str) -> Result<Option<Key>> {
        let key = self.key(context)?;
        gramlink::party::require_key(key.as_ref(), self.no_key, REMEDY)?;
        if key.is_none() {
            eprintln!("warning: --no-key: {}", gramlink::party::UNKEYED_REVEALS);
        }
        Ok(key)
    }
}
