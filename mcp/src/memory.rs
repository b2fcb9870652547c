//! Giving freed memory back to the system after a large request.
//!
//! A request near the size limit is parsed into a tree several times its size. When it is
//! done, the allocator keeps those pages for later: glibc's malloc returns memory to the
//! system only from the top of each arena, and a burst of large requests spread over
//! several threads' arenas leaves most of it resident. `malloc_trim(0)` walks every arena
//! and releases the free pages, so a server's memory falls back after a burst instead of
//! staying at its peak.
//!
//! Other allocators (musl's, or a `#[global_allocator]` such as jemalloc or mimalloc) have
//! their own policies; there this does nothing.

#![allow(unsafe_code)]

/// Asks the allocator to return freed pages to the system, off the async threads (it walks
/// every arena, which takes a few milliseconds after a large burst).
pub(super) fn give_back_freed() {
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => {
            runtime.spawn_blocking(trim);
        }
        Err(_) => trim(),
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn trim() {
    unsafe extern "C" {
        /// glibc's `int malloc_trim(size_t pad)` (malloc.h).
        fn malloc_trim(pad: usize) -> std::ffi::c_int;
    }
    // SAFETY: malloc_trim takes no pointers and has no preconditions; it is safe to call at
    // any time from any thread (it takes each arena's lock), whatever else is allocating.
    // With a custom #[global_allocator] it only trims glibc's (then unused) arenas.
    unsafe {
        malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim() {}
