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

/* Append "a, b, c" (the candidates) to buf, truncating cleanly. */
void bb_join_names(char *buf, size_t len, const char *const *names, int count);

#endif
