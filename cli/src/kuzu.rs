//! `gramlink kuzu`: the private linkage of Kuzu et al. (EDBT 2013), one command
//! per step of each role — C: `blocks`, `keygen`, `decide`; A: `encrypt`;
//! B: `compare`, then `resolve`. Every role on local files (`lab kuzu-eval`,
//! `lab kuzu-bench`) is the lab's (lab/kuzu_eval.rs). Every step is the core's
//! ([`gramlink::kuzu`]).

use crate::io::{self, CliError, InFile, Result};
use clap::{Args, Subcommand};
use gramlink::kuzu::blocks::{public_values, BlockModel, PublicSource};
use gramlink::kuzu::compare::rule::{Rule, RuleSpec};
use gramlink::kuzu::paillier::{self, PrivateKey};
use gramlink::kuzu::release::ReleaseParams;
use gramlink::kuzu::roles;
use gramlink::kuzu::table::Table;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct KuzuArgs {
    #[command(subcommand)]
    command: KuzuCommand,
}

#[derive(Subcommand)]
enum KuzuCommand {
    /// C: cluster a public list of identifiers into a block model (JSON, with its fingerprint).
    Blocks(BlocksArgs),
    /// C: generate a Paillier key pair (the private key stays with C).
    Keygen(KeygenArgs),
    /// A: block, release with ε-DP noisy block sizes, and encrypt (binary GLKA).
    Encrypt(EncryptArgs),
    /// B: compare its records with A's encrypted blocks and blind (binary GLKC) for C.
    Compare(CompareArgs),
    /// C: decrypt the blinded pairs and decide; writes the matching pair ids.
    Decide(DecideArgs),
    /// B, then A: turn C's matching pair ids into (A handle, B id), then A's handles into A's ids.
    Resolve(ResolveArgs),
}

pub fn cmd_kuzu(a: KuzuArgs) -> Result<()> {
    match a.command {
        KuzuCommand::Blocks(a) => cmd_blocks(a),
        KuzuCommand::Keygen(a) => cmd_keygen(a),
        KuzuCommand::Encrypt(a) => cmd_encrypt(a),
        KuzuCommand::Compare(a) => cmd_compare(a),
        KuzuCommand::Decide(a) => cmd_decide(a),
        KuzuCommand::Resolve(a) => cmd_resolve(a),
    }
}

/// The DP block release's parameters (A's step; the experiments take them too).
#[derive(Args)]
pub struct ReleaseFlags {
    /// ε of the noisy block sizes (Laplace, sensitivity 2).
    #[arg(long, default_value_t = 0.3)]
    pub epsilon: f64,
    /// Suppression cost w_n (comparisons one avoided suppression is worth).
    #[arg(long, default_value_t = 5000.0)]
    pub wn: f64,
}

/// A public list and how to cluster it, when it is optional (the experiments:
/// else a block model is read with --model).
#[derive(Args)]
pub struct OptionalPublic {
    /// The public list, one value a line, most frequent first (data/names.txt, data/cities.txt).
    #[arg(long)]
    pub public: Option<PathBuf>,
    /// How many of its first distinct values to cluster.
    #[arg(long, default_value_t = 2500)]
    pub take: usize,
    /// The number of blocks n_B.
    #[arg(long, default_value_t = 500)]
    pub blocks: usize,
}

impl OptionalPublic {
    /// The block model of the list, if one is given.
    pub fn model(&self, identifier: &str) -> Result<Option<BlockModel>> {
        match &self.public {
            Some(p) => {
                Ok(Some(PublicArgs { public: p.clone(), take: self.take, blocks: self.blocks }.model(identifier)?))
            }
            None => Ok(None),
        }
    }
}

/// A public list and how to cluster it.
#[derive(Args)]
pub struct PublicArgs {
    /// The public list, one value a line, most frequent first (data/names.txt, data/cities.txt).
    #[arg(long)]
    pub public: PathBuf,
    /// How many of its first distinct values to cluster.
    #[arg(long, default_value_t = 2500)]
    pub take: usize,
    /// The number of blocks n_B.
    #[arg(long, default_value_t = 500)]
    pub blocks: usize,
}

impl PublicArgs {
    pub fn model(&self, identifier: &str) -> Result<BlockModel> {
        let text = io::read_text(&self.public)?;
        let values = public_values(&text, self.take);
        let source = PublicSource {
            name: self.public.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
            sha256: hex::encode(Sha256::digest(text.as_bytes())),
            used: values.len(),
        };
        Ok(BlockModel::build(identifier, source, &values, self.blocks)?)
    }
}

#[derive(Args)]
struct BlocksArgs {
    #[command(flatten)]
    public: PublicArgs,
    /// The records' column these values stand for (the rule's `block`).
    #[arg(long, default_value = "surname")]
    identifier: String,
    /// Where to write the block model (JSON, public: A and B read it).
    #[arg(long, short)]
    out: PathBuf,
}

