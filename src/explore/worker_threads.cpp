#include "explore/worker_threads.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace twice::explore {

void run_on_threads(unsigned threads, const std::function<void()>& work, const std::function<void()>& poll) {
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
  // The WebAssembly build has no threads (scripts/web.sh): the one worker
  // runs here, and the page's Web Worker keeps the page responsive.
  (void)threads;
  work();
  if (poll) poll();
#else
  threads = std::max(threads, 1u);
  std::mutex m;
  std::condition_variable finished;
  std::atomic<unsigned> running{threads};
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      work();
      --running;
      const std::lock_guard<std::mutex> lock(m);
      finished.notify_one();
    });
  }
  {
    std::unique_lock<std::mutex> lock(m);
    while (running.load() > 0) {
      finished.wait_for(lock, std::chrono::milliseconds(100));
      if (poll) {
        lock.unlock();
        poll();
        lock.lock();
      }
    }
  }
  for (std::thread& t : pool) t.join();
  if (poll) poll();
#endif
}

}  // namespace twice::explore
