//! Reading an input in chunks, whatever it is read into: the
//! [`ChunkReader`] trait of the chunked readers, and the two ways of feeding
//! one, bytes held at once ([`read_whole`]) and a file ([`read_path`]).

use crate::error::InputError;

/// A reader fed its input in chunks, in order, then ended: the text
/// records' [`crate::dataset::ChunkedReader`] and [`crate::dataset::DetectingReader`], the record table's
/// [`crate::record::TableReader`]. An error ends the reading: the caller drops
/// the reader. Bytes held at once are one chunk ([`read_whole`]); a file is
/// read a megabyte at a time ([`read_path`]), so both give the same result and
/// the same errors.
pub trait ChunkReader {
    type Output;
    type Error: From<InputError>;
    /// Takes the next chunk of the input.
    fn push(&mut self, chunk: &[u8]) -> Result<(), Self::Error>;
    /// The end of the input: parses what is left.
    fn finish(self) -> Result<Self::Output, Self::Error>;
}

/// `bytes` read whole by `reader`: one chunk.
pub fn read_whole<R: ChunkReader>(mut reader: R, bytes: &[u8]) -> Result<R::Output, R::Error> {
    reader.push(bytes)?;
    reader.finish()
}

/// The file at `path` read natively by `reader`, a megabyte at a time (never
/// the whole file as one string); `progress` gets the bytes read and the
/// file's size.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_path<R: ChunkReader>(
    mut reader: R,
    path: &std::path::Path,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<R::Output, R::Error> {
    use std::io::Read;
    let io = |e: std::io::Error| InputError::Io { path: path.display().to_string(), reason: e.to_string() };
    let mut file = std::fs::File::open(path).map_err(io)?;
    let size = file.metadata().map_err(io)?.len();
    let mut chunk = vec![0u8; 1 << 20];
    let mut read = 0u64;
    loop {
        let n = match file.read(&mut chunk) {
            Ok(0) => return reader.finish(),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io(e).into()),
        };
        reader.push(&chunk[..n])?;
        read += n as u64;
        progress(read, size);
    }
}

/// The chunked readers' tests' inputs: a CSV text laid out and cut in every
/// way a reader must read the same as whole ([`crate::dataset::ChunkedReader`]'s
/// and [`crate::record::TableReader`]'s property tests).
#[cfg(all(test, not(target_arch = "wasm32")))]
pub(crate) mod cut {
    use super::ChunkReader;
    use proptest::prelude::*;

    /// `bytes` pushed to `reader` cut at `cuts` (ascending; each clamped to
    /// the input), then ended.
    pub fn read_cut<R: ChunkReader>(mut reader: R, bytes: &[u8], cuts: &[usize]) -> Result<R::Output, R::Error> {
        let mut at = 0;
        for &c in cuts {
            let c = c.min(bytes.len()).max(at);
            reader.push(&bytes[at..c])?;
            at = c;
        }
        reader.push(&bytes[at..])?;
        reader.finish()
    }

    /// How a CSV text is written and read: with a byte order mark or not,
    /// `\r\n` or `\n` line ends, a newline after the last row or not; where
    /// its chunks are cut (ascending), and how often the reader parses.
    #[derive(Debug, Clone)]
    pub struct Layout {
        pub bom: bool,
        pub crlf: bool,
        pub last_newline: bool,
        pub cuts: Vec<usize>,
        pub every: usize,
    }

    impl Layout {
        /// `header`, then each row on a line of its own, as laid out.
        pub fn text(&self, header: &str, rows: impl IntoIterator<Item = String>) -> String {
            let nl = if self.crlf { "\r\n" } else { "\n" };
            let mut text = String::from(if self.bom { "\u{FEFF}" } else { "" });
            text.push_str(header);
            for row in rows {
                text.push_str(nl);
                text.push_str(&row);
            }
            if self.last_newline {
                text.push_str(nl);
            }
            text
        }
    }

    /// Layouts of up to a dozen cuts below `len` bytes.
    pub fn layout(len: usize) -> impl Strategy<Value = Layout> {
        let cuts = prop::collection::vec(0..len, 0..12);
        (any::<bool>(), any::<bool>(), any::<bool>(), cuts, 1usize..64).prop_map(
            |(bom, crlf, last_newline, mut cuts, every)| {
                cuts.sort_unstable();
                Layout { bom, crlf, last_newline, cuts, every }
            },
        )
    }
}
