/* Writing a file so that nothing is lost: a temporary file beside the target, renamed over it only
 * when whole.
 *
 * A failure or a kill while writing leaves the previous file as it was (and at worst a temporary
 * `.NAME.tmp-PID-N` beside it, which bitbench created); a target that is not a regular file (a
 * device, a FIFO, a directory) is refused before anything is written, so `-o /dev/full` can never
 * delete a device node (issue 29).  bb_output_check lets a command test every output place before
 * an hour of measurement goes into it. */
#ifndef BB_OUTPUT_FILE_H
#define BB_OUTPUT_FILE_H

#include <stdbool.h>
#include <stdio.h>

typedef struct bb_output_file {
    FILE *f;         /* write here between begin and commit/abort */
    char path[4096]; /* the target (a symbolic link's target, when path was a link) */
    char tmp[4200];  /* the temporary file beside it */
} bb_output_file;

/* 0 when path can be written by begin/commit: it is absent or a regular file, and its folder
 * exists and takes a new file (tried by creating and removing a temporary file of our own).
 * Else -1 with one line in err naming the path and what is wrong. */
int bb_output_check(const char *path, char *err, size_t errlen);

/* Opens the temporary file for path (binary or text makes no difference on POSIX; kept for
 * readers).  The file gets the target's permission bits when the target exists.  NULL with err on
 * refusal (path is not a regular file, its folder is missing or not writable). */
FILE *bb_output_begin(bb_output_file *o, const char *path, char *err, size_t errlen);

/* Flushes, syncs and closes the temporary file and renames it over the target.  On any write error
 * (a full disk) the temporary file is removed, the target left as it was, and -1 returned with
 * err.  Always closes. */
int bb_output_commit(bb_output_file *o, char *err, size_t errlen);

/* Closes and removes the temporary file; the target stays as it was. */
void bb_output_abort(bb_output_file *o);

#endif
