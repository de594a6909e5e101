#pragma once
// Coroutine frames come from here (task promises' operator new/delete).
// Every co_await of a task allocates a frame and every return frees it:
// a job's slice makes a hundred or so, so malloc was the largest single cost
// of a world run. Freed frames are kept on per-thread free lists by size
// class (64-byte steps up to 4 KiB) and handed out again; bigger frames go to
// operator new. Nothing here touches the schedule: which block a frame gets
// changes no event, no draw and no trace record.
//
// Per thread: `twice explore` runs one world per thread, and a world's frames
// are created and destroyed on its thread. A block freed on another thread
// simply joins that thread's list. A thread's cached blocks are freed when it
// exits.
//
// Sanitizer builds (TWICE_SANITIZE) and -DTWICE_FRAME_POOL=OFF bypass the
// pool, so AddressSanitizer and valgrind still see every frame freed and
// report any use after a kill.

#include <cstddef>

namespace twice::sim::detail {

void* allocate_frame(std::size_t bytes);
void free_frame(void* frame, std::size_t bytes) noexcept;

}  // namespace twice::sim::detail
