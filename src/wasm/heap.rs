//! The wasm heap grows in large steps.
//!
//! Rust's wasm allocator (dlmalloc, inside std) grows memory whenever an
//! allocation does not fit, by about what that allocation needs: a first NAMES
//! pipeline (benches/wasm/pipeline-steps.mjs) grew it 112 times, to 175 MB. Each
//! `memory.grow` makes V8 replace the memory's `ArrayBuffer` and account the new
//! bytes as external memory, which starts garbage collections (in Node 20 here:
//! 2,800 grows of 64 KB take 1.1 s, one grow of the same 175 MB 0.6 ms). So,
//! like Emscripten's geometric `sbrk`, whenever an allocation had to grow memory,
//! [`GrowInSteps`] grows it once more by a fifth of the heap (1 MB to 96 MB) and
//! hands that block straight back to dlmalloc, whose next allocations are carved
//! from it. The same run then grows memory 18 times, and its first run is faster
//! (median of 6 fresh Node processes each: party A 630 ms against 787 ms, the
//! matcher 1.81 s against 1.97 s). The block is never written: pages a program
//! does not touch cost the engine no physical memory.

use std::alloc::{GlobalAlloc, Layout, System};
use std::arch::wasm32::memory_size;

const PAGE: usize = 64 * 1024;
const MIN_STEP: usize = 1 << 20;
const MAX_STEP: usize = 96 << 20;

/// `System` (dlmalloc), with a headroom grow after any allocation that grew memory.
pub struct GrowInSteps;

impl GrowInSteps {
    /// Grows memory by a fifth of the heap and frees the block again. Best effort:
    /// if the engine refuses (memory limit), nothing happens and the next
    /// allocation grows memory as it would have without this wrapper.
    fn headroom() {
        let step = (memory_size::<0>() * PAGE / 5).clamp(MIN_STEP, MAX_STEP);
        if let Ok(layout) = Layout::from_size_align(step, 16) {
            // SAFETY: a non-zero size; the block is freed with the layout it was
            // allocated with, and nothing reads or writes it.
            unsafe {
                let block = System.alloc(layout);
                if !block.is_null() {
                    System.dealloc(block, layout);
                }
            }
        }
    }
}

/// What an allocation asks of `System`.
#[derive(Clone, Copy)]
enum Request {
    Alloc,
    Zeroed,
    Realloc(*mut u8, usize),
}

/// One call into `System`, followed by the headroom grow if it grew memory. One
/// function for the three requests: dlmalloc is inlined into it once, not into
/// three methods (about 7 KB of gzipped wasm).
///
/// # Safety
/// As `System.alloc`, `System.alloc_zeroed` and `System.realloc(ptr, layout,
/// new_size)` for the request.
#[inline(never)]
unsafe fn call(request: Request, layout: Layout) -> *mut u8 {
    let pages = memory_size::<0>();
    // SAFETY: the caller's contract, passed on unchanged
    let p = unsafe {
        match request {
            Request::Alloc => System.alloc(layout),
            Request::Zeroed => System.alloc_zeroed(layout),
            Request::Realloc(ptr, new_size) => System.realloc(ptr, layout, new_size),
        }
    };
    if memory_size::<0>() != pages {
        GrowInSteps::headroom();
    }
    p
}

// SAFETY: every method delegates to `System` with the caller's arguments
// unchanged, so `System`'s guarantees hold; `headroom` allocates and frees a
// block of its own, which does not touch the caller's memory.
unsafe impl GlobalAlloc for GrowInSteps {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        unsafe { call(Request::Alloc, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        unsafe { call(Request::Zeroed, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        unsafe { call(Request::Realloc(ptr, new_size), layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static HEAP: GrowInSteps = GrowInSteps;
