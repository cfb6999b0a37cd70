/* One writer per run directory.  Every command that writes into a run directory (run, run
 * --resume, merge's output) holds an exclusive flock(2) on DIR/.lock while it writes; a second
 * writer is refused at once with one line naming the holder's pid, which the holder writes into
 * the lock file.  flock locks belong to the open file, so the kernel drops the lock when the
 * holder exits or is killed: a stale .lock file never blocks a later --resume.  On file systems
 * where flock is not supported (some NFS setups) the run goes on unlocked with a note. */
#ifndef BB_RUN_LOCK_H
#define BB_RUN_LOCK_H

#include <stddef.h>

#define BB_RUN_LOCK_NAME ".lock"

/* Lock dir for this process.  Returns 0, or -1 with "DIR is being written by process PID ..."
 * (or why the lock file cannot be made).  note gets a line when the lock is not supported there,
 * else "". */
int bb_run_dir_lock(const char *dir, char *note, size_t notelen, char *err, size_t errlen);
/* Release the lock on dir taken by bb_run_dir_lock; nothing when there is none. */
void bb_run_dir_unlock(const char *dir);

#endif
