//! Allocation of the simulator's large per-page tables (L2P, P2L, the valid bitmap, the
//! oracle's versions), filled with one value or copied from a preconditioned device.
//!
//! These tables are read at random. With 4 KiB pages nearly every access also misses the
//! TLB, and perf showed the engine's prefetches into them stalled on their page walks (a
//! prefetch retires only once its address is translated). On Linux, tables of a size
//! between `HUGE` and `HUGE_MAX` are therefore backed by 2 MiB transparent huge pages where
//! the kernel allows it (`madvise(MADV_HUGEPAGE)` before the first write; with THP
//! disabled the advice is ignored and nothing changes). Such a table is allocated on a
//! 2 MiB boundary and rounded up to a whole huge page ([`Table`]): only whole aligned
//! 2 MiB spans can be huge pages, and a table placed wherever `malloc` put it left its
//! first and last partial spans, a quarter of an 8 MiB map, on 4 KiB pages. Larger tables
//! stay on 4 KiB pages: faulting in gigabytes of huge pages made preconditioning a 1 TiB
//! device 40 % slower (8 s → 12 s, over its 10 s target), more than a run gains
//! (docs/performance.md).
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

/// Elements per parallel fill task (a few per core even for the smallest parallel table).
const PARALLEL_CHUNK: usize = 1 << 16;

/// A fixed-length table of `T`: a slice in its own allocation, aligned to 2 MiB and backed
/// by huge pages when its size is in the huge-page range (module doc), else allocated as a
/// `Vec` would be. Reads and writes go through the slice (`Deref`).
pub struct Table<T> {
    ptr: std::ptr::NonNull<T>,
    len: usize,
    /// How it was allocated (`None`: nothing allocated, for an empty table or a zero-sized `T`).
    layout: Option<std::alloc::Layout>,
}

// SAFETY: a `Table` owns its elements exactly as a `Vec` does.
unsafe impl<T: Send> Send for Table<T> {}
// SAFETY: shared access only hands out `&[T]`.
unsafe impl<T: Sync> Sync for Table<T> {}

impl<T: Copy> Table<T> {
    /// Room for `n` elements, none written yet: each constructor writes all of them through
    /// [`Table::room`] before the table is handed out.
    fn with_room(n: usize) -> Table<T> {
        let bytes = n.checked_mul(std::mem::size_of::<T>()).expect("table size overflows");
        if bytes == 0 {
            return Table { ptr: std::ptr::NonNull::dangling(), len: n, layout: None };
        }
        let huge = (HUGE..=HUGE_MAX).contains(&bytes);
        let layout = if huge {
            std::alloc::Layout::from_size_align(bytes.next_multiple_of(HUGE), HUGE)
        } else {
            std::alloc::Layout::array::<T>(n)
        }
        .expect("table layout");
        // SAFETY: `layout` has a non-zero size.
        let p = unsafe { std::alloc::alloc(layout) };
        let Some(ptr) = std::ptr::NonNull::new(p.cast::<T>()) else { std::alloc::handle_alloc_error(layout) };
        if huge {
            advise_huge(p, layout.size());
        }
        Table { ptr, len: n, layout: Some(layout) }
    }

    /// The room as not yet written elements.
    fn room(&mut self) -> &mut [std::mem::MaybeUninit<T>] {
        // SAFETY: `ptr` has room for `len` elements; `MaybeUninit` makes no claim on them.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr().cast(), self.len) }
    }
}

