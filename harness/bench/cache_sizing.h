/* Working sets by cache level (likwid-bench's L1-, L2-, L3-sized streams, for GEMM): how many
 * copies of a packed weight matrix a point rotates through so that what it reads every call sits
 * in the level asked for.
 *
 *   resident  one copy, repeated: it stays in whichever level holds it;
 *   l1 l2 l3  as many copies as fit in half the level's capacity for the point's threads (half: the
 *             activations, outputs, stack and code share the level; the roofline's buffers use half
 *             too, bench/roofline.h), and more than the level below holds for those threads;
 *   dram      enough copies to span BB_DRAM_LLC_SPAN times the last-level cache (capped at half
 *             the available memory), so every call streams its weights from memory.
 *
 * A level's capacity for T threads: L1 and L2 are per core, L3 per socket (or CCX); the threads
 * are assumed packed densely for "fits" (ceil(T / PUs sharing one instance) instances, at most
 * all of them) and spread out for "more than the level below" (min(T, instances)), so a point
 * passes both tests whichever CPUs its threads land on.  The sizes are the machine's
 * (support/machine.h: hwloc, else sysfs; the source goes into every row).  A matrix that does not
 * fit the level, or a level this machine does not report, is refused with the reason — a point
 * never runs another working set than the one it is labelled with. */
#ifndef BB_CACHE_SIZING_H
#define BB_CACHE_SIZING_H

#include <stdbool.h>
#include <stddef.h>

#include "support/machine.h"

/* "From DRAM" means a working set of this many times the last-level cache (gemm's --cache dram,
 * the roofline's DRAM buffer).  Twice was not enough on an AMD EPYC Zen 4 guest (32 MiB L3, a
 * victim cache): over copies spanning 2.1x it, a read of 8 streams in lockstep drew 42-44 GB/s on
 * one core where over 4.1x it drew 33 (one stream: the same either way), and i2_s's GEMV went
 * from 1.36-1.42x that read to 1.07-1.08x (docs/measurements/2026-12-01-zen4.md). */
enum { BB_DRAM_LLC_SPAN = 4 };

typedef enum { BB_CACHE_RESIDENT = 0, BB_CACHE_DRAM, BB_CACHE_L1, BB_CACHE_L2, BB_CACHE_L3 } bb_cache_mode;
#define BB_CACHE_NMODES 5
#define BB_CACHE_MODE_NAMES "l1, l2, l3, resident, dram"

const char *bb_cache_mode_name(bb_cache_mode c);
/* 0, or -1 for a name not among BB_CACHE_MODE_NAMES. */
int bb_cache_mode_parse(const char *s, bb_cache_mode *c);
/* 1, 2 or 3 for l1, l2, l3; 0 otherwise. */
int bb_cache_mode_level(bb_cache_mode c);

/* The data (or unified) cache of a level (1..3) as the machine reports it: bytes per instance,
 * instances, PUs sharing one.  False when the machine reports no such level. */
bool bb_cache_level_info(const bb_machine *m, int level, size_t *size, int *instances, int *shared_by);

/* Bytes of level (1..3) that T threads can count on (packed densely) and can reach at most (spread
 * out); 0 and 0 when the machine does not report the level. */
void bb_cache_level_capacity(const bb_machine *m, int level, int threads, size_t *least, size_t *most);

/* How many packed copies of psize bytes mode c needs on machine mach for a point of `threads`
 * threads.  Returns 0, or -1 with err saying why the working set cannot be made. */
int bb_cache_copies(bb_cache_mode c, size_t psize, int threads, const bb_machine *mach, int *copies, char *err,
                    size_t errlen);
/* What the rotation is: "9 copies of 120.00 MiB = 1080 MiB rotated, 2.2x the 480 MiB LLC",
 * "6 copies of 4.00 KiB = 24.0 KiB rotated, in half the L1d of 1 thread (48.0 KiB = 48.0 KiB x 1, hwloc)". */
void bb_cache_describe(bb_cache_mode c, size_t psize, int copies, int threads, const bb_machine *mach, char *buf,
                       size_t len);

#endif
