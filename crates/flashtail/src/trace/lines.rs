//! A bounded line reader: yields one line at a time from a byte stream, reusing one buffer,
//! with 1-based line numbers. Lines longer than `MAX_LINE` are cut (the rest is discarded and
//! the line flagged) so a file without newlines cannot make memory grow. Lines read ahead
//! for format detection are replayed first. A line ends at `\n`, `\r\n` or a lone `\r`
//! (classic Mac OS line endings: a file of them read as one line).

use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Read};

/// Longest line kept; real trace lines are < 200 bytes.
pub const MAX_LINE: usize = 64 * 1024;

pub struct LineReader {
    inner: BufReader<Box<dyn Read + Send>>,
    pending: VecDeque<(Vec<u8>, bool)>,
    pub buf: Vec<u8>,
    /// True when the current line was longer than `MAX_LINE`.
    pub overlong: bool,
    /// 1-based number of the current line.
    pub line_no: u64,
    /// The last line ended with `\r`: a `\n` right after it belongs to that ending.
    skip_lf: bool,
}

impl LineReader {
    pub fn new(r: Box<dyn Read + Send>) -> LineReader {
        LineReader {
            inner: BufReader::with_capacity(256 * 1024, r),
            pending: VecDeque::new(),
            buf: Vec::with_capacity(256),
            overlong: false,
            line_no: 0,
            skip_lf: false,
        }
    }

    /// Reads up to `n` lines ahead (for detection) without consuming them.
    pub fn peek_lines(&mut self, n: usize) -> io::Result<Vec<Vec<u8>>> {
        let mut out = Vec::new();
        while self.pending.len() < n {
            let mut b = Vec::new();
            let (got, over) = read_bounded(&mut self.inner, &mut b, &mut self.skip_lf)?;
            if !got {
                break;
            }
            self.pending.push_back((b, over));
        }
        for (l, _) in &self.pending {
            out.push(l.clone());
        }
        Ok(out)
    }

    /// Lines read from the stream so far, the ones peeked ahead included (for "the stream
    /// broke after line N" messages).
    pub fn lines_read(&self) -> u64 {
        self.line_no + self.pending.len() as u64
    }

    /// Reads on, discarding, up to `max` bytes or the end of the stream, for the error it may
    /// hold: a decoder checks a compressed stream's checksum only at its end.
    pub fn drain(&mut self, max: u64) -> io::Result<()> {
        let mut left = max;
        while left > 0 {
            let n = match self.inner.fill_buf() {
                Ok([]) => return Ok(()),
                Ok(chunk) => chunk.len().min(usize::try_from(left).unwrap_or(usize::MAX)),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            self.inner.consume(n);
            left -= n as u64;
        }
        Ok(())
    }

    /// Advances to the next line; `Ok(false)` at the end of the stream.
    pub fn next_line(&mut self) -> io::Result<bool> {
        if let Some((l, over)) = self.pending.pop_front() {
            self.buf = l;
            self.overlong = over;
            self.line_no += 1;
            return Ok(true);
        }
        let (got, over) = read_bounded(&mut self.inner, &mut self.buf, &mut self.skip_lf)?;
        if got {
            self.line_no += 1;
            self.overlong = over;
        }
        Ok(got)
    }
}

/// Reads one line (without its `\n`, `\r\n` or `\r`) into `buf`, keeping at most
/// `MAX_LINE` bytes. `skip_lf` carries a `\r` ending across calls, so that the `\n` of a
/// `\r\n` split over two reads is not taken for an empty line.
fn read_bounded(r: &mut impl BufRead, buf: &mut Vec<u8>, skip_lf: &mut bool) -> io::Result<(bool, bool)> {
    buf.clear();
    let mut any = false;
    let mut over = false;
    loop {
        let chunk = match r.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            break;
        }
        if std::mem::take(skip_lf) && chunk[0] == b'\n' {
            r.consume(1);
            continue;
        }
        any = true;
        let end = memchr::memchr2(b'\n', b'\r', chunk);
        let (take, done) = match end {
            Some(i) => (i, true),
            None => (chunk.len(), false),
        };
        let room = MAX_LINE.saturating_sub(buf.len());
        if take > room {
            over = true;
        }
        buf.extend_from_slice(&chunk[..take.min(room)]);
        if let Some(i) = end {
            let cr = chunk[i] == b'\r';
            // A `\r\n` within the chunk is consumed whole; at the chunk's end, the next
            // read skips the `\n`.
            let crlf = cr && chunk.get(i + 1) == Some(&b'\n');
            *skip_lf = cr && !crlf && i + 1 == chunk.len();
            r.consume(take + if crlf { 2 } else { 1 });
        } else {
            r.consume(take);
        }
        if done {
            break;
        }
    }
    Ok((any, over))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replays_peeked_lines_then_continues() {
        let mut r = LineReader::new(Box::new(io::Cursor::new(b"a\r\nb\n\nc".to_vec())));
        assert_eq!(r.peek_lines(2).unwrap(), vec![b"a".to_vec(), b"b".to_vec()]);
        let mut got = Vec::new();
        while r.next_line().unwrap() {
            got.push((r.line_no, String::from_utf8(r.buf.clone()).unwrap()));
        }
        let want: Vec<(u64, String)> = vec![
            (1, "a".into()),
            (2, "b".into()),
            (3, "".into()),
            (4, "c".into()),
        ];
        assert_eq!(got, want);
    }

    /// Lone `\r` endings: 60 records read as one line ("salvaged"), 59 lost.
    #[test]
    fn cr_only_and_mixed_endings_split_lines() {
        let mut text = Vec::new();
        for i in 0..60 {
            text.extend_from_slice(format!("{i} 0 0 8 1\r").as_bytes());
        }
        let mut r = LineReader::new(Box::new(io::Cursor::new(text)));
        let mut n = 0;
        while r.next_line().unwrap() {
            assert_eq!(r.buf, format!("{n} 0 0 8 1").into_bytes());
            n += 1;
        }
        assert_eq!(n, 60);
        // \r\n split across two reads of a tiny buffer is one ending, not an empty line.
        let data = b"a\r\nb\rc\n\rd".to_vec();
        /// Hands out at most 2 bytes per read.
        struct Trickle(io::Cursor<Vec<u8>>);
        impl Read for Trickle {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = buf.len().min(2);
                self.0.read(&mut buf[..n])
            }
        }
        let mut r = LineReader::new(Box::new(Trickle(io::Cursor::new(data))));
        let mut got = Vec::new();
        while r.next_line().unwrap() {
            got.push(String::from_utf8(r.buf.clone()).unwrap());
        }
        assert_eq!(got, vec!["a", "b", "c", "", "d"]);
    }

    #[test]
    fn overlong_lines_are_cut() {
        let mut data = vec![b'x'; MAX_LINE + 10];
        data.extend_from_slice(b"\nok\n");
        let mut r = LineReader::new(Box::new(io::Cursor::new(data)));
        assert!(r.next_line().unwrap());
        assert!(r.overlong && r.buf.len() == MAX_LINE);
        assert!(r.next_line().unwrap());
        assert_eq!((r.buf.as_slice(), r.overlong), (&b"ok"[..], false));
    }
}