impl<T> std::ops::Deref for Table<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` holds `len` initialised elements (dangling when nothing was
        // allocated: no element, or zero-sized ones).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> std::ops::DerefMut for Table<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as for `deref`, and `&mut self` makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> Drop for Table<T> {
    fn drop(&mut self) {
        if let Some(layout) = self.layout {
            // SAFETY: allocated in `with_room` with this layout; `T: Copy` (the only tables
            // built) needs no drop of its elements.
            unsafe { std::alloc::dealloc(self.ptr.as_ptr().cast::<u8>(), layout) }
        }
    }
}

impl<T: Copy> Clone for Table<T> {
    fn clone(&self) -> Table<T> {
        copied(self)
    }
}

impl<T: Copy> Default for Table<T> {
    fn default() -> Table<T> {
        Table::with_room(0)
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Table<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// A table of `n` copies of `value`, backed by huge pages where available and worthwhile.
pub fn filled<T: Copy + Send + Sync>(n: usize, value: T) -> Table<T> {
    let mut v = Table::<T>::with_room(n);
    let bytes = n * std::mem::size_of::<T>();
    if bytes >= PARALLEL_FILL {
        use rayon::prelude::*;
        // Writes every element of the room reserved (and advised) above.
        v.room().par_chunks_mut(PARALLEL_CHUNK).for_each(|c| c.iter_mut().for_each(|x| _ = x.write(value)));
    } else {
        v.room().iter_mut().for_each(|x| _ = x.write(value));
    }
    v
}

/// A table of `n` pairs, `pair[0]` at each even index and `pair[1]` at the odd one after it
/// (`2n` elements): filled as `n` words, so the fill writes each pair at once.
pub fn filled_pairs(n: usize, pair: [u32; 2]) -> Table<u32> {
    let mut bytes = [0u8; 8];
    bytes[..4].copy_from_slice(&pair[0].to_ne_bytes());
    bytes[4..].copy_from_slice(&pair[1].to_ne_bytes());
    let words = std::mem::ManuallyDrop::new(filled(n, u64::from_ne_bytes(bytes)));
    // The same allocation, read as twice as many `u32` (its alignment, 8, suits them); the
    // layout kept is the one it was allocated with, for `Drop`.
    Table { ptr: words.ptr.cast(), len: 2 * words.len, layout: words.layout }
}

/// A copy of `src`, backed by huge pages where available and worthwhile as [`filled`]'s
/// tables are (a plain copy would put a copied table back on 4 KiB pages, and a run on it
/// would pay the page walks `filled` avoids). Copied on the calling thread: copies are taken
/// by runs that already go in parallel, and a parallel copy let the copying thread take up
/// another run while it waited (rayon's work stealing), holding two devices at once.
pub fn copied<T: Copy>(src: &[T]) -> Table<T> {
    let mut v = Table::<T>::with_room(src.len());
    for (x, &y) in v.room().iter_mut().zip(src) {
        x.write(y);
    }
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
    fn paired_tables_alternate_their_two_values() {
        for n in [0, 1, 1000, (PARALLEL_FILL / 8) + 3] {
            let v = filled_pairs(n, [0xdead_beef, 7]);
            assert_eq!(v.len(), 2 * n);
            assert!(v.chunks(2).all(|p| p == [0xdead_beef, 7]));
        }
    }

    #[test]
    fn copied_tables_equal_their_source() {
        for n in [0, 1, 1000, (3 << 20) + 5, (PARALLEL_FILL / 4) + 3] {
            let src: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
            assert_eq!(&copied(&src)[..], &src[..]);
            assert_eq!(&copied(&src).clone()[..], &src[..]);
        }
    }

    /// A table in the huge-page range starts on a 2 MiB boundary (so all of it can be
    /// backed by huge pages); the others are where the allocator put them, aligned for `T`.
    #[test]
    fn huge_tables_are_aligned_to_huge_pages() {
        let t = filled::<u32>(HUGE / 4 + 1000, 7);
        assert_eq!(t.as_ptr() as usize % HUGE, 0);
        assert_eq!(t.len(), HUGE / 4 + 1000);
        let c = copied(&t);
        assert_eq!(c.as_ptr() as usize % HUGE, 0);
        let small = filled::<u64>(1000, 1);
        assert_eq!(small.as_ptr() as usize % 8, 0);
        let empty = filled::<u32>(0, 1);
        assert!(empty.is_empty());
        assert_eq!(filled(5, ()).len(), 5);
        assert!(Table::<u64>::default().is_empty());
    }
}
