//! Format auto-detection from the first lines of a trace.
//!
//! Every format parser tries the first text lines; the format that parses the most of them
//! as requests wins. Ties (the SSDsim and MQSim ASCII layouts are identical; integer-time
//! flashsim lines also parse as SSDsim) are broken by the file name extension, tabs (flashsim
//! is tab separated) and then the fixed order of `Format::ALL`.
//!
//! The LinnOS/Heimdall/FlashNet layout has the very columns of the SSDsim/MQSim one, in
//! bytes instead of 512 B sectors. It wins when its values are byte units: every size a
//! multiple of 512 and at least 512, and every offset a multiple of 512 (a sector-unit trace
//! has sizes like 8 or 16). When sizes look like bytes but offsets do not, the file is read
//! in sectors as before and [`unit_note`] says why and how to force the byte layout.

use super::classify::{classify, LineKind};
use super::format::Format;
use super::error::FieldError;
use super::record::{LineParser, Parsed};

/// Lines read ahead for detection.
pub const DETECT_LINES: usize = 64;

/// The file name, lower case, without a compression suffix: its extension names the format.
fn stem(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    lower.trim_end_matches(".gz").trim_end_matches(".bz2").trim_end_matches(".zst").to_string()
}

/// The best format for `lines`, or `None` when no format parses any of them.
pub fn detect(name: &str, lines: &[Vec<u8>], blk_event: &str) -> Option<Format> {
    let stem = stem(name);
    let tabs = lines.iter().any(|l| l.contains(&b'\t'));
    let fractional_times = lines.iter().any(|l| l.split(|c| c.is_ascii_whitespace()).find(|w| !w.is_empty()).is_some_and(|w| w.contains(&b'.')));
    let units = byte_units(lines, blk_event);
    let mut best: Option<(u64, Format)> = None;
    for f in Format::ALL {
        let p = f.parser(None, blk_event);
        let mut ok = 0u64;
        for l in lines {
            let text = match classify(l) {
                LineKind::Text => l.as_slice(),
                LineKind::NonText { tail } => tail,
                _ => continue,
            };
            if let Ok(Parsed::Record(_)) = p.parse(text) {
                ok += 1;
            }
        }
        if ok == 0 {
            continue;
        }
        let mut score = ok * 4;
        if f == Format::Mqsim && (stem.ends_with(".mqsim") || (stem.ends_with(".trace") && !fractional_times && !tabs)) {
            score += 2;
        }
        // `.trace` names flashsim's Financial1 files, with millisecond times that carry a
        // fraction; MQSim's own traces are `.trace` files too, in whole nanoseconds. Taking
        // the name alone, an MQSim trace (or `flashtail gen` output) read as flashsim ran a
        // million times too slow, with sizes 8 times too large.
        if f == Format::Flashsim && (tabs || (stem.ends_with(".trace") && fractional_times)) {
            score += if tabs { 2 } else { 1 };
        }
        // Byte units beat every sector layout's bonus; otherwise it loses every tie.
        if f == Format::Linnos {
            score = if units.is_bytes() { score + 3 } else { score - 1 };
        }
        if best.is_none_or(|(s, _)| score > s) {
            best = Some((score, f));
        }
    }
    best.map(|(_, f)| f)
}

/// What the size and offset columns of the five-column whitespace lines say about their unit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ByteUnits {
    /// Lines of the five-column layout.
    pub lines: u64,
    /// Of those, lines whose size is a multiple of 512 and at least 512.
    pub sizes_512: u64,
    /// Of those, lines whose offset is a multiple of 512.
    pub offsets_512: u64,
}

impl ByteUnits {
    /// Every line's size and offset look like bytes.
    pub fn is_bytes(&self) -> bool {
        self.lines > 0 && self.sizes_512 == self.lines && self.offsets_512 == self.lines
    }
    /// Sizes look like bytes, offsets do not: either reading may be wrong.
    pub fn is_ambiguous(&self) -> bool {
        self.lines > 0 && self.sizes_512 == self.lines && self.offsets_512 < self.lines
    }
}

/// Counts the byte-unit evidence of `lines` read in the LinnOS layout.
pub fn byte_units(lines: &[Vec<u8>], blk_event: &str) -> ByteUnits {
    let p = Format::Linnos.parser(None, blk_event);
    let mut u = ByteUnits::default();
    for l in lines {
        if classify(l) != LineKind::Text {
            continue;
        }
        if let Ok(Parsed::Record(r)) = p.parse(l) {
            u.lines += 1;
            u.sizes_512 += u64::from(r.size >= 512 && r.size % 512 == 0);
            u.offsets_512 += u64::from(r.offset % 512 == 0);
        }
    }
    u
}

/// A warning when detection took a sector layout (ssdsim, mqsim, flashsim) for lines whose
/// sizes look like bytes while their offsets do not: the unit is ambiguous.
pub fn unit_note(format: Format, lines: &[Vec<u8>], blk_event: &str) -> Option<String> {
    if !matches!(format, Format::Ssdsim | Format::Mqsim | Format::Flashsim) {
        return None;
    }
    let u = byte_units(lines, blk_event);
    u.is_ambiguous().then(|| {
        format!(
            "read as {format} (sizes in {}), but every size in the first {} lines is a multiple of 512 bytes while {} of the offsets are not: \
             if the file is in bytes (the LinnOS/Heimdall/FlashNet layout) use --format linnos",
            if format == Format::Flashsim { "4 KiB pages" } else { "512 B sectors" },
            u.lines,
            u.lines - u.offsets_512
        )
    })
}

