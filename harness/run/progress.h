/* One progress line on stderr while a run goes: points done / total, elapsed, estimated time
 * remaining, the current point.  Only when stderr is a terminal and not --quiet: nothing of it
 * reaches a log file or a pipe.  The line is redrawn in place (\r) and erased before anything
 * else is printed and at the end. */
#ifndef BB_PROGRESS_H
#define BB_PROGRESS_H

#include <stdbool.h>

typedef struct {
    bool enabled;
    int total, done;      /* points of the whole plan, points finished (earlier sessions included) */
    int session_done;     /* points finished by this process (for the estimate) */
    double t_start;
    int width;            /* of the last line drawn, to erase it */
} bb_progress;

/* enabled = the caller's wish (not --quiet); it is further limited to a terminal stderr. */
void bb_progress_init(bb_progress *p, int total, int already_done, bool enabled);
/* Show that `label` is being measured. */
void bb_progress_show(bb_progress *p, const char *label);
/* One more point finished. */
void bb_progress_step(bb_progress *p);
/* Erase the line (before other output, and at the end). */
void bb_progress_clear(bb_progress *p);

#endif
