// The `twice` command line; the app itself is in cli/app.cpp.

#include "cli/app.hpp"

int main(int argc, char** argv) { return twice::cli::main_command(argc, argv); }
