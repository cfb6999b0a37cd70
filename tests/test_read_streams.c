/* The plain read loops of the read-alone bound (support/memory.h): with any number of streams
 * they read every 64-bit word of the bytes exactly once (their xor equals the words' xor, which
 * a word read twice or not at all would change for random bytes), on buffers whose unit count
 * is and is not a multiple of the streams; bb_read_buffers reads with either count. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "support/memory.h"
#include "support/pool.h"
#include "support/rng.h"

static uint64_t words_xor(const uint8_t *p, size_t bytes)
{
    uint64_t r = 0;
    for (size_t i = 0; i + 8 <= bytes; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        r ^= w;
    }
    return r;
}

static bool have_read256(void)
{
#if defined(__x86_64__)
    return __builtin_cpu_supports("avx2");
#else
    return true;
#endif
}

int main(void)
{
    const size_t units_list[] = {1, 2, 7, 8, 9, 63, 64, 65, 1000, 4099};
    const int streams_list[] = {0, 1, 2, 3, 8, 16, 100};
    size_t max_bytes = 4099 * 256;
    uint8_t *buf = bb_alloc(max_bytes);
    CHECK(buf != NULL, "out of memory");
    if (!buf) return check_summary("read_streams");
    bb_rng r;
    bb_rng_seed(&r, 7);
    for (size_t i = 0; i < max_bytes; i++) buf[i] = (uint8_t)bb_rng_next(&r);
    for (size_t a = 0; a < sizeof units_list / sizeof units_list[0]; a++)
        for (size_t b = 0; b < sizeof streams_list / sizeof streams_list[0]; b++) {
            size_t bytes = units_list[a] * 256;
            int s = streams_list[b];
            uint64_t want = words_xor(buf, bytes);
            if (have_read256())
                CHECK(bb_read256(buf, bytes, s) == want, "bb_read256: %zu bytes in %d streams", bytes, s);
            if (bb_read512_usable())
                CHECK(bb_read512(buf, bytes, s) == want, "bb_read512: %zu bytes in %d streams", bytes, s);
        }
    /* one unit changed: the xor changes, so a loop that skipped it would be caught */
    uint64_t before = bb_read512_usable() ? bb_read512(buf, 1000 * 256, 8) : have_read256() ? bb_read256(buf, 1000 * 256, 8) : 0;
    buf[999 * 256 + 17] ^= 0x40;
    uint64_t after = bb_read512_usable() ? bb_read512(buf, 1000 * 256, 8) : have_read256() ? bb_read256(buf, 1000 * 256, 8) : 1;
    CHECK(before != after, "changing the last unit did not change the xor of 8 streams");

    if (have_read256()) {
        char err[256];
        bb_pool *pool = bb_pool_create(2, err, sizeof err);
        CHECK(pool != NULL, "%s", err);
        if (pool) {
            /* buffers whose start is not on a cache line and whose length is not whole units */
            const void *bufs[3] = {buf + 5, buf + 300 * 256, buf + 2000 * 256};
            size_t bytes[3] = {100 * 256, 3 * 256 + 10, 2099 * 256}, expect = (99 + 3 + 2099) * (size_t)256;
            int counts[] = {1, BB_READ_STREAMS};
            for (int c = 0; c < 2; c++) {
                size_t read = 0;
                double secs = bb_read_buffers(pool, bufs, bytes, 3, counts[c], &read);
                CHECK(secs > 0 && read == expect, "%d streams: read %zu of %zu bytes in %g s", counts[c], read,
                      expect, secs);
            }
            bb_pool_destroy(pool);
        }
    }
    free(buf);
    return check_summary("read_streams");
}