#[derive(Args)]
struct KeygenArgs {
    /// Modulus size in bits (2048 is the secure default; 512 only for tests).
    #[arg(long, default_value_t = paillier::DEFAULT_BITS)]
    bits: u32,
    /// Where to write the private key (C keeps it).
    #[arg(long)]
    out: PathBuf,
    /// Where to write the public key (for A and B).
    #[arg(long)]
    public: PathBuf,
    /// Seed: a reproducible key, NOT secret (tests only).
    #[arg(long)]
    seed: Option<u64>,
}

/// The files every party reads.
#[derive(Args)]
pub struct RuleArgs {
    /// The decision rule (TOML or JSON): id and blocking columns, θ, attributes (docs/KUZU.md).
    #[arg(long)]
    pub rule: PathBuf,
}

impl RuleArgs {
    pub fn load(&self) -> Result<Rule> {
        let text = io::read_text(&self.rule)?;
        let spec: RuleSpec = if self.rule.extension().is_some_and(|e| e == "toml") {
            toml::from_str(&text).map_err(|e| {
                CliError::from(gramlink::Error::Input(gramlink::error::InputError::Format(format!(
                    "rule: {}",
                    e.message()
                ))))
            })?
        } else {
            serde_json::from_str(&text).map_err(|e| {
                CliError::from(gramlink::Error::Input(gramlink::error::InputError::Format(format!("rule: {e}"))))
            })?
        };
        spec.validate().in_file(&self.rule)
    }
}

/// What A and B each read before their step: their records, the rule, and C's
/// model and public key (B's must be the ones A encrypted under).
#[derive(Args)]
struct PartyFiles {
    /// This party's records (CSV with a header): A's to encrypt, B's to compare.
    input: PathBuf,
    #[command(flatten)]
    rule: RuleArgs,
    /// C's block model (from `kuzu blocks`), the one A encrypts under and B compares under.
    #[arg(long)]
    model: PathBuf,
    /// C's public key.
    #[arg(long)]
    key: PathBuf,
}

impl PartyFiles {
    /// The rule, the model and the key (each error names its file).
    fn load(&self) -> Result<(Rule, BlockModel, paillier::PublicKey)> {
        let rule = self.rule.load()?;
        let model = read_model(&self.model)?;
        let key = paillier::read_public_key(&io::read_text(&self.key)?).in_file(&self.key)?;
        Ok((rule, model, key))
    }
}

#[derive(Args)]
struct EncryptArgs {
    #[command(flatten)]
    files: PartyFiles,
    #[command(flatten)]
    release: ReleaseFlags,
    /// B's number of records (public; sets the shift of the noise).
    #[arg(long)]
    b_records: u64,
    /// The encrypted blocks for B (binary).
    #[arg(long, short)]
    out: PathBuf,
    /// A's own report (fakes, suppressed records, handles): never send it.
    #[arg(long)]
    report: PathBuf,
    /// Seed of the noise and the encryption: reproducible, NOT private (tests only)
    /// [default: secure randomness].
    #[arg(long)]
    seed: Option<u64>,
    #[command(flatten)]
    ledger: crate::ledger::LedgerFlags,
}

#[derive(Args)]
struct CompareArgs {
    #[command(flatten)]
    files: PartyFiles,
    /// A's encrypted blocks.
    #[arg(long)]
    blocks: PathBuf,
    /// Skip re-randomizing the ciphertexts sent to C (faster; see docs/THREAT_MODEL.md).
    #[arg(long)]
    no_rerandomize: bool,
    /// The blinded pairs for C (binary).
    #[arg(long, short)]
    out: PathBuf,
    /// B's own map from pair ids to (A handle, B id): never send it.
    #[arg(long)]
    map: PathBuf,
    /// Seed of the blinding and the re-randomization: reproducible, NOT private (tests
    /// only) [default: secure randomness].
    #[arg(long)]
    seed: Option<u64>,
}

#[derive(Args)]
struct DecideArgs {
    /// B's blinded pairs.
    pairs: PathBuf,
    #[command(flatten)]
    rule: RuleArgs,
    /// C's private key.
    #[arg(long)]
    key: PathBuf,
    /// The matching pair ids (JSON).
    #[arg(long, short)]
    out: PathBuf,
}

#[derive(Args)]
struct ResolveArgs {
    /// B: C's matching pair ids (with --map).
    #[arg(long, requires = "map")]
    matches: Option<PathBuf>,
    /// B: its pair map from `kuzu compare`.
    #[arg(long)]
    map: Option<PathBuf>,
    /// A: the (handle, B id) pairs B sent (with --report).
    #[arg(long, requires = "report", conflicts_with = "matches")]
    links: Option<PathBuf>,
    /// A: its release report from `kuzu encrypt`.
    #[arg(long)]
    report: Option<PathBuf>,
    /// CSV: a_handle,b_id (B) or a_id,b_id (A).
    #[arg(long, short)]
    out: PathBuf,
}

