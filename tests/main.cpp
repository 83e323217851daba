// The Catch2 main of zkpipe_tests and zkpipe_proof_tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
