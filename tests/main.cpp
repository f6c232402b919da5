// Catch2 v3 brings its own main (Catch2WithMain); v2 needs one translation unit to define it.
#if defined(LADDER_CATCH2_V2_MAIN)
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#endif