fn cmd_resolve(a: ResolveArgs) -> Result<()> {
    use gramlink::kuzu::resolve::{final_links, links_for_a};
    let links = if let (Some(m), Some(map)) = (&a.matches, &a.map) {
        // the core's errors name the message kind or B's links, whichever is at fault
        links_for_a(&io::read_text(m)?, &io::read_text(map)?)?
    } else if let (Some(links), Some(report)) = (&a.links, &a.report) {
        final_links(&io::read_text(links)?, &io::read_text(report)?)?
    } else {
        return Err(CliError::usage("give --matches and --map (B), or --links and --report (A)"));
    };
    io::write_atomic(&a.out, &links.csv)?;
    eprintln!("{} links -> {}", links.count, a.out.display());
    Ok(())
}

fn cmd_blocks(a: BlocksArgs) -> Result<()> {
    let model = a.public.model(&a.identifier)?;
    io::write_atomic(&a.out, model.to_json().as_bytes())?;
    eprintln!(
        "{} public values of {} in {} blocks (+1 for empty values), fingerprint {} -> {}",
        model.source.used,
        model.source.name,
        model.blocks.len(),
        model.fingerprint,
        a.out.display()
    );
    Ok(())
}

fn cmd_keygen(a: KeygenArgs) -> Result<()> {
    let mut rng = crate::seed::randomness(a.seed, "this key is")?;
    let key = PrivateKey::generate(a.bits, &mut rng)?;
    io::write_atomic(&a.out, paillier::write_private_key(&key).as_bytes())?;
    io::write_atomic(&a.public, paillier::write_public_key(key.public()).as_bytes())?;
    eprintln!(
        "{}-bit Paillier key {} -> {} (public: {})",
        a.bits,
        key.public().fingerprint(),
        a.out.display(),
        a.public.display()
    );
    Ok(())
}

fn read_model(p: &Path) -> Result<BlockModel> {
    BlockModel::from_json(&io::read_text(p)?).in_file(p)
}

fn read_table(p: &Path, rule: &Rule) -> Result<Table> {
    Ok(Table::read_csv(&io::read_bytes(p)?, &p.display().to_string(), rule)?)
}

fn cmd_encrypt(a: EncryptArgs) -> Result<()> {
    let (rule, model, key) = a.files.load()?;
    let params = ReleaseParams::new(a.release.epsilon, a.release.wn, a.b_records)?;
    let ledger = a.ledger.open(&a.files.input, params.epsilon, a.seed.is_some(), "kuzu encrypt")?;
    let table = read_table(&a.files.input, &rule)?;
    let mut rng = crate::seed::randomness(a.seed, "the block sizes are")?;
    let bar = &mut crate::progress_bar::Bar::new();
    let (out, secrets) = roles::encrypt(&table, &rule, &model, &key, &params, &mut rng, bar)?;
    bar.finish();
    if let Some(l) = ledger {
        let what = format!("noisy block sizes of {} blocks -> {}", model.n_blocks(), a.out.display());
        l.charge(params.epsilon, what)?;
    }
    io::write_atomic(&a.out, &out)?;
    io::write_atomic(&a.report, roles::report_json(&secrets, &table.ids).as_bytes())?;
    eprintln!(
        "{} records in {} blocks: {} released ({} fakes, {} suppressed), ε = {}, {} bytes -> {}",
        table.len(),
        model.n_blocks(),
        secrets.handles.len(),
        secrets.report.fakes,
        secrets.report.suppressed.len(),
        a.release.epsilon,
        out.len(),
        a.out.display()
    );
    Ok(())
}

fn cmd_compare(a: CompareArgs) -> Result<()> {
    let (rule, model, key) = a.files.load()?;
    let table = read_table(&a.files.input, &rule)?;
    let bytes = io::read_bytes(&a.blocks)?;
    let mut rng = crate::seed::randomness(a.seed, "the blinding is")?;
    let bar = &mut crate::progress_bar::Bar::new();
    let (out, map) =
        roles::compare(&table, &rule, &model, &key, &bytes, !a.no_rerandomize, &mut rng, bar).in_file(&a.blocks)?;
    bar.finish();
    io::write_atomic(&a.out, &out)?;
    let count = map.len();
    io::write_atomic(&a.map, roles::map_json(&map, &table.ids).as_bytes())?;
    eprintln!("{count} pairs compared and blinded, {} bytes -> {}", out.len(), a.out.display());
    Ok(())
}

fn cmd_decide(a: DecideArgs) -> Result<()> {
    let rule = a.rule.load()?;
    let key = paillier::read_private_key(&io::read_text(&a.key)?).in_file(&a.key)?;
    let bar = &mut crate::progress_bar::Bar::new();
    let (ids, total) = roles::decide(&io::read_bytes(&a.pairs)?, &rule, &key, bar).in_file(&a.pairs)?;
    bar.finish();
    io::write_atomic(&a.out, roles::matches_json(key.public(), &ids).as_bytes())?;
    eprintln!("{} of {total} pairs match -> {}", ids.len(), a.out.display());
    Ok(())
}
