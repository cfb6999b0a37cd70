/* A temporary folder of bitbench's own (report's plots, plot's drawing, the PCM meter's logs): made
 * where the user's TMPDIR says (POSIX), else /tmp, so that a machine whose /tmp is small or shared
 * can point it elsewhere.  Only what the caller itself put there is removed afterwards, then the
 * folder (rmdir, which refuses a folder holding anything else). */
#ifndef BB_TEMP_DIR_H
#define BB_TEMP_DIR_H

#include <stddef.h>

/* The folder's path: TMPDIR (when set to an absolute path) or /tmp, then "/bitbench-<what>-XXXXXX"
 * made by mkdtemp (mode 0700, a new name: nothing of anyone else's is reused).  Returns 0, or -1
 * with one line in err naming the place and why. */
int bb_temp_dir(const char *what, char *path, size_t len, char *err, size_t errlen);

#endif
