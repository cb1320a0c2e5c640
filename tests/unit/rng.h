/* A small deterministic random source for the unit tests' random cases (xorshift64), seeded per case. */
#ifndef LLMGATE_TEST_RNG_H
#define LLMGATE_TEST_RNG_H

#include <stdint.h>

static uint64_t test_rng_state;

/* Starts the sequence of case `seed` (any value but 0 gives a full-period sequence). */
static inline void test_rng_seed(uint64_t seed) { test_rng_state = seed * 0x9e3779b97f4a7c15ull; }

/* The next number below n (n > 0). */
static inline uint32_t rnd(uint32_t n)
{
    test_rng_state ^= test_rng_state << 13;
    test_rng_state ^= test_rng_state >> 7;
    test_rng_state ^= test_rng_state << 17;
    return (uint32_t)(test_rng_state % n);
}

#endif
