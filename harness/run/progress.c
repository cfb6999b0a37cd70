#include "run/progress.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "support/term_text.h"
#include "support/timer.h"

void bb_progress_init(bb_progress *p, int total, int already_done, bool enabled)
{
    memset(p, 0, sizeof *p);
    p->enabled = enabled && isatty(STDERR_FILENO);
    p->total = total;
    p->done = already_done;
    p->t_start = bb_now();
}

static void clock_text(double s, char *buf, size_t len)
{
    long t = (long)(s + 0.5);
    if (t >= 3600) snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

void bb_progress_show(bb_progress *p, const char *label)
{
    if (!p->enabled) return;
    double el = bb_now() - p->t_start;
    char elapsed[32], eta[40] = "";
    clock_text(el, elapsed, sizeof elapsed);
    if (p->session_done > 0) {
        char rem[32];
        clock_text(el / p->session_done * (p->total - p->done), rem, sizeof rem);
        snprintf(eta, sizeof eta, ", ~%s left", rem);
    }
    char line[256], shown[200]; /* the label names a sweep and model of the experiment file: for a terminal */
    int w = snprintf(line, sizeof line, "[%d/%d] %s elapsed%s  %s", p->done, p->total, elapsed, eta,
                     bb_term_text(label, shown, sizeof shown));
    if (w < 0) return;
    if (w >= (int)sizeof line) w = (int)sizeof line - 1;
    /* pad over the previous line instead of clearing first, so the line does not flicker */
    fprintf(stderr, "\r%s%*s", line, p->width > w ? p->width - w : 0, "");
    fflush(stderr);
    p->width = w;
}

void bb_progress_step(bb_progress *p)
{
    p->done++;
    p->session_done++;
}

void bb_progress_clear(bb_progress *p)
{
    if (!p->enabled || !p->width) return;
    fprintf(stderr, "\r%*s\r", p->width, "");
    fflush(stderr);
    p->width = 0;
}
