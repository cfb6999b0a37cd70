/* A PCM tool run as a sidecar process for the length of a run: started once, read through the
 * files it writes, stopped with SIGINT (PCM restores the counters it programmed on SIGINT).
 *
 * pcm-memory writes its own CSV file (-csv=FILE).  pcm-power 202302 has no CSV layout: -csv=FILE
 * only sends its text output to FILE and then never flushes it per sample (src/pcm-power.cpp,
 * main loop: `if (!csv) cout << flush;`), and the text carries no timestamps.  So its stdout is
 * read through a pipe by a relay process that writes each line to a file prefixed with the epoch
 * time it arrived ("SECONDS.NANOSECONDS<TAB>line"); without -csv pcm-power flushes each sample as
 * soon as it is printed, so a line's arrival time is the end of its sample's interval to within
 * the pipe's latency. */
#ifndef BB_PCM_SIDECAR_H
#define BB_PCM_SIDECAR_H

#include <stddef.h>
#include <sys/types.h>

typedef struct {
    pid_t pid;   /* the tool; 0 once it is reaped */
    pid_t relay; /* the line stamper of a stamped sidecar; 0 when none or reaped */
} bb_pcm_sidecar;

/* Starts argv[0] with argv (NULL-terminated), stdin from /dev/null, stderr to log.  stdout goes
 * to log too, or, when stamped_out is not NULL, through the relay into stamped_out.  Returns 0, or
 * -1 with a message (pipe or fork failed; nothing is left running). */
int bb_pcm_sidecar_start(bb_pcm_sidecar *s, char *const argv[], const char *log, const char *stamped_out, char *err,
                         size_t errlen);

/* 1 when the tool has exited (reaped now or before; *status is its wait status, or -1 when it was
 * reaped earlier), 0 while it runs. */
int bb_pcm_sidecar_exited(bb_pcm_sidecar *s, int *status);

/* SIGINT, up to 1 s for the tool to restore its counters and exit, then SIGKILL; the relay ends
 * when the pipe closes.  Both are reaped.  Safe on a stopped sidecar. */
void bb_pcm_sidecar_stop(bb_pcm_sidecar *s);

#endif
