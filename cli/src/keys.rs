//! Keys of the keyed transform on the command line: `gramlink keygen`, and the
//! `--key-file` / `--passphrase-file` flags of `embed`. Keys and passphrases are
//! read from files, never from arguments (argument lists are visible to other
//! users of the machine).

use crate::io::{self, InFile, Result};
use clap::Args;
use gramlink::keyed::{Key, UNKEYED_REVEALS};
use gramlink::party::{EmbedOptions, EmbedRequest};
use gramlink::protocol::Party;
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
    /// The keyed encoding: "sketch" (keyed buckets of 4 grams, sparse, the matcher
    /// keeps its filter), "sketch:N" (N grams a bucket), or "rotation" (the old keyed
    /// rotation: dense, and decoded by the matcher's exact-algebra attack,
    /// docs/THREAT_MODEL.md). Both parties must use the same. [default: "sketch"; with
    /// --schema "sketch:8"]
    #[arg(long)]
    pub encoding: Option<gramlink::keyed::Encoding>,
}

impl KeyArgs {
    /// The embed options of `party` as every front end gives them to the core
    /// ([`EmbedRequest`]: the key and passphrase files read, never arguments;
    /// no thresholds: the configuration's, for A), resolved by the core for
    /// `target`; the opt-out prints what unkeyed vectors reveal.
    pub fn options(&self, party: Party, keep_ids: bool, target: Target<'_>) -> Result<EmbedOptions> {
        self.options_with(party, keep_ids, None, target)
    }

    /// [`KeyArgs::options`] with the thresholds given (one string: `embed
    /// --party b --send-thresholds`).
    pub fn options_with(
        &self,
        party: Party,
        keep_ids: bool,
        thresholds: Option<gramlink::config::ThresholdOptions>,
        target: Target<'_>,
    ) -> Result<EmbedOptions> {
        let read = |p: &Option<PathBuf>| p.as_ref().map(|p| io::read_text(p)).transpose();
        let request = EmbedRequest {
            party,
            thresholds,
            key: read(&self.key_file)?,
            passphrase: read(&self.passphrase_file)?,
            no_key: self.no_key,
            keep_ids,
            encoding: self.encoding,
        };
        let (options, embeds) = match target {
            Target::OneString(base, config) => (request.one_string(base, config, REMEDY), true),
            Target::Records(schema) => {
                let linkage = gramlink::record::owner::linkage(schema);
                (request.records(&linkage, REMEDY), linkage.embeds())
            }
        };
        // a bad key or passphrase is named with its file (clap lets one through)
        let options = match self.key_file.as_ref().or(self.passphrase_file.as_ref()) {
            Some(p) => options.in_file(p)?,
            None => options?,
        };
        if embeds && !options.key.rotate {
            eprintln!("warning: --no-key: {UNKEYED_REVEALS}");
        }
        Ok(options)
    }
}

/// What `embed` links: one string over a shared base under a configuration,
/// or records under a schema.
#[derive(Clone, Copy)]
pub enum Target<'a> {
    OneString(&'a gramlink::base::SharedBase, &'a gramlink::config::Config),
    Records(&'a gramlink::record::Schema),
}
