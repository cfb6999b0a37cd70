/* Memory for every layer: aligned and streamed allocation, and plain reads of buffers (the
 * "weights read alone" bound the gemm bench and the engine set their kernels beside, and the
 * loops `bitbench roofline` measures read bandwidth with). */
#ifndef BB_MEMORY_H
#define BB_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pool.h"

/* 64-byte aligned allocation; NULL on failure.  Free with free(). */
void *bb_alloc(size_t bytes);
/* For weights that are streamed (packed matrices, their DRAM-mode copies): 2 MiB-aligned and
 * advised for transparent huge pages when 4 MiB or more, since a GEMV that reads hundreds of MB
 * on 4 KiB pages takes a TLB miss every 4 KiB (Linux gives huge pages only on request in its
 * "madvise" mode).  Free with free(). */
void *bb_alloc_stream(size_t bytes);

/* Seconds for the pool to read buffers bufs[0..n) once, in order, each thread its contiguous
 * share of each buffer, with the plain 64-byte loads of the DRAM read figure (the engine's
 * "weights read alone" bound), that share read as `streams` parts in lockstep (1: front to back).
 * Each buffer is read from its first 64-byte boundary in whole 256-byte units (at most 63 bytes
 * before and 255 after are skipped; the engine's buffers start on cache lines); *read (may be
 * NULL) gets the bytes read. */
double bb_read_buffers(bb_pool *pool, const void *const *bufs, const size_t *bytes, int n, int streams, size_t *read);

/* The read-alone bound is the faster of two reads of the same bytes, timed side by side: one
 * stream per thread, and this many.  One stream is not always the machine's read rate: a GEMV
 * that reads several rows at once (f16's 8, baselines/f16_avx512.c) keeps more lines in flight
 * and was measured faster than a one-stream read of its own bytes (Xeon guest with AMX,
 * docs/measurements/2026-11-30-q8_0_x16.md).  8 and 16 streams read alike there, 4 as fast or
 * slower, 2 and 1 slower (docs/measurements/2026-11-30-read-streams.md). */
#define BB_READ_STREAMS 8

/* The read loops (read_simd.c): `bytes` (a multiple of 256) from p (64-byte aligned), loaded
 * and xor-ed, no other arithmetic, as `streams` equal parts read in lockstep, 256 bytes of each
 * in turn (1 or less: front to back).  Return the xor of the 64-bit words read (each read once,
 * in whatever order: tests/test_read_streams.c).  bb_read512 needs AVX-512F
 * (bb_read512_usable), bb_read256 AVX2 on x86-64; on aarch64 bb_read256 reads with NEON and
 * bb_read512_usable is false. */
bool bb_read512_usable(void);
uint64_t bb_read512(const void *p, size_t bytes, int streams);
uint64_t bb_read256(const void *p, size_t bytes, int streams);

#endif
