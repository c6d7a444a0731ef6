//! Transparent decompression: gzip, bzip2 and zstd are recognised by their magic bytes (so a
//! misnamed file still works); anything else is read as is.

use std::io::{self, Cursor, Read};

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

/// Peeks at the first bytes and wraps the reader in the matching decoder.
pub fn wrap(mut r: Box<dyn Read + Send>) -> io::Result<(Compression, Box<dyn Read + Send>)> {
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
    let whole: Box<dyn Read + Send> = Box::new(Cursor::new(head).chain(r));
    let out: Box<dyn Read + Send> = match kind {
        Compression::None => whole,
        Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(whole)),
        Compression::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(whole)),
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::new(whole)?),
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
        let (k, mut r) = wrap(Box::new(Cursor::new(bytes))).unwrap();
        let mut s = String::new();
        r.read_to_string(&mut s).unwrap();
        assert_eq!((k, s.as_str()), (Compression::Gzip, "0 0 1 1 1\n"));
        let (k, _) = wrap(Box::new(Cursor::new(b"ab".to_vec()))).unwrap();
        assert_eq!(k, Compression::None);
    }
}
