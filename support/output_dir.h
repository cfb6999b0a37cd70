/* An output folder checked before work goes into it: `run --out`, `db export OUT_DIR`,
 * `compare --out` and the like write several files into one folder, and an hour of measurement
 * must not end in "cannot write" (issue 29).
 *
 * The folder must exist (or, when asked, is created with its parents, as `run --out` always did),
 * be a folder, and take new files; each of the named files that is already there must be a
 * regular file, since each is later replaced through output_file.h. */
#ifndef BB_OUTPUT_DIR_H
#define BB_OUTPUT_DIR_H

#include <stdbool.h>
#include <stddef.h>

/* 0 when dir can take the files named (names relative to dir; NULL-terminated list, may be
 * NULL); else -1 with one line in err naming the folder or file and what is wrong.  With create,
 * a missing dir is made (with its parents) first. */
int bb_output_dir_check(const char *dir, bool create, const char *const *files, char *err, size_t errlen);

#endif
