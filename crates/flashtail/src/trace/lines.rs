//! A bounded line reader: yields one line at a time from a byte stream, reusing one buffer,
//! with 1-based line numbers. Lines longer than `MAX_LINE` are cut (the rest is discarded and
//! the line flagged) so a file without newlines cannot make memory grow. Lines read ahead
//! for format detection are replayed first.

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
}

impl LineReader {
    pub fn new(r: Box<dyn Read + Send>) -> LineReader {
        LineReader {
            inner: BufReader::with_capacity(256 * 1024, r),
            pending: VecDeque::new(),
            buf: Vec::with_capacity(256),
            overlong: false,
            line_no: 0,
        }
    }

    /// Reads up to `n` lines ahead (for detection) without consuming them.
    pub fn peek_lines(&mut self, n: usize) -> io::Result<Vec<Vec<u8>>> {
        let mut out = Vec::new();
        while self.pending.len() < n {
            let mut b = Vec::new();
            let (got, over) = read_bounded(&mut self.inner, &mut b)?;
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
        let (got, over) = read_bounded(&mut self.inner, &mut self.buf)?;
        if got {
            self.line_no += 1;
            self.overlong = over;
        }
        Ok(got)
    }
}

/// Reads one line (without its `\n` / `\r\n`) into `buf`, keeping at most `MAX_LINE` bytes.
fn read_bounded(r: &mut impl BufRead, buf: &mut Vec<u8>) -> io::Result<(bool, bool)> {
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
        any = true;
        let (take, done) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (i, true),
            None => (chunk.len(), false),
        };
        let room = MAX_LINE.saturating_sub(buf.len());
        if take > room {
            over = true;
        }
        buf.extend_from_slice(&chunk[..take.min(room)]);
        r.consume(if done { take + 1 } else { take });
        if done {
            break;
        }
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
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
