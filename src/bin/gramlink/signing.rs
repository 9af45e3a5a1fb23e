//! Signed batches on the command line ([`gramlink::protocol::signature`]):
//! `gramlink sign-keygen` writes a party's signing key and its public key,
//! `embed --signing-key` writes `<batch>.sig` beside the batch, and `match
//! --verify-a/--verify-b` refuses a batch without a valid signature.

use crate::io::{self, InFile, Result};
use clap::Args;
use gramlink::protocol::signature::{BatchDigest, SigningKey, VerifyingKey};
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
}

impl VerifyFlags {
    /// Checks the batches at `a` and `b` against the keys given (none given:
    /// nothing to check, as before signatures).
    pub fn check(&self, a: &Path, b: &Path) -> Result<()> {
        for (party, key, batch, sig) in
            [("A", &self.verify_a, a, &self.signature_a), ("B", &self.verify_b, b, &self.signature_b)]
        {
            let Some(key) = key else { continue };
            let public = VerifyingKey::from_text(&io::read_text(key)?).in_file(key)?;
            let sig = sig.clone().unwrap_or_else(|| with_suffix(batch, ".sig"));
            let text = match std::fs::read_to_string(&sig) {
                Ok(t) => Some(t),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => return Err(io::CliError::io(format!("cannot read {}: {e}", sig.display()))),
            };
            let what = format!("party {party}'s batch {}", batch.display());
            public.verify(&what, digest_of(batch)?, text.as_deref()).map_err(gramlink::Error::from)?;
            eprintln!("party {party}'s batch is signed by the key in {}", key.display());
        }
        Ok(())
    }
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
