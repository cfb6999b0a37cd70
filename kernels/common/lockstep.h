/* Decode's weight streams in lockstep.  From DRAM, one forward stream per thread does not draw
 * the memory's rate on every host: on the Xeon with AMX (2026-11-30) a plain read of a thread's
 * share took 1.2-1.3x the time of the same bytes read as 8 streams in lockstep, and the kernels
 * that read their rows one after the other took as long as the one-stream read, whatever their
 * prefetch distances.  So at N = 1 a kernel reads the units of its call (rows, or groups of
 * interleaved rows) as up to BB_LOCKSTEP_STREAMS streams: pass j takes unit j of each part of
 * the call, and steps through them together, a line or a record of each in turn
 * (docs/measurements/2026-11-30-read-streams.md, "Four streams in lockstep").  Not on every CPU:
 * where kernels/cpu.h's rule leaves one stream to the hardware (Zen 4), the x16 readers walk
 * their groups in order without software prefetch instead (mad/x16_rows_avx512.h).
 *
 * Prefetching ahead within a part does not work: a part of a 32 KiB chunk (BB_CHUNK_BYTES) is
 * 8-11 KiB, so a far prefetch lands in the next part's lines, already read.  The far prefetch
 * goes instead to the same place one call ahead (bb_prefetch_interleaved(line, call bytes,
 * near)): the chunk the thread takes next, since an owner takes its chunks in order
 * (bb_pool_run_chunks). */
#ifndef BB_LOCKSTEP_H
#define BB_LOCKSTEP_H

#define BB_LOCKSTEP_STREAMS 4

/* Passes over a call of `units` units: the length of its longest part. */
static inline int bb_lockstep_passes(int units)
{
    return (units + BB_LOCKSTEP_STREAMS - 1) / BB_LOCKSTEP_STREAMS;
}

/* The units of pass j (0 <= j < bb_lockstep_passes(units)), one per part that still has one, in
 * unit[0..live); returns live (1 to BB_LOCKSTEP_STREAMS).  Every unit is in exactly one pass. */
static inline int bb_lockstep_units(int units, int j, int unit[BB_LOCKSTEP_STREAMS])
{
    int passes = bb_lockstep_passes(units), live = 0;
    for (int u = j; u < units && live < BB_LOCKSTEP_STREAMS; u += passes) unit[live++] = u;
    return live;
}

#endif
