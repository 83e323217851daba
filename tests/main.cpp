// The Catch2 main of every test binary (the object library zkpipe_catch_main).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
