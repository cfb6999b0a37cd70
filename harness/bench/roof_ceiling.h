/* The roofline ceiling that applies to one measured point, and the point's fraction of it (the
 * results' roofline_fraction column).  The ceilings are those `bitbench roofline` measured into a
 * machine profile (bench/roofline.h): read bandwidth per level and thread count, and the compute
 * peaks on 1 thread and on all of the profile's threads.  Attainable performance is
 * min(compute peak, arithmetic intensity x bandwidth of the level holding the working set), so
 * the fraction attained is max(gops / peak, gbps / bandwidth) (Williams et al.'s roofline, as the
 * plots draw it: docs/measurement.md).  A ceiling the profile did not measure — a thread count it
 * has no bandwidth or peak for, a level it read nothing from — gives no fraction and says so:
 * never an interpolated or assumed number. */
#ifndef BB_ROOF_CEILING_H
#define BB_ROOF_CEILING_H

#include <stdbool.h>
#include <stddef.h>

#include "bench/cache_sizing.h"
#include "bench/roofline.h"
#include "support/machine.h"

typedef struct {
    char path[1024];
    char cpu_model[128];
    int maxthreads;                                     /* the profile's "all threads" */
    double bw[BB_ROOF_MAX_THREADS + 1][BB_ROOF_LEVELS]; /* GB/s; 0 = not measured */
    /* GOP/s (2 per multiply-add): the fastest int8 multiply-add (vpdpbusd, sdot, smmla) and the
     * fp32 FMA, on 1 thread and on maxthreads; 0 = not measured */
    double i8_1t, i8_all, f32_1t, f32_all;
    /* the DRAM ceilings are the faster of 1 and this many streams per thread: the profile's
     * dram_read_streams, 1 for a profile written before it (one stream only) */
    int dram_read_streams;
} bb_roof_ceilings;

/* Read a machine profile.  Returns 0, or -1 with err (unreadable, not a profile, or a profile of
 * another CPU than mach's: its ceilings are not this machine's). */
int bb_roof_ceilings_load(const char *path, const bb_machine *mach, bb_roof_ceilings *c, char *err, size_t errlen);

/* The level (0 L1 .. 3 DRAM, bb_roof_level_names) whose bandwidth bounds a point: the level its
 * cache mode sized it for; for resident, the smallest level whose capacity for `threads` holds
 * the rotated bytes (cache_sizing.h), DRAM when none does. */
int bb_roof_level_of(bb_cache_mode mode, size_t rotated_bytes, int threads, const bb_machine *mach);

/* fraction = max(gops / peak, gbps / bw[threads][level]), with the fp32 peak for a kernel of 16
 * or more bits per weight (float weights) and the int8 one otherwise.  Returns true with
 * *fraction and `ceiling` naming the bound that applies ("L2 read 2 threads"); false with
 * *fraction = NAN and `ceiling` saying which ceiling was not measured. */
bool bb_roofline_fraction(const bb_roof_ceilings *c, int level, int threads, double bits_per_weight, double gops,
                          double gbps, double *fraction, char *ceiling, size_t len);

#endif
