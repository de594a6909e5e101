#include <twice/sim/frame_pool.hpp>

#include <array>
#include <new>

namespace twice::sim::detail {

#if defined(TWICE_FRAME_POOL_OFF)

void* allocate_frame(std::size_t bytes) { return ::operator new(bytes); }
void free_frame(void* frame, std::size_t) noexcept { ::operator delete(frame); }

#else

namespace {

constexpr std::size_t kStep = 64;
constexpr std::size_t kClasses = 64;  // up to 4 KiB

struct free_block {
  free_block* next;
};

class frame_cache {
 public:
  frame_cache() = default;
  frame_cache(const frame_cache&) = delete;
  frame_cache& operator=(const frame_cache&) = delete;
  ~frame_cache() {
    for (std::size_t c = 0; c < kClasses; ++c)
      while (free_block* b = heads_[c]) {
        heads_[c] = b->next;
        ::operator delete(b);  // unsized: clang does not enable sized deallocation by default
      }
  }

  void* take(std::size_t cls) {
    if (free_block* b = heads_[cls]) {
      heads_[cls] = b->next;
      return b;
    }
    return ::operator new((cls + 1) * kStep);
  }

  void give(void* frame, std::size_t cls) noexcept {
    auto* b = static_cast<free_block*>(frame);
    b->next = heads_[cls];
    heads_[cls] = b;
  }

 private:
  std::array<free_block*, kClasses> heads_{};
};

thread_local frame_cache cache;

std::size_t class_of(std::size_t bytes) { return (bytes + kStep - 1) / kStep - 1; }

}  // namespace

void* allocate_frame(std::size_t bytes) {
  const std::size_t cls = class_of(bytes);
  return cls < kClasses ? cache.take(cls) : ::operator new(bytes);
}

void free_frame(void* frame, std::size_t bytes) noexcept {
  const std::size_t cls = class_of(bytes);
  if (cls < kClasses)
    cache.give(frame, cls);
  else
    ::operator delete(frame);
}

#endif

}  // namespace twice::sim::detail
