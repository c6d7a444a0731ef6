//! A bounded line reader: yields one line at a time from a byte stream, reusing one buffer,
//! with 1-based line numbers. Lines longer than `MAX_LINE` are cut (the rest is discarded and
//! the line flagged) so a file without newlines cannot make memory grow. Lines read ahead
//! for format detection are replayed first. A line ends at `\n`, `\r\n` or a lone `\r`
//! (classic Mac OS line endings: a file of them read as one line).

use std::collections::VecDeque;
use std::io::{self, Read};

/// Longest line kept; real trace lines are < 200 bytes.
pub const MAX_LINE: usize = 64 * 1024;
/// Bytes asked of the stream per read.
const CHUNK: usize = 256 * 1024;

pub struct LineReader {
    inner: Box<dyn Read + Send>,
    /// Bytes read from the stream: `data[pos..filled]` are not yet taken into a line.
    data: Vec<u8>,
    pos: usize,
    filled: usize,
    /// The stream has ended.
    eof: bool,
    /// The current line: `data[start..end]`, or `held` when it was peeked ahead.
    start: usize,
    end: usize,
    from_held: bool,
    held: Vec<u8>,
    pending: VecDeque<(Vec<u8>, bool)>,
    /// True when the current line was longer than `MAX_LINE`.
    pub overlong: bool,
    /// 1-based number of the current line.
    pub line_no: u64,
    /// The last line ended with `\r`: a `\n` right after it belongs to that ending.
    skip_lf: bool,
    /// The current line was cut at `MAX_LINE`: the rest of it is still to be skipped.
    skip_rest: bool,
}

impl LineReader {
    pub fn new(r: Box<dyn Read + Send>) -> LineReader {
        LineReader {
            inner: r,
            data: Vec::new(),
            pos: 0,
            filled: 0,
            eof: false,
            start: 0,
            end: 0,
            from_held: false,
            held: Vec::new(),
            pending: VecDeque::new(),
            overlong: false,
            line_no: 0,
            skip_lf: false,
            skip_rest: false,
        }
    }

    /// Reads up to `n` lines ahead (for detection) without consuming them.
    pub fn peek_lines(&mut self, n: usize) -> io::Result<Vec<Vec<u8>>> {
        while self.pending.len() < n {
            let Some((start, end, over)) = self.scan()? else { break };
            self.pending.push_back((self.data[start..end].to_vec(), over));
        }
        Ok(self.pending.iter().map(|(l, _)| l.clone()).collect())
    }

    /// Lines read from the stream so far, the ones peeked ahead included (for "the stream
    /// broke after line N" messages).
    pub fn lines_read(&self) -> u64 {
        self.line_no + self.pending.len() as u64
    }

