/* The source diff of a build from changed files (its commit "...-dirty", cmake/git_commit.cmake):
 * `git diff HEAD` of the source tree it was built from, taken when a run starts, so that a run of
 * a -dirty build carries the changes it measured (run_texts.h, source.diff).
 *
 * It is taken only where it can be this build's: the source tree named at build time is here, is
 * a git work tree, and its HEAD is the build's commit.  git runs from an argument vector
 * (posix_spawnp, never a shell), with stdin from /dev/null, its external diff drivers, text
 * conversions and fsmonitor hook off (a repository's config never chooses a program to run), for
 * at most BB_SOURCE_DIFF_SECONDS, and a diff larger than BB_SOURCE_DIFF_MAX_BYTES is not kept.
 * Files changed after the build and before the run are in the diff too: it is the tree's state
 * when the run started (run.json says so). */
#ifndef BB_SOURCE_DIFF_H
#define BB_SOURCE_DIFF_H

#include <stddef.h>

#define BB_SOURCE_DIFF_MAX_BYTES ((size_t)4 << 20)
#define BB_SOURCE_DIFF_SECONDS 60

/* The build's commit ("abc1234" or "abc1234-dirty", "unknown") and the source tree it was built
 * from. */
const char *bb_build_commit(void);
const char *bb_build_source_dir(void);

/* For a -dirty build: *text (malloc'd, NUL-terminated, *len bytes) and 0.  Otherwise -1 with why
 * in one line: the build is not dirty, the tree is not here or at another commit, no git, git
 * failed, the diff is too large.  commit and src are the build's (bb_build_commit,
 * bb_build_source_dir; parameters so that tests can name others). */
int bb_source_diff(const char *commit, const char *src, char **text, size_t *len, char *why, size_t whylen);

#endif
