/* Cache mode dram on machines that report any LLC: the rotation spans 4x the LLC where half
 * the available memory allows it, is capped (and says so) where it does not, and is refused where
 * even the cap cannot span the LLC - never more than half the memory, whatever the host reports.
 * Machines are described here, not read from this host. */
#include <string.h>

#include "bench/gemm_bench.h"
#include "check.h"

static const size_t MiB = (size_t)1 << 20, GiB = (size_t)1 << 30;

static bb_machine machine(size_t l3, size_t mem_available)
{
    bb_machine m;
    memset(&m, 0, sizeof m);
    m.l2 = 2 * MiB;
    m.l3 = l3;
    m.mem_available = mem_available;
    return m;
}

/* Copies for psize on machine m; -1 when refused. */
static long copies_for(const bb_machine *m, size_t psize, char *err, size_t errlen)
{
    int n = 0;
    if (bb_cache_copies(BB_CACHE_DRAM, psize, 1, m, &n, err, errlen)) return -1;
    return n;
}

int main(void)
{
    char err[512], what[200];
    size_t sizes[] = {4096, 590 * 1024, 70 * MiB, 300 * MiB};
    /* a VM that reports its host's 480 MiB L3, with 22 GiB free: 4x the LLC, far under the cap */
    bb_machine vm = machine(480 * MiB, 22 * GiB);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        long n = copies_for(&vm, sizes[i], err, sizeof err);
        double total = (double)n * sizes[i];
        CHECK(n >= 2 && total > 4.0 * 480 * MiB && total <= 11.0 * GiB, "480 MiB LLC, %zu-byte matrix: %ld copies",
              sizes[i], n);
        bb_cache_describe(BB_CACHE_DRAM, sizes[i], (int)n, 1, &vm, what, sizeof what);
        CHECK(strstr(what, "rotated") && strstr(what, "the 480 MiB LLC") && !strstr(what, "capped"), "%s", what);
    }
    /* a 32 MiB victim L3 (the Zen 4 guest where 2x left 8-stream reads partly in it): past 128 MiB */
    bb_machine zen4 = machine(32 * MiB, 22 * GiB);
    long nz = copies_for(&zen4, 4423680, err, sizeof err);
    CHECK(nz > 0 && (double)nz * 4423680 > 4.0 * 32 * MiB, "32 MiB LLC, i2_s 6912 x 2560: %ld copies", nz);
    /* a host reporting an 8 GiB LLC with 24 GiB free: capped at 12 GiB, still more than the LLC */
    bb_machine big = machine(8 * GiB, 24 * GiB);
    long n = copies_for(&big, 70 * MiB, err, sizeof err);
    CHECK(n > 0 && (double)n * 70 * MiB <= 12.0 * GiB && (double)n * 70 * MiB > 8.0 * GiB, "capped: %ld copies", n);
    bb_cache_describe(BB_CACHE_DRAM, 70 * MiB, (int)n, 1, &big, what, sizeof what);
    CHECK(strstr(what, "capped at half the available memory") != NULL, "the cap is said: %s", what);
    /* an LLC larger than half the memory cannot be spanned: refused, with the way out */
    bb_machine absurd = machine(16 * GiB, 24 * GiB);
    CHECK(copies_for(&absurd, 70 * MiB, err, sizeof err) == -1 && strstr(err, "use cache mode resident") &&
              strstr(err, "16384 MiB LLC"),
          "refused: %s", err);
    /* a matrix bigger than half the memory: refused */
    bb_machine small = machine(32 * MiB, 1 * GiB);
    CHECK(copies_for(&small, 600 * MiB, err, sizeof err) == -1, "600 MiB matrix in 1 GiB: %s", err);
    /* available memory unknown (0): no cap */
    bb_machine unknown = machine(480 * MiB, 0);
    CHECK(copies_for(&unknown, 590 * 1024, err, sizeof err) * 590.0 * 1024 > 1920.0 * MiB, "no cap when unknown");
    /* resident: one copy */
    int one = 0;
    CHECK(bb_cache_copies(BB_CACHE_RESIDENT, 70 * MiB, 1, &vm, &one, err, sizeof err) == 0 && one == 1, "resident");
    bb_cache_describe(BB_CACHE_RESIDENT, 70 * MiB, 1, 1, &vm, what, sizeof what);
    CHECK(!strcmp(what, "1 copy of 70.00 MiB"), "%s", what);
    return check_summary("test_cache_rotation");
}