    /// Reads on, discarding, up to `max` bytes or the end of the stream, for the error it may
    /// hold: a decoder checks a compressed stream's checksum only at its end.
    pub fn drain(&mut self, max: u64) -> io::Result<()> {
        let buffered = (self.filled - self.pos).min(usize::try_from(max).unwrap_or(usize::MAX));
        self.pos += buffered;
        let mut left = max - buffered as u64;
        self.data.resize(CHUNK, 0);
        while left > 0 && !self.eof {
            let want = CHUNK.min(usize::try_from(left).unwrap_or(usize::MAX));
            match self.inner.read(&mut self.data[..want]) {
                Ok(0) => self.eof = true,
                Ok(n) => left -= n as u64,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
            // What was read is discarded.
            (self.pos, self.filled) = (0, 0);
        }
        Ok(())
    }

    /// Advances to the next line; `Ok(false)` at the end of the stream.
    #[inline]
    pub fn next_line(&mut self) -> io::Result<bool> {
        if let Some((l, over)) = self.pending.pop_front() {
            self.held = l;
            self.from_held = true;
            self.overlong = over;
            self.line_no += 1;
            return Ok(true);
        }
        self.from_held = false;
        let Some((start, end, over)) = self.scan()? else { return Ok(false) };
        (self.start, self.end, self.overlong) = (start, end, over);
        self.line_no += 1;
        Ok(true)
    }

    /// The current line's buffer and where the line is in it, lent out (so the line can be
    /// read while the reader's owner is borrowed mutably); [`LineReader::give_back`] it
    /// before the next line.
    #[inline]
    pub fn lend(&mut self) -> (Vec<u8>, usize, usize) {
        if self.from_held {
            let l = std::mem::take(&mut self.held);
            let n = l.len();
            (l, 0, n)
        } else {
            (std::mem::take(&mut self.data), self.start, self.end)
        }
    }

    #[inline]
    pub fn give_back(&mut self, buf: Vec<u8>) {
        if self.from_held {
            self.held = buf;
        } else {
            self.data = buf;
        }
    }

    /// Finds the next line in the buffered bytes, reading more as needed: its place in
    /// `data` and whether it was cut at `MAX_LINE`; `None` at the end of the stream. A line
    /// ends at `\n`, `\r\n` or a lone `\r`; a `\r\n` split over two reads is one ending.
    #[inline]
    fn scan(&mut self) -> io::Result<Option<(usize, usize, bool)>> {
        if self.skip_rest {
            self.skip_rest = false;
            loop {
                if let Some(i) = line_end(&self.data[self.pos..self.filled]) {
                    self.pos = self.past_ending(self.pos + i);
                    break;
                }
                self.pos = self.filled;
                if !self.fill()? {
                    break;
                }
            }
        }
        loop {
            if self.skip_lf {
                if self.pos == self.filled && self.fill()? {
                    continue;
                }
                self.skip_lf = false;
                if self.pos < self.filled && self.data[self.pos] == b'\n' {
                    self.pos += 1;
                }
            }
            let start = self.pos;
            if let Some(i) = line_end(&self.data[start..self.filled]) {
                self.pos = self.past_ending(start + i);
                let over = i > MAX_LINE;
                return Ok(Some((start, start + i.min(MAX_LINE), over)));
            }
            let rest = self.filled - start;
            if rest > MAX_LINE {
                // Cut: the rest of the line is skipped when the next one is asked for.
                self.pos = start + MAX_LINE;
                self.skip_rest = true;
                return Ok(Some((start, start + MAX_LINE, true)));
            }
            if !self.fill()? {
                // The last line, without an ending.
                self.pos = self.filled;
                return Ok((rest > 0).then_some((self.pos - rest, self.pos, false)));
            }
        }
    }

    /// Where the next line starts after the line ending at `data[i]` (`\n` or `\r`).
    #[inline]
    fn past_ending(&mut self, i: usize) -> usize {
        if self.data[i] == b'\n' {
            return i + 1;
        }
        if i + 1 < self.filled {
            return i + 1 + usize::from(self.data[i + 1] == b'\n');
        }
        // A `\r` at the end of what is read: a `\n` first in the next read belongs to it.
        self.skip_lf = true;
        i + 1
    }

    /// Moves the bytes not yet taken to the front and reads more after them; `false` at
    /// the end of the stream (nothing more read).
    fn fill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        self.data.copy_within(self.pos..self.filled, 0);
        (self.filled, self.pos) = (self.filled - self.pos, 0);
        if self.data.len() < self.filled + CHUNK {
            self.data.resize(self.filled + CHUNK, 0);
        }
        loop {
            match self.inner.read(&mut self.data[self.filled..self.filled + CHUNK]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.filled += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

/// Where the first `\n` or `\r` of `b` is. A trace line is short: its first 64 bytes are
/// looked at in place, 16 at a time (SSE2 on x86_64), the rest through `memchr` (whose
/// set-up per call costs more than a short line).
#[inline(always)]
fn line_end(b: &[u8]) -> Option<usize> {
    #[cfg_attr(not(all(target_arch = "x86_64", target_feature = "sse2")), allow(unused_mut))]
    let mut at = 0;
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    while at < 64 {
        use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8};
        let Some(block) = b[at..].first_chunk::<16>() else { break };
        // SAFETY: the build enables SSE2 (as every x86_64 target does), and the one load
        // reads the 16 bytes of `block` (unaligned loads are allowed).
        let m = unsafe {
            let v = _mm_loadu_si128(block.as_ptr().cast());
            _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'\n' as i8)), _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\r' as i8))))
        };
        if m != 0 {
            return Some(at + m.trailing_zeros() as usize);
        }
        at += 16;
    }
    memchr::memchr2(b'\n', b'\r', &b[at..]).map(|i| at + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The current line, copied.
    fn line(r: &mut LineReader) -> Vec<u8> {
        let (buf, start, end) = r.lend();
        let l = buf[start..end].to_vec();
        r.give_back(buf);
        l
    }

    #[test]
    fn replays_peeked_lines_then_continues() {
        let mut r = LineReader::new(Box::new(io::Cursor::new(b"a\r\nb\n\nc".to_vec())));
        assert_eq!(r.peek_lines(2).unwrap(), vec![b"a".to_vec(), b"b".to_vec()]);
        let mut got = Vec::new();
        while r.next_line().unwrap() {
            got.push((r.line_no, String::from_utf8(line(&mut r)).unwrap()));
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
            assert_eq!(line(&mut r), format!("{n} 0 0 8 1").into_bytes());
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
            got.push(String::from_utf8(line(&mut r)).unwrap());
        }
        assert_eq!(got, vec!["a", "b", "c", "", "d"]);
    }

    /// Line ends found in the first 16 bytes, after them, or nowhere, as `memchr` finds them.
    #[test]
    fn line_ends_anywhere() {
        for len in 0..100 {
            for at in 0..=len {
                for end in [b'\n', b'\r'] {
                    let mut b = vec![b'7'; len];
                    if at < len {
                        b[at] = end;
                    }
                    assert_eq!(line_end(&b), memchr::memchr2(b'\n', b'\r', &b), "{len} {at}");
                }
            }
        }
    }

    #[test]
    fn overlong_lines_are_cut() {
        let mut data = vec![b'x'; MAX_LINE + 10];
        data.extend_from_slice(b"\nok\n");
        let mut r = LineReader::new(Box::new(io::Cursor::new(data)));
        assert!(r.next_line().unwrap());
        assert!(r.overlong && line(&mut r).len() == MAX_LINE);
        assert!(r.next_line().unwrap());
        assert_eq!((line(&mut r), r.overlong), (b"ok".to_vec(), false));
    }
}
