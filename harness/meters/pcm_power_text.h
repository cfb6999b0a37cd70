/* Parsing Intel PCM's pcm-power text output (pcm 202302) and integrating its package and DRAM
 * power over a measured region.
 *
 * pcm-power 202302 has no CSV layout (its -csv option only redirects this text, see
 * pcm_sidecar.h).  The layout, from the main loop of src/pcm-power.cpp in intel/pcm (release
 * 202302; every format string below is also in the strings of the installed /usr/sbin/pcm-power
 * 202302-1), is one block per sample:
 *
 *   ----------------------------------------------------------------------------------------------
 *   Time elapsed: 100 ms
 *   Called sleep function for 100 ms
 *   ...per-socket lines of the counter profiles (S0P0; ..., S0CH0; ..., S0; PCUClocks: ...)...
 *   S0; Consumed energy units: 1234; Consumed Joules: 1.23; Watts: 12.34; Thermal headroom below TjMax: 40
 *   S0; Consumed DRAM energy units: 567; Consumed DRAM Joules: 0.45; DRAM Watts: 4.56
 *   ...the same for S1, ...
 *
 * The dashed line is printed at the top of each loop iteration, so a block is complete when the
 * next dashed line follows it (pcm flushes right after printing it).  Numbers are fixed with two
 * decimals (cout.precision(2)); "Time elapsed" is the sample's own interval in whole ms
 * (getTickCount() difference).  In the file the sidecar's relay writes, each line is prefixed by
 * "SECONDS.NANOSECONDS<TAB>", the epoch time it arrived; a file without the prefixes (a recorded
 * output) parses too, with the sample times NAN. */
#ifndef BB_PCM_POWER_TEXT_H
#define BB_PCM_POWER_TEXT_H

#include <stddef.h>

typedef struct {
    double t;         /* epoch seconds its lines arrived = end of its interval; NAN when unstamped */
    double elapsed_s; /* "Time elapsed", seconds */
    double pkg_w;     /* "Watts" summed over sockets */
    double dram_w;    /* "DRAM Watts" summed over sockets */
    double pkg_j;     /* "Consumed Joules" summed over sockets */
    double dram_j;    /* "Consumed DRAM Joules" summed over sockets */
    int pkg_reported;  /* some socket's package energy units were > 0 */
    int dram_reported; /* some socket's DRAM energy units were > 0 (0 everywhere: PCM has no DRAM
                          energy counter on this CPU and prints zeros) */
} bb_pcm_power_sample;

/* Reads up to max complete samples; returns how many, or -1 with a message (no such file).  A
 * block without a "Consumed Joules" line is skipped; a last block not yet closed by a dashed line
 * is not a sample yet. */
int bb_pcm_parse_power_text(const char *path, bb_pcm_power_sample *out, int max, char *err, size_t errlen);

/* The same, reading on from the end of the last complete block a previous call read (zero-
 * initialize): appends to out[n..max) and returns the new count, or -1 with a message. */
typedef struct {
    long offset; /* bytes consumed: up to the dashed line that closed the last block read */
} bb_pcm_power_reader;
int bb_pcm_read_power_text(bb_pcm_power_reader *r, const char *path, bb_pcm_power_sample *out, int n, int max,
                           char *err, size_t errlen);

typedef struct {
    int samples;   /* samples whose interval midpoint lies in the region (pcm-memory's rule) */
    double pkg_w;  /* time-weighted mean power over the region; NAN when not measured */
    double dram_w;
    double pkg_j;  /* its integral over the region: pkg_w * (t1 - t0) */
    double dram_j;
} bb_pcm_power_region;

/* The region [t0, t1] (epoch seconds).  Sample i covers (t_i - elapsed_i, t_i] with constant
 * power; the power of the region is the mean of the samples' powers weighted by how much of each
 * interval lies in the region (partial overlap at the edges counts in proportion), and the
 * energy is that power times the region's length, i.e. the integral over the region of the
 * sampled power.  Values are given only when at least one sample has its midpoint in the region
 * (the same rule as pcm-memory's bandwidth, bb_pcm_window), else NAN; DRAM (package) values are
 * NAN when no overlapping sample reported DRAM (package) energy.  Returns r->samples. */
int bb_pcm_power_window(const bb_pcm_power_sample *s, int n, double t0, double t1, bb_pcm_power_region *r);

#endif
