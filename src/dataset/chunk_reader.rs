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