/// Why no format fits, when one nearly does: the first text line whose field count matches a
/// format whose parser then rejects one field (`0 0 0 8 2` in a `.mqsim` file: an op code of
/// 2). Formats named by the file's extension are asked first. The 1-based line number, the
/// format and the field error; `None` when no line has the shape of any format.
pub fn near_miss(name: &str, lines: &[Vec<u8>], blk_event: &str) -> Option<(usize, Format, FieldError)> {
    let stem = stem(name);
    let ext = stem.rsplit_once('.').map_or("", |(_, e)| e);
    let mut order: Vec<Format> = Format::ALL.iter().copied().filter(|f| f.name() == ext).collect();
    order.extend(Format::ALL.iter().copied().filter(|f| f.name() != ext));
    let parsers: Vec<(Format, Box<dyn LineParser>)> = order.into_iter().map(|f| (f, f.parser(None, blk_event))).collect();
    for (i, l) in lines.iter().enumerate() {
        if classify(l) != LineKind::Text {
            continue;
        }
        for (f, p) in &parsers {
            // A wrong field count is no near miss: every format but one gives it.
            if let Err(e) = p.parse(l) {
                if e.field != "line" {
                    return Some((i + 1, *f, e));
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &str) -> Vec<Vec<u8>> {
        s.lines().map(|l| l.as_bytes().to_vec()).collect()
    }

    #[test]
    fn detects_each_layout() {
        let d = |n: &str, s: &str| detect(n, &lines(s), "Q");
        assert_eq!(
            d("x", "128166385295514663,hm,0,Write,9056014336,2048,2833"),
            Some(Format::Msr)
        );
        assert_eq!(
            d("x.ascii", "0 0 303567 7 0\n0 1 55590 6 0"),
            Some(Format::Ssdsim)
        );
        assert_eq!(d("x.mqsim", "11413000 0 657728 16 1"), Some(Format::Mqsim));
        assert_eq!(d("x", "26.214000\t0\t303574\t1\t0"), Some(Format::Flashsim));
        assert_eq!(d("f1.trace", "26.214000 0 303574 1 0"), Some(Format::Flashsim));
        // Whole-nanosecond times in a `.trace` file: MQSim's layout (and `flashtail gen`'s),
        // not flashsim's milliseconds.
        assert_eq!(d("tpcc.trace", "0 0 71640 16 1\n332970 0 77664 24 1"), Some(Format::Mqsim));
        assert_eq!(
            d("x", "1538323200,4247200,128,1,1058"),
            Some(Format::Tencent)
        );
        assert_eq!(d("x", "0,303567,3584,w,0.000000"), Some(Format::Umass));
        assert_eq!(
            d(
                "x",
                "Timestamp,Response,IOType,LUN,Offset,Size\n1.5,0.1,R,0,512,4096"
            ),
            Some(Format::Systor)
        );
        assert_eq!(
            d(
                "x",
                "8,16 5 2 0.000001850 18615 Q R 1444645666 + 256 [java]"
            ),
            Some(Format::Blkparse)
        );
        assert_eq!(d("x", "hello world"), None);
        assert_eq!(d("x", "0.000,120,1,4096,4923392,0.091,4096"), Some(Format::Flashnet));
        assert_eq!(d("x", "419,W,8792731648,16384,1577808144360767"), Some(Format::Alibaba));
        assert_eq!(d("x", "version,time,op,size,lbn\n1,5633898,2a,512,42932745"), Some(Format::CloudPhysics));
    }

    /// The LinnOS byte layout was read as flashsim (sizes x 4096, offsets x 512): a 4 KiB
    /// request became 16 MiB.
    #[test]
    fn byte_unit_lines_are_linnos_sector_lines_stay_ascii() {
        let d = |n: &str, s: &str| detect(n, &lines(s), "Q");
        let bytes = "0.024 0 3432230912 4096 1\n1.5 0 8192 65536 0";
        assert_eq!(d("x.trace", bytes), Some(Format::Linnos));
        assert_eq!(d("x", bytes), Some(Format::Linnos));
        assert_eq!(d("x.mqsim", "0 0 3432230912 4096 1"), Some(Format::Linnos));
        assert_eq!(d("x\t", "26.214000\t0\t303574\t1\t0"), Some(Format::Flashsim));
        assert_eq!(d("x", "97900000 0 287641400 128 1"), Some(Format::Ssdsim));
        // Sizes of 512-byte multiples but odd offsets: read in sectors, with a note.
        let amb = lines("0 0 303567 1024 0\n10 0 5 512 1");
        assert_eq!(detect("x", &amb, "Q"), Some(Format::Ssdsim));
        let note = unit_note(Format::Ssdsim, &amb, "Q").unwrap();
        assert!(note.contains("--format linnos") && note.contains("2 of the offsets"), "{note}");
        assert_eq!(unit_note(Format::Ssdsim, &lines("0 0 303567 8 0"), "Q"), None);
    }

    /// A line with the shape of a format but one bad field is reported as such (detection
    /// said only "cannot detect the trace format from the first 1 lines"); the extension's
    /// format is asked first.
    #[test]
    fn a_near_miss_names_the_line_format_and_field() {
        let (line, f, e) = near_miss("t.mqsim", &lines("Timestamp,x\n0 0 0 8 2"), "Q").unwrap();
        assert_eq!((line, f, e.field), (2, Format::Mqsim, "op"));
        assert_eq!(e.message, "2 is not an op code (1=read, 0=write)");
        let (_, f, _) = near_miss("t.ascii", &lines("0 0 0 8 2"), "Q").unwrap();
        assert_eq!(f, Format::Ssdsim);
        let (line, f, e) = near_miss("x", &lines("128166385295514663,hm,0,Write,-4096,4096,1"), "Q").unwrap();
        assert_eq!((line, f, e.field), (1, Format::Msr, "Offset"));
        assert_eq!(near_miss("x", &lines("hello world\n1 2 3"), "Q"), None);
    }
}
