/* "Did you mean ...?": the closest name to a misspelt one, by edit distance. */
#ifndef BB_SUGGEST_H
#define BB_SUGGEST_H

#include <stddef.h>

/* Levenshtein distance between a and b (case-sensitive). */
int bb_edit_distance(const char *a, const char *b);

/* The candidate closest to `word`, or NULL when none is close enough to be a plausible typo
 * (distance at most 1/3 of the longer word, and at least 1; or `word`, 3 letters or more, is the
 * beginning of a candidate). */
const char *bb_suggest(const char *word, const char *const *candidates, int count);

/* The one message for a name that is not among `names`:
 * "unknown WHAT 'name' (did you mean 'x'?); valid WHATs: a, b, c", the hint only when a name is
 * close (bb_suggest).  `what` is singular ("kernel", "field", "model"). */
void bb_suggest_message(const char *what, const char *name, const char *const *names, int count, char *buf,
                        size_t len);

/* Append "a, b, c" (the candidates) to buf, truncating cleanly. */
void bb_join_names(char *buf, size_t len, const char *const *names, int count);

#endif
