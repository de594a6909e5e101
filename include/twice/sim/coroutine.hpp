#pragma once
// The C++20 coroutine library, from <coroutine> where the standard library
// has it, else from <experimental/coroutine>: the libc++ of Debian's
// emscripten 3.1.6 (the WebAssembly build, scripts/web.sh) ships only the
// latter, whose types clang 14 accepts under their C++20 names once they are
// in namespace std. Include this instead of <coroutine>.

#if __has_include(<coroutine>)
#include <coroutine>
#else
#include <experimental/coroutine>

namespace std {
using std::experimental::coroutine_handle;
using std::experimental::coroutine_traits;
using std::experimental::noop_coroutine;
using std::experimental::noop_coroutine_handle;
using std::experimental::suspend_always;
using std::experimental::suspend_never;
}  // namespace std
#endif
