//! The list of supported trace formats: names for the command line, and which parser each
//! one uses. Does not detect formats (see `detect.rs`).

use super::formats::{alibaba, ascii, blkparse, cloudphysics, fiu, flashnet, flashsim, linnos, msr, systor, tencent, umass};
use super::record::LineParser;
use std::fmt;

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    Msr,
    Fiu,
    Umass,
    Ssdsim,
    Mqsim,
    Flashsim,
    Blkparse,
    Tencent,
    Systor,
    Linnos,
    Flashnet,
    Alibaba,
    CloudPhysics,
}

impl Format {
    /// Every format, in detection-priority order (earlier wins a tie).
    pub const ALL: [Format; 13] = [
        Format::Msr,
        Format::Fiu,
        Format::Systor,
        Format::Umass,
        Format::Tencent,
        Format::Alibaba,
        Format::CloudPhysics,
        Format::Flashnet,
        Format::Blkparse,
        Format::Ssdsim,
        Format::Mqsim,
        Format::Flashsim,
        Format::Linnos,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Format::Msr => "msr",
            Format::Fiu => "fiu",
            Format::Umass => "umass",
            Format::Ssdsim => "ssdsim",
            Format::Mqsim => "mqsim",
            Format::Flashsim => "flashsim",
            Format::Blkparse => "blkparse",
            Format::Tencent => "tencent",
            Format::Systor => "systor",
            Format::Linnos => "linnos",
            Format::Flashnet => "flashnet",
            Format::Alibaba => "alibaba",
            Format::CloudPhysics => "cloudphysics",
        }
    }

    /// One line per format, for `--help`.
    pub fn help() -> &'static str {
        "msr (MSR Cambridge CSV), fiu (FIU SRCMap/dedup with MD5), umass (UMass/SPC CSV), \
         ssdsim (SSDsim/DiskSim ASCII), mqsim (MQSim ASCII), flashsim (Financial1 flashsim, ms, \
         4 KiB pages), blkparse (blkparse text), tencent (Tencent CBS CSV), systor (SYSTOR'17 CSV), \
         linnos (LinnOS/Heimdall/FlashNet input, ms and bytes), flashnet (FlashNet replayer CSV), \
         alibaba (Alibaba Cloud block CSV), cloudphysics (libCacheSim's block CSV, SCSI ops)"
    }

    /// Nanoseconds per unit of the time column when the user does not say otherwise.
    pub fn default_time_unit_ns(self) -> f64 {
        match self {
            Format::Flashsim | Format::Linnos | Format::Flashnet => 1e6,
            Format::Alibaba => 1e3,
            Format::Umass | Format::Tencent | Format::Systor | Format::Blkparse | Format::CloudPhysics => 1e9,
            Format::Msr => 100.0,
            Format::Fiu | Format::Ssdsim | Format::Mqsim => 1.0,
        }
    }

    /// Whether the time unit of the format's time column is a reader option (the ASCII
    /// formats, whose published files use different units); the others have a fixed one.
    pub fn takes_time_unit(self) -> bool {
        matches!(self, Format::Ssdsim | Format::Mqsim | Format::Flashsim | Format::Linnos)
    }

    /// The line parser. `time_unit_ns` applies to the formats whose time unit varies between
    /// published files (the ASCII ones); the others have a fixed, documented unit.
    pub fn parser(self, time_unit_ns: Option<f64>, blk_event: &str) -> Box<dyn LineParser> {
        let unit = time_unit_ns.unwrap_or(self.default_time_unit_ns());
        match self {
            Format::Msr => Box::new(msr::Msr),
            Format::Fiu => Box::new(fiu::Fiu),
            Format::Umass => Box::new(umass::Umass),
            Format::Ssdsim | Format::Mqsim => Box::new(ascii::Ascii { unit_ns: unit }),
            Format::Flashsim => Box::new(flashsim::Flashsim { unit_ns: unit }),
            Format::Blkparse => Box::new(blkparse::Blkparse {
                event: blk_event.to_ascii_uppercase(),
            }),
            Format::Tencent => Box::new(tencent::Tencent),
            Format::Systor => Box::new(systor::Systor),
            Format::Linnos => Box::new(linnos::Linnos { unit_ns: unit }),
            Format::Flashnet => Box::new(flashnet::Flashnet),
            Format::Alibaba => Box::new(alibaba::Alibaba),
            Format::CloudPhysics => Box::new(cloudphysics::CloudPhysics),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Format, String> {
        let l = s.to_ascii_lowercase();
        let alias = match l.as_str() {
            "spc" => "umass",
            "disksim" | "ascii" => "ssdsim",
            "cbs" => "tencent",
            "blktrace" => "blkparse",
            "heimdall" => "linnos",
            "libcachesim" | "vscsi-csv" => "cloudphysics",
            "alicloud" => "alibaba",
            other => other,
        };
        Format::ALL
            .iter()
            .copied()
            .find(|f| f.name() == alias)
            .ok_or_else(|| format!("unknown trace format '{s}'; known: {}", Format::help()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for f in Format::ALL {
            assert_eq!(f.to_string().parse::<Format>(), Ok(f));
        }
        assert_eq!("SPC".parse::<Format>(), Ok(Format::Umass));
        assert!("nope".parse::<Format>().is_err());
    }
}
