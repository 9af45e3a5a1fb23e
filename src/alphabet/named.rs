//! The alphabets a user can name instead of listing symbols.

/// The alphabets a user can name instead of listing symbols.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NamedAlphabet {
    /// A–Z and space (the default).
    Letters,
    /// A–Z, 0–9 and space.
    LettersDigits,
}

impl NamedAlphabet {
    pub const ALL: [NamedAlphabet; 2] = [NamedAlphabet::Letters, NamedAlphabet::LettersDigits];

    pub fn name(self) -> &'static str {
        match self {
            NamedAlphabet::Letters => "letters",
            NamedAlphabet::LettersDigits => "letters+digits",
        }
    }

    pub fn symbols(self) -> &'static str {
        match self {
            NamedAlphabet::Letters => "ABCDEFGHIJKLMNOPQRSTUVWXYZ ",
            NamedAlphabet::LettersDigits => "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ",
        }
    }
}
