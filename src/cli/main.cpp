// The `twice` command line; the app itself is in cli/app.cpp.

#include <twice/cli/main.hpp>

int main(int argc, char** argv) { return twice::main(argc, argv); }
