// Compiled against twice_models alone by the `layers_roots` test, which
// passes only when this file does NOT compile, for the second include: the
// models' include roots hold their own directories and sim/, not checks/
// (twice_layer_headers in the top-level CMakeLists.txt). The first include
// must be found, so a broken root cannot pass for a working one.
#include "world/world.hpp"
#include "checks/invariants.hpp"
