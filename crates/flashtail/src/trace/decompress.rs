//! Transparent decompression: gzip, bzip2 and zstd are recognised by their magic bytes (so a
//! misnamed file still works); anything else is read as is.
//!
//! The decoded output is bounded by a ratio to the compressed input read so far (once
//! [`RATIO_GRACE_BYTES`] are decoded): gigabytes of zeros compress to a few kilobytes, and
//! decoding them (bzip2 at some 30 MB/s) would keep a run busy for minutes before any line
//! is found. What it does not do: limit uncompressed input (its size is the file's).

use std::io::{self, Cursor, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Default most bytes decoded per compressed byte (`TraceOptions::max_decompress_ratio`).
pub const DEFAULT_MAX_RATIO: u64 = 1000;
/// Output decoded before the ratio is checked (small files may have any ratio).
pub const RATIO_GRACE_BYTES: u64 = 64 << 20;

/// The error a decoder returns past the ratio limit (recognised by `reader::read_error`).
#[derive(Debug)]
pub struct RatioExceeded(pub String);

impl std::fmt::Display for RatioExceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RatioExceeded {}

/// Counts the compressed bytes a decoder reads.
struct Counting<R> {
    inner: R,
    read: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Fails a decoder's output once it exceeds `ratio` times the compressed input.
struct Bounded<R> {
    inner: R,
    input: Arc<AtomicU64>,
    output: u64,
    ratio: u64,
    kind: Compression,
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.output += n as u64;
        let input = self.input.load(Ordering::Relaxed).max(1);
        if self.output > RATIO_GRACE_BYTES && self.output / input > self.ratio {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                RatioExceeded(format!(
                    "{} data decodes to more than {} times its size ({} MiB from {} KiB), past the limit of {}: \
                     a decompression bomb or a file of zeros? (--max-decompress-ratio raises the limit, 0 lifts it)",
                    self.kind.name(),
                    self.output / input,
                    self.output >> 20,
                    input.div_ceil(1024),
                    self.ratio
                )),
            ));
        }
        Ok(n)
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Bzip2,
    Zstd,
}

impl Compression {
    pub fn from_magic(m: &[u8]) -> Compression {
        if m.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if m.starts_with(b"BZh") {
            Compression::Bzip2
        } else if m.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else {
            Compression::None
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Bzip2 => "bzip2",
            Compression::Zstd => "zstd",
        }
    }
}

/// Peeks at the first bytes and wraps the reader in the matching decoder, whose output may
/// be at most `max_ratio` times the compressed input (`None`: unbounded).
pub fn wrap(mut r: Box<dyn Read + Send>, max_ratio: Option<u64>) -> io::Result<(Compression, Box<dyn Read + Send>)> {
    let mut magic = [0u8; 4];
    let mut got = 0;
    while got < magic.len() {
        match r.read(&mut magic[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let head = magic[..got].to_vec();
    let kind = Compression::from_magic(&head);
    let input = Arc::new(AtomicU64::new(0));
    let whole: Box<dyn Read + Send> = Box::new(Counting { inner: Cursor::new(head).chain(r), read: input.clone() });
    let out: Box<dyn Read + Send> = match kind {
        Compression::None => whole,
        Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(whole)),
        Compression::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(whole)),
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::new(whole)?),
    };
    let out = match max_ratio {
        Some(ratio) if kind != Compression::None => Box::new(Bounded { inner: out, input, output: 0, ratio, kind }) as Box<dyn Read + Send>,
        _ => out,
    };
    Ok((kind, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn gzip_is_detected_by_magic() {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(b"0 0 1 1 1\n").unwrap();
        let bytes = e.finish().unwrap();
        let (k, mut r) = wrap(Box::new(Cursor::new(bytes)), Some(DEFAULT_MAX_RATIO)).unwrap();
        let mut s = String::new();
        r.read_to_string(&mut s).unwrap();
        assert_eq!((k, s.as_str()), (Compression::Gzip, "0 0 1 1 1\n"));
        let (k, _) = wrap(Box::new(Cursor::new(b"ab".to_vec())), Some(DEFAULT_MAX_RATIO)).unwrap();
        assert_eq!(k, Compression::None);
    }

    /// Concatenated bzip2 streams of zeros decoded for minutes (gigabytes from kilobytes):
    /// past the ratio they fail at once, naming the option; without a limit they decode.
    #[test]
    fn zeros_stop_at_the_ratio_limit() {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
        e.write_all(&vec![0u8; 20 << 20]).unwrap();
        let one = e.finish().unwrap();
        let mut bomb = Vec::new();
        for _ in 0..4 {
            bomb.extend_from_slice(&one);
        }
        let (_, mut r) = wrap(Box::new(Cursor::new(bomb.clone())), Some(DEFAULT_MAX_RATIO)).unwrap();
        let err = io::copy(&mut r, &mut io::sink()).unwrap_err();
        assert!(err.get_ref().is_some_and(|i| i.is::<RatioExceeded>()), "{err}");
        assert!(err.to_string().contains("--max-decompress-ratio"), "{err}");
        let (_, mut r) = wrap(Box::new(Cursor::new(bomb)), None).unwrap();
        assert_eq!(io::copy(&mut r, &mut io::sink()).unwrap(), 4 * (20 << 20));
    }
}
