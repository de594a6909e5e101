# The WebAssembly build (scripts/web.sh, Debian's emscripten 3.1.6).
#
# Exceptions on: the worker throws through coroutines and the kernel
# rethrows. Emscripten's JavaScript-based exceptions (-fexceptions), which
# every browser runs. The WebAssembly exception-handling proposal
# (-fwasm-exceptions) also builds with this emscripten and runs a
# throw-through-a-coroutine test under Node 20; which of the two is smaller
# and faster for twice has not been measured yet.
add_compile_options(-fexceptions)
add_link_options(-fexceptions)
# The coroutines hand control over by symmetric transfer (an await_suspend
# that returns the next handle), which clang lowers to a guaranteed tail
# call: WebAssembly's tail-call feature, in V8 since 11.2 (Node 20,
# Chromium 112).
add_compile_options(-mtail-call)
add_link_options(-mtail-call)
# Its libc++ has only <experimental/coroutine> (twice/sim/coroutine.hpp),
# whose names clang 14 flags as going away in LLVM 15.
add_compile_options(-Wno-deprecated-experimental-coroutine)

# The libraries' dependencies as header-only targets, for a cross build that
# cannot link the host's libraries (the WebAssembly build, scripts/web.sh):
# fmt with FMT_HEADER_ONLY, toml++, nlohmann-json and xxhash with
# XXH_INLINE_ALL, all from TWICE_STAGING_INCLUDE, a folder that exposes only
# them (never the host's whole /usr/include, whose C library headers are not
# the target's). The targets keep the names find_package gives natively, so
# src/CMakeLists.txt links the same names in both builds.
set(TWICE_STAGING_INCLUDE "" CACHE PATH "A folder holding only fmt/, toml++/, nlohmann/ and xxhash.h")
if(NOT EXISTS "${TWICE_STAGING_INCLUDE}/fmt/format.h")
  message(FATAL_ERROR "TWICE_STAGING_INCLUDE='${TWICE_STAGING_INCLUDE}' holds no fmt/format.h: "
                      "scripts/web.sh stages fmt/, toml++/, nlohmann/ and xxhash.h there")
endif()
foreach(target fmt::fmt nlohmann_json::nlohmann_json tomlplusplus::tomlplusplus PkgConfig::xxhash)
  add_library(${target} INTERFACE IMPORTED)
  target_include_directories(${target} SYSTEM INTERFACE ${TWICE_STAGING_INCLUDE})
endforeach()
target_compile_definitions(fmt::fmt INTERFACE FMT_HEADER_ONLY)
target_compile_definitions(PkgConfig::xxhash INTERFACE XXH_INLINE_ALL)
# No threads in this build: explore runs its worlds one after another
# (explore/worker_threads.cpp runs a single worker on the calling thread).
add_library(Threads::Threads INTERFACE IMPORTED)
