//! The flags that make a configuration. `--preset` picks one
//! ([`Preset::config`]); every other flag overrides one of its fields. No
//! default is written here: each comes from the core's presets, and each help
//! text shows it.

use crate::io::{CliError, Result};
use clap::Args;
use gramlink::base::{MinerKind, Strategy};
use gramlink::config::{Config, Ed, Preset};
use gramlink::dataset::FormatHint;
use gramlink::matching::Rule;
use gramlink::threshold::ThresholdMode;
use std::path::PathBuf;

/// A party's own date format of one date field, `FIELD=FORMAT`
/// (`--date-format date_of_birth=MM/DD/YYYY`); the core checks both names.
pub fn date_format_arg(s: &str) -> std::result::Result<(String, String), String> {
    let (field, format) =
        s.split_once('=').ok_or_else(|| format!("{s:?} is not FIELD=FORMAT (e.g. date_of_birth=MM/DD/YYYY)"))?;
    Ok((field.trim().to_string(), format.trim().to_string()))
}

/// "what [default: X]", or "what [default: the preset's: recommended X, paper Y]".
fn preset_default<T: std::fmt::Display>(what: &str, value: impl Fn(&Config) -> T) -> String {
    let (r, p) = (value(&Config::recommended()).to_string(), value(&Config::paper()).to_string());
    if r == p {
        format!("{what} [default: {r}]")
    } else {
        format!("{what} [default: the preset's: recommended {r}, paper {p}]")
    }
}

fn or_none<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or("none".into(), |x| x.to_string())
}

/// The flags of `T`'s clap group: the derive makes each `Args` struct a group
/// of its own flags (none if it flattens another struct).
pub fn group_flags<T: Args>() -> Vec<clap::Id> {
    let cmd = T::augment_args(clap::Command::new("group"));
    let id = T::group_id();
    let flags: Vec<_> =
        cmd.get_groups().filter(|g| Some(g.get_id()) == id.as_ref()).flat_map(|g| g.get_args().cloned()).collect();
    debug_assert!(!flags.is_empty(), "{id:?} is no group of flags");
    flags
}

/// The flags of these structs' groups, for `--schema` to refuse (a linkage
/// schema says per field what they say for one string): the flags of one string
/// sit in such structs, and `flags_of!(ReadFlags, PresetArg)` names them
/// without a list. They are refused flag by flag, so that clap's error names
/// the flag given, where refusing a whole group would list every flag of it.
macro_rules! flags_of {
    ($($flags:ty),+) => { [$($crate::options::group_flags::<$flags>()),+].concat() };
}
pub(crate) use flags_of;

/// `--preset`.
#[derive(Args, Clone, Default)]
pub struct PresetArg {
    /// A whole configuration: recommended (public 2-grams and boundary grams,
    /// mined 3-grams of `^record$`, sound thresholds, rule ranked) or the paper's.
    /// The flags below override its parts. [default: recommended]
    #[arg(long, value_enum)]
    pub preset: Option<Preset>,
}

impl PresetArg {
    pub fn config(&self) -> Config {
        self.preset.unwrap_or_default().config()
    }
}

/// The mining flags, and the shape of the shared base.
#[derive(Args, Clone, Default)]
pub struct MineFlags {
    #[arg(long, value_enum, help = preset_default("The miner", |c| c.mine.miner.name()))]
    miner: Option<MinerKind>,
    #[arg(long, value_enum, help = preset_default("Budget strategy of the prefix-tree miner", |c| c.mine.strategy.name()))]
    strategy: Option<Strategy>,
    #[arg(long, allow_negative_numbers = true, help = preset_default("Privacy budget ε of this mining", |c| c.mine.epsilon))]
    epsilon: Option<f64>,
    #[arg(long, help = preset_default("Mined grams in the base", |c| c.mine.k))]
    k: Option<usize>,
    #[arg(long, help = preset_default("Shortest mined gram", |c| c.mine.q_min))]
    qmin: Option<usize>,
    #[arg(long, help = preset_default("Longest mined gram", |c| c.mine.q_max))]
    qmax: Option<usize>,
    #[arg(long, help = preset_default("Depth of the prefix tree, a public parameter", |c| c.mine.h_max))]
    hmax: Option<usize>,
    #[arg(long, help = preset_default("FPM: distinct grams of each length one record may contribute (the sensitivity)", |c| c.mine.max_grams_per_record))]
    max_grams_per_record: Option<usize>,
    #[arg(long, help = preset_default("Every gram of this length over the alphabet joins the shared base (public: no budget); 0: none", |c| or_none(c.mine.public_q)))]
    public_q: Option<usize>,
    #[arg(long, help = preset_default("Pad records as ^record$ for mining and embedding (both parties alike)", |c| c.mine.padding))]
    padding: Option<bool>,
}

impl MineFlags {
    pub fn apply(&self, config: &mut Config) {
        let m = &mut config.mine;
        macro_rules! set {
            ($($flag:ident => $field:ident),*) => {$( if let Some(v) = self.$flag { m.$field = v; } )*};
        }
        set!(miner => miner, strategy => strategy, epsilon => epsilon, k => k, qmin => q_min, qmax => q_max, hmax => h_max,
             max_grams_per_record => max_grams_per_record, padding => padding);
        if let Some(q) = self.public_q {
            m.public_q = (q > 0).then_some(q);
        }
    }
}

fn threshold_mode(name: &str) -> std::result::Result<ThresholdMode, String> {
    ThresholdMode::from_name(name).ok_or_else(|| format!("unknown threshold mode {name:?} (paper, sound, global)"))
}

