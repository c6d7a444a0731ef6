//! The write buffers' sizes and the settings that would not do what they say: the DRAM
//! write buffer (`buffer.enabled`, `buffer.capacity_pages`) and ttFlash's capacitor-backed
//! stripe buffer, which takes `buffer.capacity_pages` when it is set (64 MiB otherwise).
//!
//! `capacity_pages` with the DRAM buffer off is ignored by every scheme but ttFlash's flush
//! (it was ignored by that one too); a buffer that holds the whole host capacity lets a run
//! finish without a single write reaching flash (a `ttflash` run on a 32 MiB device passed
//! with its default 64 MiB buffer). Both are warnings, not errors: the runs are valid
//! models, just not informative, and the buffer's own tests use such devices on purpose.

use super::DeviceConfig;

/// ttFlash's stripe buffer when `buffer.capacity_pages` is not set.
pub const DEFAULT_STRIPE_BUFFER_BYTES: u32 = 64 << 20;

/// Pages of the buffer a scheme uses: the stripe buffer (`stripe`: ttFlash's GC-tolerant
/// flush) takes `capacity_pages` when set, else 64 MiB; the DRAM buffer takes
/// `capacity_pages`.
pub fn buffer_pages(dev: &DeviceConfig, stripe: bool) -> u32 {
    let set = dev.buffer.capacity_pages;
    if stripe && set == 0 {
        DEFAULT_STRIPE_BUFFER_BYTES / dev.geometry.page_size.max(1)
    } else {
        set
    }
}

/// Warnings on the buffer settings of `dev` under a scheme with (`stripe`) or without
/// ttFlash's stripe buffer; `host_pages` is the logical capacity the host addresses.
pub fn buffer_warnings(dev: &DeviceConfig, stripe: bool, host_pages: u64) -> Vec<String> {
    let mut out = Vec::new();
    if !stripe && !dev.buffer.enabled && dev.buffer.capacity_pages > 0 {
        out.push(format!(
            "buffer.capacity_pages = {} is ignored: buffer.enabled is false (set buffer.enabled = true for a DRAM write buffer; \
             only ttFlash's stripe buffer takes the size without it)",
            dev.buffer.capacity_pages
        ));
    }
    if stripe || dev.buffer.enabled {
        let pages = u64::from(buffer_pages(dev, stripe));
        if pages >= host_pages {
            let what = if stripe { "ttFlash's stripe buffer" } else { "the DRAM write buffer" };
            out.push(format!(
                "{what} holds {pages} pages, as many as the device's whole host capacity ({host_pages} pages): writes may never \
                 reach flash, so the run says little about GC; set buffer.capacity_pages below {host_pages} (a few percent of it)"
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::presets;

    #[test]
    fn ignored_and_oversized_buffers_are_named() {
        let mut d = presets::load("tiny").unwrap();
        let host = d.logical_pages() as u64;
        assert_eq!(buffer_pages(&d, true), 16_384);
        let w = buffer_warnings(&d, true, host);
        assert!(w.len() == 1 && w[0].contains("stripe buffer holds 16384 pages"), "{w:?}");
        assert!(buffer_warnings(&d, false, host).is_empty());
        d.buffer.capacity_pages = 64;
        assert_eq!(buffer_pages(&d, true), 64);
        assert!(buffer_warnings(&d, true, host).is_empty());
        let w = buffer_warnings(&d, false, host);
        assert!(w.len() == 1 && w[0].contains("capacity_pages = 64 is ignored"), "{w:?}");
        d.buffer.enabled = true;
        assert!(buffer_warnings(&d, false, host).is_empty());
    }
}
