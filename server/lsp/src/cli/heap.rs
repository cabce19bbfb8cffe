//! The heap of a command-line call. `skips` or `analyze` builds some 12 MB (the inventory's
//! tables, the report) once and exits; with 4 KiB pages the kernel faults each page in on
//! its first write, about 3,100 faults and a third of the command's time. Backed by
//! transparent huge pages (2 MiB, where the kernel enables them for memory that asks:
//! `madvise` or `always` in /sys/kernel/mm/transparent_hugepage/enabled), the same memory
//! takes a few dozen faults.
//!
//! Only the binary's `main` does this, for a command: the language server lives for hours
//! and hands freed pages back (`server::session::inventory`), and `run_main` also runs
//! inside a Python process whose allocator is not ours to tune.

/// How much heap a command gets up front, in one piece the kernel may back with huge pages.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const UP_FRONT: usize = 64 << 20;

/// The size of a transparent huge page on x86-64 (and on arm64 with 4 KiB pages).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const HUGE_PAGE: usize = 2 << 20;

/// Makes glibc serve this process's allocations from one heap grown by [`UP_FRONT`] at
/// once, and asks the kernel for huge pages there. Call first thing in `main`, before any
/// other thread exists.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn prefer_huge_pages() {
    let up_front = UP_FRONT as libc::c_int;
    // SAFETY: mallopt only sets malloc's parameters, and no other thread is allocating.
    unsafe {
        // Large blocks too from the heap (not a mapping each), which grows by `UP_FRONT`
        // beyond a request and keeps that much when blocks are freed.
        libc::mallopt(libc::M_MMAP_THRESHOLD, up_front);
        libc::mallopt(libc::M_TOP_PAD, up_front);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 2 * up_front);
    }
    // A block larger than the heap's free end makes it grow now; freed, it is part of the
    // free end again, which then reaches the heap's new end.
    // SAFETY: a plain allocation, freed at once; black_box keeps it from being elided.
    let start = unsafe {
        let block = std::hint::black_box(libc::malloc(1 << 20));
        let start = block as usize;
        libc::free(block);
        start
    };
    // Only whole 2 MiB spans can be huge pages: one block, never freed and never written
    // past malloc's header, holds the heap up to the first boundary, so that the blocks
    // served next lie beyond it.
    let boundary = start.next_multiple_of(HUGE_PAGE);
    if boundary - start > 4096 {
        // SAFETY: a plain allocation, kept for the life of the process.
        std::hint::black_box(unsafe { libc::malloc(boundary - start - 64) });
    }
    // SAFETY: sbrk(0) only reads where the heap ends.
    let end = unsafe { libc::sbrk(0) } as usize;
    let start = boundary;
    if start != 0 && end > start && end - start <= 2 * UP_FRONT {
        // SAFETY: [start, end) is page-aligned and inside this process's heap; the advice
        // changes how its pages are backed, never what they hold.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

/// Elsewhere the allocator and the kernel keep their defaults.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn prefer_huge_pages() {}
