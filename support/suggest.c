#include "suggest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bb_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    int *row = malloc((lb + 1) * sizeof *row);
    if (!row) return (int)(la > lb ? la : lb);
    for (size_t j = 0; j <= lb; j++) row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    int d = row[lb];
    free(row);
    return d;
}

const char *bb_suggest(const char *word, const char *const *candidates, int count)
{
    const char *best = NULL;
    int best_d = 1 << 30;
    for (int i = 0; i < count; i++) {
        int d = bb_edit_distance(word, candidates[i]);
        if (d < best_d) {
            best_d = d;
            best = candidates[i];
        }
    }
    if (!best) return NULL;
    /* a truncated name ("vocab" for "vocab_size") is a plausible slip whatever the distance */
    size_t wl = strlen(word);
    if (wl >= 3)
        for (int i = 0; i < count; i++)
            if (strncmp(candidates[i], word, wl) == 0) return candidates[i];
    size_t longer = strlen(word) > strlen(best) ? strlen(word) : strlen(best);
    int limit = (int)(longer / 3);
    if (limit < 1) limit = 1;
    return best_d <= limit ? best : NULL;
}

void bb_join_names(char *buf, size_t len, const char *const *names, int count)
{
    size_t used = strlen(buf);
    for (int i = 0; i < count && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);
        if (w < 0 || (size_t)w >= len - used) {
            if (len >= 4) memcpy(buf + len - 4, "...", 4);
            return;
        }
        used += (size_t)w;
    }
}

void bb_suggest_message(const char *what, const char *name, const char *const *names, int count, char *buf,
                        size_t len)
{
    const char *near = bb_suggest(name, names, count);
    char hint[96] = "";
    if (near) snprintf(hint, sizeof hint, " (did you mean '%s'?)", near);
    int w = snprintf(buf, len, "unknown %s '%s'%s; valid %ss: ", what, name, hint, what);
    if (w >= 0 && (size_t)w < len) bb_join_names(buf, len, names, count);
}
