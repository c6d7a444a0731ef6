//! Victim rules of the content-aware schemes (SplitGC paper).
//!
//! - SplitGC (§3.3): the candidate with the fewest *non-duplicate* valid pages (duplicates
//!   as the scrub last marked them); with no duplicate known, that is greedy. The paper
//!   words it as two cases (blocks holding duplicates first, else greedy); read literally,
//!   the first case would take a block with ten pages to copy over one with two just
//!   because the first holds a duplicate. A block without duplicates has all its valid
//!   pages non-duplicate, so both cases are one minimum here.
//! - DAGC: greedy on valid + invalid-but-checksum-cached pages (the cached ones are kept).
//!
//! Candidates and ties as every victim policy (`gc::victim`): sealed blocks with enough
//! invalid pages, lowest block id on ties.

use crate::ftl::content::Content;
use crate::ftl::Ftl;
use crate::gc::victim::{candidates, Greedy, VictimPolicy};
use crate::units::{BlockId, Nanos, PlaneId};

/// The candidate with the lowest `cost(block, valid pages)`, lowest id on ties; greedy when
/// the FTL keeps no content.
fn cheapest(ftl: &Ftl, plane: PlaneId, min_invalid: u32, now: Nanos, cost: impl Fn(&Content, BlockId, u32) -> u32) -> Option<BlockId> {
    let Some(c) = &ftl.content else { return Greedy.select(ftl, plane, min_invalid, now) };
    candidates(ftl, plane, min_invalid).map(|(b, v)| (cost(c, b, v), b.0)).min().map(|(_, b)| BlockId(b))
}

pub struct SplitGcVictim;

impl VictimPolicy for SplitGcVictim {
    fn name(&self) -> &str {
        "splitgc"
    }
    fn select(&mut self, ftl: &Ftl, plane: PlaneId, min_invalid: u32, now: Nanos) -> Option<BlockId> {
        cheapest(ftl, plane, min_invalid, now, |c, b, v| v - c.dup_valid_in(b, |w| ftl.valid_word(w)))
    }
}

pub struct DagcVictim;

impl VictimPolicy for DagcVictim {
    fn name(&self) -> &str {
        "dagc"
    }
    fn select(&mut self, ftl: &Ftl, plane: PlaneId, min_invalid: u32, now: Nanos) -> Option<BlockId> {
        cheapest(ftl, plane, min_invalid, now, |c, b, v| v + c.cached_in(b))
    }
}
