//! The check every record message and step makes: the schema it was made
//! under is the expected one (by fingerprint).

use crate::error::{Error, ProtocolError};

/// Checks a message's schema fingerprint against the expected one.
pub fn check_schema(expected: &str, found: &str, what: &str) -> Result<(), Error> {
    if expected != found {
        return Err(ProtocolError::Fingerprint {
            what: format!("{what} (schema fingerprint)"),
            found: found.to_string(),
            expected: expected.to_string(),
        }
        .into());
    }
    Ok(())
}