fn ed_arg(s: &str) -> std::result::Result<Ed, String> {
    Ed::parse(s).ok_or_else(|| format!("{s:?} is neither auto nor a number of edits"))
}

/// Party A's thresholds.
#[derive(Args, Clone, Default)]
pub struct ThresholdFlags {
    #[arg(long, value_parser = ed_arg, help = preset_default(
        "Edit distance the thresholds (and the q-gram filter) cover: a number, or auto (thresholds for 2 edits; the matcher keeps the pairs a cut-off fitted on the candidates without labels calls matches, and says what it chose)",
        |c| c.thresholds.ed))]
    ed: Option<Ed>,
    #[arg(long, value_parser = threshold_mode, help = preset_default(
        "How party A's thresholds are computed: paper (Algorithm 2, not an upper bound), sound (a proven bound) or global (one value)",
        |c| c.thresholds.mode.name()))]
    threshold: Option<ThresholdMode>,
    /// The value of `--threshold global` [default: the paper's Δq·ed].
    #[arg(long)]
    global_threshold: Option<f64>,
}

impl ThresholdFlags {
    pub fn apply(&self, config: &mut Config) -> Result<()> {
        let t = &mut config.thresholds;
        if let Some(ed) = self.ed {
            t.ed = ed;
        }
        if let Some(m) = &self.threshold {
            t.mode = m.clone();
        }
        if let Some(v) = self.global_threshold {
            if !matches!(t.mode, ThresholdMode::Global(_)) {
                return Err(CliError::usage("--global-threshold goes with --threshold global"));
            }
            t.mode = ThresholdMode::Global(Some(v));
        }
        Ok(())
    }
}

/// `--rule`.
#[derive(Args, Clone, Default)]
pub struct RuleFlag {
    #[arg(long, value_enum, help = preset_default(
        "Which pairs the matcher keeps: ranked (q-gram filter, greedy one-to-one by cosine), all (every B within A's threshold), greedy or nearest one-to-one",
        |c| c.rule.name()))]
    rule: Option<Rule>,
}

impl RuleFlag {
    /// Whether `--rule` was given (clusters refuse it: they read the ranked candidates).
    pub fn given(&self) -> bool {
        self.rule.is_some()
    }

    pub fn apply(&self, config: &mut Config) {
        if let Some(r) = self.rule {
            config.rule = r;
        }
    }
}

/// `--preset` and the mining flags over it: what a step that mines or merges
/// bases reads (mine, merge, lab attack), and the start of [`ConfigFlags`].
#[derive(Args, Clone, Default)]
pub struct MiningFlags {
    #[command(flatten)]
    pub preset: PresetArg,
    #[command(flatten)]
    pub mine: MineFlags,
}

impl MiningFlags {
    pub fn config(&self) -> Config {
        let mut config = self.preset.config();
        self.mine.apply(&mut config);
        config
    }
}

/// A whole configuration from flags: `--preset` and every flag over it.
#[derive(Args, Clone, Default)]
pub struct ConfigFlags {
    #[command(flatten)]
    pub mining: MiningFlags,
    #[command(flatten)]
    pub threshold: ThresholdFlags,
    #[command(flatten)]
    pub rule: RuleFlag,
    /// With --keyed: the keyed encoding, "sketch", "sketch:N" or "rotation"
    /// (docs/THREAT_MODEL.md's frontier). [default: "sketch"; with --schema "sketch:8"]
    #[arg(long)]
    pub encoding: Option<gramlink::keyed::Encoding>,
}

impl ConfigFlags {
    pub fn config(&self) -> Result<Config> {
        let mut config = self.mining.config();
        self.threshold.apply(&mut config)?;
        self.rule.apply(&mut config);
        if let Some(e) = self.encoding {
            config.encoding = e;
        }
        Ok(config)
    }
}

/// How a party's records are read (one string each).
#[derive(Args, Clone, Default)]
pub struct ReadFlags {
    /// text (one record a line) or csv; auto: CSV for a .csv/.tsv file, a
    /// header-like first line, or a named column. [default: auto]
    #[arg(long, value_enum)]
    pub format: Option<FormatHint>,
    /// The CSV column holding the records.
    #[arg(long)]
    pub column: Option<String>,
    /// The CSV column holding the record ids [default: the row number].
    #[arg(long)]
    pub id_column: Option<String>,
    /// The public alphabet: letters (A–Z and space), letters+digits, or the
    /// symbols themselves (e.g. "ABCDEFGHIJKLMNOPQRSTUVWXYZ-' "). Both parties
    /// must use the same. [default: letters]
    #[arg(long)]
    pub alphabet: Option<String>,
}

impl ReadFlags {
    pub fn alphabet(&self) -> Result<gramlink::alphabet::Alphabet> {
        Ok(gramlink::alphabet::Alphabet::parse(self.alphabet.as_deref().unwrap_or("letters"))?)
    }

    pub fn load(
        &self,
        path: &std::path::Path,
        alphabet: &gramlink::alphabet::Alphabet,
    ) -> Result<gramlink::dataset::Dataset> {
        crate::io::load_dataset(
            path,
            self.format.unwrap_or_default(),
            self.column.as_deref(),
            self.id_column.as_deref(),
            alphabet,
        )
    }
}

/// One party's records.
#[derive(Args, Clone)]
pub struct RecordArgs {
    /// The party's records: a text file (one record a line) or CSV.
    #[arg(long, short)]
    pub input: PathBuf,
    #[command(flatten)]
    pub read: ReadFlags,
}
