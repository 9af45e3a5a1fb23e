//! Names as people write them, made comparable before encoding: a nickname
//! becomes its formal name ("Bill" is "William"), and a placeholder written
//! where a name belongs ("Wife", "Man Of The House", "Unknown") is missing.
//!
//! Each party applies it to its own values ([`super::values::normalize`]),
//! from the same public tables, so the two parties' values agree on it and
//! the matcher sees neither the text nor the tables' effect: a formal name is
//! sent as the value was, one more record holding it. The tables
//! (data/PROVENANCE.md):
//! - data/names/nicknames.csv: formal given names and their nicknames (the
//!   `nicknames` package's table, Apache-2.0). A token that is a formal name
//!   stays as it is; a nickname of exactly one formal name becomes it; a
//!   nickname of several ("Al": Albert, Alfred, Alan, …) stays as written,
//!   since either choice would join people the table cannot tell apart.
//! - data/names/fillers.txt: placeholder entries, a whole value each.
//!
//! Placeholders are dropped by default (`fillers = false` keeps them).
//! Nicknames are rewritten only where a field says `nicknames = true`: the
//! rewrite makes more records share a value, and on a keyed FEBRL 3 batch the
//! matcher's exact-algebra bootstrap (`gramlink lab attack --schema`) then
//! names 17.15 % of given names and 17.04 % of surnames instead of 9.85 % and
//! 9.48 %, for 0.0002–0.0010 F1 on pseudopeople's census files.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

const NICKNAMES: &str = include_str!("../../data/names/nicknames.csv");
const FILLERS: &str = include_str!("../../data/names/fillers.txt");

struct Tables {
    /// Nickname → its one formal name (upper case, as normalized values are).
    formal_of: HashMap<String, String>,
    fillers: HashSet<String>,
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut formal = HashSet::new();
        let mut of: HashMap<String, Vec<String>> = HashMap::new();
        for line in NICKNAMES.lines() {
            let Some((name, nicks)) = line.split_once(',') else { continue };
            let name = name.trim().to_uppercase();
            for nick in nicks.split_whitespace() {
                of.entry(nick.to_uppercase()).or_default().push(name.clone());
            }
            formal.insert(name);
        }
        let formal_of = of
            .into_iter()
            .filter(|(nick, names)| !formal.contains(nick) && names.iter().all(|n| *n == names[0]))
            .map(|(nick, names)| (nick, names[0].clone()))
            .collect();
        let fillers = FILLERS
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_uppercase)
            .collect();
        Tables { formal_of, fillers }
    })
}

/// The formal name of one normalized token (upper case), or the token.
pub fn formal(token: &str) -> &str {
    tables().formal_of.get(token).map_or(token, String::as_str)
}

/// Whether a normalized value (upper-case words, in the order written) is a
/// placeholder, not a name.
pub fn is_filler(value: &str) -> bool {
    tables().fillers.contains(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nicknames_become_their_one_formal_name() {
        // a formal name that is also another's nickname stays itself: "bill" is
        // both (a line of its own, and William's, Robert's, Will's, Willis's)
        assert!(NICKNAMES.lines().any(|l| l.starts_with("bill,")));
        let cases = [
            ("GREG", "GREGORY"),
            ("DAVE", "DAVID"),
            ("GREGORY", "GREGORY"),
            // a nickname of several formal names stays as written
            ("AL", "AL"),
            ("BILL", "BILL"),
            ("ZZYZX", "ZZYZX"),
        ];
        for (name, want) in cases {
            assert_eq!(formal(name), want, "{name}");
        }
    }

    #[test]
    fn placeholders_are_whole_values() {
        assert!(is_filler("WIFE"));
        assert!(is_filler("MAN OF THE HOUSE"));
        assert!(is_filler("UNKNOWN"));
        // words that are also common surnames, and initials, are names
        for name in ["HOUSE", "SON", "CHILD", "FRIEND", "J"] {
            assert!(!is_filler(name), "{name}");
        }
        assert!(!is_filler("WIFE SMITH"));
    }
}
