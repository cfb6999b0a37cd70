/* Parsing Intel PCM's pcm-memory CSV output (pcm 202302, `pcm-memory INTERVAL -csv=FILE`) and
 * aligning its samples with a measured region.
 *
 * The file has two header rows: the first names the group of each column ("SKT0", ...,
 * "System"), the second the quantity ("Date", "Time", "Ch0Read", ..., "Mem Read (MB/s)",
 * "Mem Write (MB/s)", ..., and under System "Read", "Write", "Memory"); then one row per sample,
 * stamped with the local date and time (milliseconds) at which the sample's interval ended. */
#ifndef BB_PCM_CSV_H
#define BB_PCM_CSV_H

#include <stddef.h>

typedef struct {
    double t;          /* end of the sample's interval, seconds since the epoch */
    double read_mbps;  /* system DRAM read bandwidth, MB/s */
    double write_mbps; /* system DRAM write bandwidth, MB/s */
} bb_pcm_sample;

/* Reads up to max samples; returns how many, or -1 with a message (no such file, headers
 * without the System Read/Write or Mem Read/Write columns).  A last row cut short by a writer
 * still running is skipped. */
int bb_pcm_parse_memory_csv(const char *path, bb_pcm_sample *out, int max, char *err, size_t errlen);

/* The samples of a region [t0, t1] (epoch seconds) taken every dt seconds: those whose interval
 * (t - dt, t] has its midpoint inside the region.  Averages their bandwidths into *rd and *wr and
 * returns their count (0: none, *rd and *wr untouched). */
int bb_pcm_window(const bb_pcm_sample *s, int n, double t0, double t1, double dt, double *rd, double *wr);

#endif
