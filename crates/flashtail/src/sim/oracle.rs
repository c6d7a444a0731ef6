//! The integrity oracle: every host write gets a version; every physical page remembers
//! the version it holds; every read checks it got the newest accepted version of its
//! logical page. A mismatch is a simulator bug: it is counted, the first ones are described,
//! and `run` fails.
//!
//! "Accepted" = the write has been mapped (it may still be in flight, served from controller
//! memory). Preconditioned data is version 1; never-written pages are version 0.
//!
//! Content-aware schemes (SplitGC paper) also read a logical page from *another* logical page's
//! physical copy of the same content. For them the oracle keeps, besides versions, the
//! content id of each logical page's newest write and of each physical page's data, and
//! checks such a read by content: the page read must hold exactly the content last written
//! to the logical page. Whenever data is placed in a page for a logical page from another
//! page's copy (a deferred write, a revalidated page), the content is checked first and the
//! logical page's newest version is placed with it, so the version checks stay exact.
//!
//! Each logical page's newest version is kept beside its map entry (`ftl::l2p::L2p`: one
//! cache line and one address translation for both on every read, write and GC move); the
//! methods that read or bump it take the map. Physical pages' versions are kept here.
//!
//! RAIN (ttFlash) also rebuilds a page from its stripe: the XOR of the parity page and the
//! other data pages is the page only if the parity was computed over exactly the data the
//! stripe's pages hold on flash. For that the oracle keeps, per physical parity page, a
//! signature of the data it covers (`stripe_signature` of its members' versions), and
//! checks it against the members' pages at each rebuild (`check_parity`).

use crate::ftl::l2p::L2p;

pub struct Oracle {
    pub enabled: bool,
    page_version: crate::ftl::tables::Table<u32>,
    pub checked: u64,
    pub violations: u64,
    pub first_violations: Vec<String>,
    /// Content of each logical page's newest write, and of each physical page's data
    /// (content-aware schemes only; empty otherwise).
    lpn_content: Vec<u32>,
    page_content: Vec<u32>,
    /// Per physical page, the signature of the stripe data a parity page covers (RAIN
    /// only; empty otherwise).
    page_parity: Vec<u32>,
}

