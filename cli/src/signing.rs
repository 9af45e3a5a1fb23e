//! Signed batches on the command line ([`gramlink::protocol::signature`]):
//! `gramlink sign-keygen` writes a party's signing key and its public key,
//! `embed --signing-key` writes `<batch>.sig` beside the batch, and `match
//! --verify-a/--verify-b` (or `--verify PARTY=PUB` for any of N parties)
//! refuses a batch without a valid signature.

use crate::io::{self, CliError, InFile, Result};
use clap::Args;
use gramlink::error::ProtocolError;
use gramlink::protocol::signature::{BatchDigest, SigningKey, VerifyingKey};
use gramlink::protocol::Party;
use std::io::Read;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct SignKeygenArgs {
    /// Where to write the new secret signing key (readable by its owner only;
    /// never share it). The public key goes to the same name + .pub: give that
    /// to the matcher out of band.
    #[arg(long, short)]
    pub out: PathBuf,
}

pub fn cmd_sign_keygen(a: SignKeygenArgs) -> Result<()> {
    let key = SigningKey::random()?;
    let public = with_suffix(&a.out, ".pub");
    // write_atomic creates its temporary file with mode 0600 and renames it
    io::write_atomic(&a.out, key.to_text().as_bytes())?;
    io::write_atomic(&public, key.verifying_key().to_text().as_bytes())?;
    eprintln!(
        "new Ed25519 signing key -> {} (keep it); its public key -> {} (give it to the matcher)",
        a.out.display(),
        public.display()
    );
    Ok(())
}

/// `embed`'s signing flag.
#[derive(Args, Default)]
pub struct SigningFlags {
    /// Sign the batch with this key (from `gramlink sign-keygen`): the signature
    /// goes beside the batch, to its name + .sig; send both to the matcher.
    #[arg(long, value_name = "FILE")]
    pub signing_key: Option<PathBuf>,
}

impl SigningFlags {
    /// The key, read before any work (a bad key fails fast).
    pub fn load(&self) -> Result<Option<SigningKey>> {
        let Some(path) = &self.signing_key else { return Ok(None) };
        Ok(Some(SigningKey::from_text(&io::read_text(path)?).in_file(path)?))
    }
}

/// Signs the batch just written to `out` (read back from the file, in pieces:
/// what is signed is what the matcher will read) into `out` + .sig.
pub fn sign_written(key: Option<&SigningKey>, out: &Path) -> Result<()> {
    let Some(key) = key else { return Ok(()) };
    let sig = with_suffix(out, ".sig");
    io::write_atomic(&sig, key.sign(digest_of(out)?).as_bytes())?;
    eprintln!("signed -> {}", sig.display());
    Ok(())
}

/// `match`'s signature checks.
#[derive(Args, Default)]
pub struct VerifyFlags {
    /// Party A's public signing key: A's batch must carry a valid signature
    /// (its name + .sig, or --signature-a).
    #[arg(long, value_name = "PUB")]
    pub verify_a: Option<PathBuf>,
    /// Party B's public signing key.
    #[arg(long, value_name = "PUB")]
    pub verify_b: Option<PathBuf>,
    /// A's signature file [default: A's batch + .sig].
    #[arg(long, value_name = "FILE", requires = "verify_a")]
    pub signature_a: Option<PathBuf>,
    /// B's signature file [default: B's batch + .sig].
    #[arg(long, value_name = "FILE", requires = "verify_b")]
    pub signature_b: Option<PathBuf>,
    /// Any party's public signing key, as PARTY=PUB (repeat it: `--verify c=c.pub`): the
    /// batch given in that party's place (A first, B second, C third, …) must be that
    /// party's and carry a valid signature.
    #[arg(long, value_name = "PARTY=PUB")]
    pub verify: Vec<String>,
    /// A party's signature file, as PARTY=FILE [default: its batch + .sig].
    #[arg(long, value_name = "PARTY=FILE")]
    pub signature: Vec<String>,
}

/// A party's key and signature file, from the flags.
struct Check {
    party: Party,
    key: PathBuf,
    signature: Option<PathBuf>,
}

