//! Allocation of the simulator's large per-page tables (L2P, P2L, the valid bitmap, the
//! oracle's versions), filled with one value or copied from a preconditioned device.
//!
//! These tables are read at random. With 4 KiB pages nearly every access also misses the
//! TLB, and perf showed the engine's prefetches into them stalled on their page walks (a
//! prefetch retires only once its address is translated). On Linux, tables of a size
//! between `HUGE` and `HUGE_MAX` are therefore backed by 2 MiB transparent huge pages where
//! the kernel allows it (`madvise(MADV_HUGEPAGE)` before the first write; with THP
//! disabled the advice is ignored and nothing changes). Larger tables stay on 4 KiB pages:
//! faulting in gigabytes of huge pages made preconditioning a 1 TiB device 40 % slower
//! (8 s → 12 s, over its 10 s target), more than a run gains (docs/performance.md).
//!
//! Does not do: explicit hugetlbfs pages, NUMA placement.

/// Huge page size; smaller tables stay on ordinary pages (the advice would change nothing).
const HUGE: usize = 2 << 20;
/// Largest table given huge pages (see the module doc).
const HUGE_MAX: usize = 256 << 20;

/// Tables at least this large are filled on every core: the first write of each page (a
/// page fault, and the kernel clearing the page) is most of building a device. For a 1 TiB
/// device's 2 GiB of maps it was a second of preconditioning on one core; for the default
/// demo device's ~140 MiB of huge pages, in a VM whose host had taken the memory back, it was
/// 0.43-0.51 s of preconditioning on one core and is 0.28-0.32 s on two (24 Nov, 2-vCPU VM).
const PARALLEL_FILL: usize = 4 << 20;

/// A vector of `n` copies of `value`, backed by huge pages where available and worthwhile.
pub fn filled<T: Copy + Send + Sync>(n: usize, value: T) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(n);
    let bytes = n * std::mem::size_of::<T>();
    if (HUGE..=HUGE_MAX).contains(&bytes) {
        advise_huge(v.as_mut_ptr().cast::<u8>(), bytes);
    }
    if bytes >= PARALLEL_FILL {
        use rayon::prelude::*;
        // Writes into the capacity reserved (and advised) above.
        (0..n).into_par_iter().map(|_| value).collect_into_vec(&mut v);
    } else {
        v.resize(n, value);
    }
    v
}

/// A copy of `src`, backed by huge pages where available and worthwhile as [`filled`]'s
/// tables are (a plain `clone` would put a copied table back on 4 KiB pages, and a run on it
/// would pay the page walks `filled` avoids). Copied on the calling thread: copies are taken
/// by runs that already go in parallel, and a parallel copy let the copying thread take up
/// another run while it waited (rayon's work stealing), holding two devices at once.
pub fn copied<T: Copy>(src: &[T]) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(src.len());
    let bytes = std::mem::size_of_val(src);
    if (HUGE..=HUGE_MAX).contains(&bytes) {
        advise_huge(v.as_mut_ptr().cast::<u8>(), bytes);
    }
    v.extend_from_slice(src);
    v
}

#[cfg(target_os = "linux")]
fn advise_huge(ptr: *mut u8, bytes: usize) {
    // Only whole 2 MiB-aligned spans inside the allocation can become huge pages.
    let start = (ptr as usize).next_multiple_of(HUGE);
    let end = (ptr as usize + bytes) / HUGE * HUGE;
    if end > start {
        // SAFETY: the span lies inside a live allocation of this process that nothing has
        // written yet; MADV_HUGEPAGE only changes how its pages are backed, never their
        // contents, and a failure (THP disabled) is harmless and ignored.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge(_ptr: *mut u8, _bytes: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filled_tables_hold_the_value() {
        for n in [0, 1, 1000, (3 << 20) + 5, (PARALLEL_FILL / 4) + 3] {
            let v = filled(n, 0xdead_beefu32);
            assert_eq!(v.len(), n);
            assert!(v.iter().all(|&x| x == 0xdead_beef));
        }
    }

    #[test]
    fn copied_tables_equal_their_source() {
        for n in [0, 1, 1000, (3 << 20) + 5, (PARALLEL_FILL / 4) + 3] {
            let src: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
            assert_eq!(copied(&src), src);
        }
    }
}