/// The signature of a stripe's data: what its parity must cover, from each data page's
/// logical id and version (version 0, never written, holds zeros and adds nothing). XOR,
/// as parity is: members combine in any order.
pub fn stripe_signature(members: impl Iterator<Item = (u32, u32)>) -> u32 {
    members.filter(|&(_, v)| v != 0).fold(0, |acc, (id, v)| {
        let x = (u64::from(id) << 32 | u64::from(v)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        acc ^ (x >> 32) as u32
    })
}

impl Oracle {
    /// An oracle for the device whose map is `l2p` (with versions when `enabled`).
    pub fn new(enabled: bool, l2p: &L2p, physical_pages: u32) -> Oracle {
        assert_eq!(enabled, l2p.has_versions(), "the oracle keeps its versions in the map exactly when it is on");
        let p = if enabled { physical_pages as usize } else { 0 };
        Oracle {
            enabled,
            page_version: crate::ftl::tables::filled(p, 0),
            checked: 0,
            violations: 0,
            first_violations: Vec::new(),
            lpn_content: Vec::new(),
            page_content: Vec::new(),
            page_parity: Vec::new(),
        }
    }

    /// A copy of a preconditioned oracle for another scheme's run (`sim::StartState`), its
    /// version tables on huge pages as `new` gives them.
    pub(crate) fn duplicate(&self) -> Oracle {
        Oracle {
            enabled: self.enabled,
            page_version: crate::ftl::tables::copied(&self.page_version),
            checked: self.checked,
            violations: self.violations,
            first_violations: self.first_violations.clone(),
            lpn_content: self.lpn_content.clone(),
            page_content: self.page_content.clone(),
            page_parity: self.page_parity.clone(),
        }
    }

    /// Track what RAIN parity pages cover (module doc); a no-op when disabled.
    pub fn track_parity(&mut self) {
        if self.enabled {
            self.page_parity = vec![0; self.page_version.len()];
        }
    }

    /// Parity page `ppn` was written covering data of signature `sig`.
    pub fn parity_written(&mut self, ppn: u32, sig: u32) {
        if let Some(x) = self.page_parity.get_mut(ppn as usize) {
            *x = sig;
        }
    }

    /// A page is rebuilt from its stripe with parity page `ppn`: it must cover exactly the
    /// data of signature `sig` (the stripe's data pages as they are on flash).
    pub fn check_parity(&mut self, ppn: u32, sig: u32, id: u32, now: u64) {
        if let Some(&got) = self.page_parity.get(ppn as usize) {
            self.checked += 1;
            if got != sig {
                self.violation(format_args!("t={now}ns rebuilt read: parity page {ppn} (id {id}) covers other data than its stripe holds on flash"));
            }
        }
    }

    /// Track content too (module doc), for the logical ids of the map `l2p`; a no-op when
    /// disabled.
    pub fn track_content(&mut self, l2p: &L2p) {
        if self.enabled {
            self.lpn_content = vec![0; l2p.len()];
            self.page_content = vec![0; self.page_version.len()];
        }
    }

    #[inline]
    fn content_on(&self) -> bool {
        !self.page_content.is_empty()
    }

    /// A write of content `c` to `lpn` was accepted into page `ppn` (after `write`).
    pub fn write_content(&mut self, lpn: u32, ppn: u32, c: u32) {
        if self.content_on() {
            self.lpn_content[lpn as usize] = c;
            self.page_content[ppn as usize] = c;
        }
    }

    /// A GC move copied page `src`'s data into `dst`.
    #[inline]
    pub fn copy_content(&mut self, src: u32, dst: u32) {
        if self.content_on() {
            self.page_content[dst as usize] = self.page_content[src as usize];
        }
    }

    /// A read of `lpn` returned the data of page `ppn`, another logical page's copy of the
    /// same content: check the content is `lpn`'s newest.
    pub fn check_content(&mut self, lpn: u32, ppn: u32, what: &str, now: u64) {
        if !self.content_on() {
            return;
        }
        self.checked += 1;
        if !self.holds_newest_content(lpn, ppn) {
            let (got, want) = (self.page_content[ppn as usize], self.lpn_content[lpn as usize]);
            self.violation(format_args!("t={now}ns {what} of LPN {lpn} from page {ppn}: content {got}, newest write has content {want}"));
        }
    }

    /// Does page `ppn` hold the content of `lpn`'s newest write (known content only)?
    pub fn holds_newest_content(&self, lpn: u32, ppn: u32) -> bool {
        self.content_on() && self.lpn_content[lpn as usize] != 0 && self.page_content[ppn as usize] == self.lpn_content[lpn as usize]
    }

    /// Page `ppn` is about to serve `lpn` as holding content `c` (DAGC revalidation).
    pub fn check_page_content(&mut self, lpn: u32, ppn: u32, c: u32, what: &str, now: u64) {
        if !self.content_on() {
            return;
        }
        self.checked += 1;
        let got = self.page_content[ppn as usize];
        if got != c || c == 0 {
            self.violation(format_args!("t={now}ns {what} of LPN {lpn} with page {ppn}: the page holds content {got}, the write has {c}"));
        }
    }

    /// `lpn`'s data was placed in page `dst` from a copy in page `src` (a deferred write or
    /// a rescued last copy): check the content, then give `dst` the newest version.
    pub fn place_copy(&mut self, l2p: &L2p, lpn: u32, src: u32, dst: u32, now: u64) {
        if !self.content_on() {
            return;
        }
        self.check_content(lpn, src, "copy for a shared page", now);
        self.page_content[dst as usize] = self.page_content[src as usize];
        self.page_version[dst as usize] = l2p.version(lpn as usize);
    }

    /// A write of `lpn` was accepted into page `ppn`: bump and store its version.
    #[inline]
    pub fn write(&mut self, l2p: &mut L2p, lpn: u32, ppn: u32) -> u32 {
        if !self.enabled {
            return 0;
        }
        let v = l2p.version_mut(lpn as usize);
        *v += 1;
        self.page_version[ppn as usize] = *v;
        *v
    }

    /// A write whose version is given (RAIN parity carries its stripe's epoch).
    #[inline]
    pub fn write_version(&mut self, l2p: &mut L2p, id: u32, ppn: u32, v: u32) -> u32 {
        if self.enabled {
            *l2p.version_mut(id as usize) = v;
            self.page_version[ppn as usize] = v;
        }
        v
    }

    /// A new version of `id` accepted into controller RAM (not yet on flash).
    #[inline]
    pub fn bump(&mut self, l2p: &mut L2p, id: u32) -> u32 {
        if !self.enabled {
            return 0;
        }
        let v = l2p.version_mut(id as usize);
        *v += 1;
        *v
    }

    /// Data of version `v` was placed in page `ppn` (its version was given earlier).
    #[inline]
    pub fn place(&mut self, ppn: u32, v: u32) -> u32 {
        if self.enabled {
            self.page_version[ppn as usize] = v;
        }
        v
    }

    /// Newest accepted version of a logical id (0 when disabled).
    #[inline]
    pub fn newest(&self, l2p: &L2p, id: u32) -> u32 {
        if self.enabled { l2p.version(id as usize) } else { 0 }
    }

    /// Flash holds an older version of `lpn` than the newest (whose data is in controller RAM).
    pub fn check_older(&mut self, l2p: &L2p, lpn: u32, got: u32, what: &str, now: u64) {
        if !self.enabled {
            return;
        }
        self.checked += 1;
        let want = l2p.version(lpn as usize);
        if got >= want {
            self.violation(format_args!("t={now}ns {what} of LPN {lpn}: flash has version {got}, buffer should hold newer than newest {want}"));
        }
    }

    /// Check an arbitrary equality the integrity argument rests on.
    pub fn check_eq(&mut self, got: u32, want: u32, id: u32, what: &str, now: u64) {
        if !self.enabled {
            return;
        }
        self.checked += 1;
        if got != want {
            self.violation(format_args!("t={now}ns {what} of id {id}: {got}, expected {want}"));
        }
    }

    /// Hint that physical page `ppn`'s version will be needed soon.
    #[inline]
    pub fn prefetch_page(&self, ppn: u32) {
        if let Some(v) = self.page_version.get(ppn as usize) {
            crate::ftl::mapping::prefetch(v);
        }
    }

    /// Preconditioning made the pages whose bits are set in `valid` (one bit per physical
    /// page) hold data: version 1 (the map's `L2p::preload` gives their logical pages that
    /// version), every other page none. One pass in page order: written page by page as
    /// preconditioning mapped them, one stream per plane, the stores waited on their cache
    /// lines.
    pub fn preload_valid(&mut self, valid: &[u64]) {
        if !self.enabled {
            return;
        }
        for (chunk, &word) in self.page_version.chunks_mut(64).zip(valid) {
            for (j, v) in chunk.iter_mut().enumerate() {
                *v = (word >> j) as u32 & 1;
            }
        }
    }

    /// Power was cut and recovery found `versions` (per logical page, from 0), in `pages`
    /// (each logical page's own physical page, `NONE` for none): they are the newest from
    /// now on, an unacknowledged write lost with its version (the engine's `power_cut`).
    /// With content tracked, a logical page that lost its newest write has the content of
    /// the version recovered (none if none was).
    pub fn recover(&mut self, l2p: &mut L2p, versions: &[u32], pages: &[u32]) {
        if !self.enabled {
            return;
        }
        if self.content_on() {
            for (lpn, (&v, &p)) in versions.iter().zip(pages).enumerate() {
                if v < l2p.version(lpn) {
                    self.lpn_content[lpn] = if p == crate::ftl::NONE { 0 } else { self.page_content[p as usize] };
                }
            }
        }
        l2p.set_versions(versions);
    }

    /// Version stored in a physical page (0 when disabled).
    #[inline]
    pub fn page(&self, ppn: u32) -> u32 {
        if self.enabled { self.page_version[ppn as usize] } else { 0 }
    }

    /// A GC move copied page `src`, holding `version`, into `dst` (what a RAIN parity page
    /// covers moves with it).
    #[inline]
    pub fn copy(&mut self, src: u32, dst: u32, version: u32) {
        if self.enabled {
            self.page_version[dst as usize] = version;
            if !self.page_parity.is_empty() {
                self.page_parity[dst as usize] = self.page_parity[src as usize];
            }
        }
    }

    #[inline]
    pub fn erase(&mut self, first_ppn: u32, pages: u32) {
        if self.enabled {
            let r = first_ppn as usize..(first_ppn + pages) as usize;
            self.page_version[r.clone()].fill(0);
            if self.content_on() {
                self.page_content[r].fill(0);
            }
        }
    }

    /// A read of `lpn` returned `got`: check it is the newest accepted version.
    ///
    /// Inlined (it runs on every flash and GC read, and with the oracle off it is one test);
    /// the rare mismatch is recorded out of line.
    #[inline]
    pub fn check(&mut self, l2p: &L2p, lpn: u32, got: u32, what: &str, now: u64) {
        if !self.enabled {
            return;
        }
        self.checked += 1;
        let want = l2p.version(lpn as usize);
        if got != want {
            self.violation(format_args!("t={now}ns {what} of LPN {lpn} returned version {got}, newest is {want}"));
        }
    }

    /// Count a violation and keep the first ten descriptions (every check reports here).
    #[cold]
    #[inline(never)]
    pub(crate) fn violation(&mut self, msg: std::fmt::Arguments) {
        self.violations += 1;
        if self.first_violations.len() < 10 {
            self.first_violations.push(msg.to_string());
        }
    }
}