/// `PARTY=FILE` of `flag`.
fn party_file(flag: &str, value: &str) -> Result<(Party, PathBuf)> {
    let usage =
        || CliError::usage(format!("--{flag} takes PARTY=FILE (a letter A to Z, then the file), not {value:?}"));
    let (party, file) = value.split_once('=').ok_or_else(usage)?;
    let party: Party = party.parse().map_err(|_| usage())?;
    if file.is_empty() {
        return Err(usage());
    }
    Ok((party, PathBuf::from(file)))
}

impl VerifyFlags {
    /// Every party's check, one per party, by its place.
    fn checks(&self) -> Result<Vec<Check>> {
        let mut checks: Vec<Check> = Vec::new();
        let mut add = |party: Party, key: PathBuf, signature: Option<PathBuf>| {
            if checks.iter().any(|c| c.party == party) {
                return Err(CliError::usage(format!("party {party}'s public key is given twice")));
            }
            checks.push(Check { party, key, signature });
            Ok(())
        };
        for (party, key, sig) in
            [(Party::A, &self.verify_a, &self.signature_a), (Party::B, &self.verify_b, &self.signature_b)]
        {
            if let Some(key) = key {
                add(party, key.clone(), sig.clone())?;
            }
        }
        for v in &self.verify {
            let (party, key) = party_file("verify", v)?;
            add(party, key, None)?;
        }
        for v in &self.signature {
            let (party, sig) = party_file("signature", v)?;
            let Some(c) = checks.iter_mut().find(|c| c.party == party) else {
                return Err(CliError::usage(format!("--signature {v}: party {party} has no --verify key")));
            };
            if c.signature.replace(sig).is_some() {
                return Err(CliError::usage(format!("party {party}'s signature file is given twice")));
            }
        }
        Ok(checks)
    }

    /// Checks the batch files, given in party order, against the keys given
    /// (none given: nothing to check, as before signatures), before any batch
    /// is read. Returns the parties checked by their place: the caller, once
    /// it has read the batches, holds each to its party ([`signed_party`]).
    pub fn check(&self, files: &[PathBuf]) -> Result<Vec<(usize, Party)>> {
        let mut checked = Vec::new();
        for c in self.checks()? {
            let Some(batch) = files.get(c.party.index()) else {
                return Err(CliError::usage(format!(
                    "party {}'s public key is given, but {} batches: give the batches in party order (A, B, C, …)",
                    c.party,
                    files.len()
                )));
            };
            let public = VerifyingKey::from_text(&io::read_text(&c.key)?).in_file(&c.key)?;
            let sig = c.signature.clone().unwrap_or_else(|| with_suffix(batch, ".sig"));
            let text = match std::fs::read_to_string(&sig) {
                Ok(t) => Some(t),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => return Err(io::CliError::io(format!("cannot read {}: {e}", sig.display()))),
            };
            let what = format!("party {}'s batch {}", c.party, batch.display());
            public.verify(&what, digest_of(batch)?, text.as_deref()).map_err(gramlink::Error::from)?;
            eprintln!("party {}'s batch is signed by the key in {}", c.party, c.key.display());
            checked.push((c.party.index(), c.party));
        }
        Ok(checked)
    }
}

/// A signed batch must be the party's whose key verified it: a batch signed
/// by C's key that names itself D was sent in the wrong place, or by the
/// wrong owner.
pub fn signed_party(file: &Path, signed_by: Party, declared: Party) -> Result<()> {
    if signed_by == declared {
        return Ok(());
    }
    Err(gramlink::Error::from(ProtocolError::SignatureInvalid {
        what: format!("the batch {}", file.display()),
        reason: format!(
            "it verifies with party {signed_by}'s key but is party {declared}'s batch (give the batches in party order: A, B, C, …)"
        ),
    })
    .into())
}

/// The digest of the file at `path`, read in pieces.
fn digest_of(path: &Path) -> Result<BatchDigest> {
    let mut f =
        std::fs::File::open(path).map_err(|e| io::CliError::io(format!("cannot read {}: {e}", path.display())))?;
    let mut d = BatchDigest::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf).map_err(|e| io::CliError::io(format!("cannot read {}: {e}", path.display())))?;
        if n == 0 {
            return Ok(d);
        }
        d.update(&buf[..n]);
    }
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}
