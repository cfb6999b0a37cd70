/* Parsing Intel PCM's pcm-memory CSV output (pcm 202302, `pcm-memory INTERVAL -csv=FILE -f`) and
 * aligning its samples with a measured region.
 *
 * The layout is that of display_bandwidth_csv() in src/pcm-memory.cpp and printDateForCSV() in
 * src/utils.h of intel/pcm, release 202302 (checked against the installed 202302-1 binary: its
 * strings hold the same header fragments, and its machine code of printDateForCSV pads with '0'
 * and writes the '.' and milliseconds).  Two header rows, then one row per sample:
 *
 *   ,,SKT0,SKT0,...,SKT0,System,System,System
 *   Date,Time,Ch0Read,Ch0Write,...,Mem Read (MB/s),Mem Write (MB/s),P. Write (T/s),Memory (MB/s),Read,Write,Memory
 *   2023-02-21,09:05:03.123,  812.34,  301.20,...
 *
 * The first row names each column's group (empty for Date and Time, "SKT<n>" per socket,
 * "System"), the second the quantity.  Separator ','; no quoting; every row ends in '\n' with no
 * trailing comma.  Per socket: ChNRead,ChNWrite for every channel slot (a channel without traffic
 * writes two empty cells in data rows), Mem Read/Mem Write (MB/s), then depending on the mode
 * (PMM columns with -pmm, "P. Write (T/s)" in the default partial-writes mode) and "Memory
 * (MB/s)"; with PMM the System group starts with DRAMRead,DRAMWrite,PMMREAD,PMMWrite; it always
 * ends with Read,Write,Memory (MB/s, DRAM + PMM).  Values are fixed with two decimals, padded to
 * 8 characters (System: 10) with leading spaces.  Date and Time are the local time the row was
 * printed, i.e. the end of the sample's interval: zero-padded YYYY-MM-DD and HH:MM:SS.mmm.  pcm
 * flushes the file per sample only with -f ("enforce flushing output"); without it rows reach
 * the file in buffer-sized bursts. */
#ifndef BB_PCM_CSV_H
#define BB_PCM_CSV_H

#include <stddef.h>

typedef struct {
    double t;          /* end of the sample's interval, seconds since the epoch */
    double read_mbps;  /* system DRAM read bandwidth, MB/s */
    double write_mbps; /* system DRAM write bandwidth, MB/s */
} bb_pcm_sample;

/* Reads up to max samples; returns how many, or -1 with a message (no such file, headers
 * without the System Read/Write or Mem Read/Write columns).  DRAM bandwidth is System
 * DRAMRead/DRAMWrite where present (PMM modes, where System Read/Write include PMM), else System
 * Read/Write, else the sum of the sockets' Mem Read/Mem Write.  A last row cut short by a writer
 * still running is skipped. */
int bb_pcm_parse_memory_csv(const char *path, bb_pcm_sample *out, int max, char *err, size_t errlen);

/* The same, reading on from where the last call stopped: a live sidecar's file is read once,
 * not again from the start at every poll.  Zero-initialize; the headers are read on the first
 * call that finds them complete. */
typedef struct {
    long offset; /* bytes consumed: the headers and every complete row read so far */
    int ncols;   /* columns of the header; 0 until the headers are read */
    int date, clock, sys_rd, sys_wr; /* column indexes; sys_rd -1: sum the sockets' columns */
    int nrd, nwr, rd[64], wr[64];    /* the sockets' Mem Read / Mem Write columns */
} bb_pcm_memory_reader;

/* Appends the complete rows written since the last call to out[n..max); returns the new count,
 * or -1 with a message (as bb_pcm_parse_memory_csv). */
int bb_pcm_read_memory_csv(bb_pcm_memory_reader *r, const char *path, bb_pcm_sample *out, int n, int max, char *err,
                           size_t errlen);

/* The samples of a region [t0, t1] (epoch seconds) taken every dt seconds: those whose interval
 * (t - dt, t] has its midpoint inside the region.  Averages their bandwidths into *rd and *wr and
 * returns their count (0: none, *rd and *wr untouched). */
int bb_pcm_window(const bb_pcm_sample *s, int n, double t0, double t1, double dt, double *rd, double *wr);

#endif
