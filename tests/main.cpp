// The Catch2 main of zkpipe_tests, zkpipe_proof_tests and zkpipe_memory_tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
