#include "bench/cache_sizing.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static const char *const mode_names[BB_CACHE_NMODES] = {"resident", "dram", "l1", "l2", "l3"};

const char *bb_cache_mode_name(bb_cache_mode c)
{
    return (unsigned)c < BB_CACHE_NMODES ? mode_names[c] : "resident";
}

int bb_cache_mode_parse(const char *s, bb_cache_mode *c)
{
    for (int i = 0; i < BB_CACHE_NMODES; i++)
        if (strcmp(s, mode_names[i]) == 0) {
            *c = (bb_cache_mode)i;
            return 0;
        }
    return -1;
}

int bb_cache_mode_level(bb_cache_mode c)
{
    return c == BB_CACHE_L1 ? 1 : c == BB_CACHE_L2 ? 2 : c == BB_CACHE_L3 ? 3 : 0;
}

bool bb_cache_level_info(const bb_machine *m, int level, size_t *size, int *instances, int *shared_by)
{
    for (int i = 0; i < m->ncaches; i++) {
        const bb_cache_info *c = &m->caches[i];
        if (c->level != level || !strcmp(c->type, "instruction") || !c->size) continue;
        *size = c->size;
        *instances = c->instances > 0 ? c->instances : 1;
        *shared_by = c->shared_by > 0 ? c->shared_by : 1;
        return true;
    }
    /* a machine described by sizes alone (l1d, l2, l3): one private instance per thread below L3,
     * one shared L3 */
    size_t s = level == 1 ? m->l1d : level == 2 ? m->l2 : level == 3 ? m->l3 : 0;
    if (!s) return false;
    *size = s;
    *instances = level == 3 ? 1 : INT_MAX;
    *shared_by = 1;
    return true;
}

void bb_cache_level_capacity(const bb_machine *m, int level, int threads, size_t *least, size_t *most)
{
    size_t size;
    int inst, shared;
    *least = *most = 0;
    if (threads < 1) threads = 1;
    if (!bb_cache_level_info(m, level, &size, &inst, &shared)) return;
    long dense = (threads + shared - 1) / shared, spread = threads;
    if (dense > inst) dense = inst;
    if (spread > inst) spread = inst;
    *least = size * (size_t)dense;
    *most = size * (size_t)spread;
}

static const char *const level_names[4] = {"", "L1d", "L2", "L3"};

static int level_copies(int level, size_t psize, int threads, const bb_machine *mach, int *copies, char *err,
                        size_t errlen)
{
    size_t least, most, below_least = 0, below = 0;
    bb_cache_level_capacity(mach, level, threads, &least, &most);
    const char *src = mach->cache_source[0] ? mach->cache_source : "no source";
    if (!least) {
        snprintf(err, errlen, "cache mode l%d: this machine reports no %s (%s); valid here: the levels it reports, "
                 "resident, dram", level, level_names[level], src);
        return -1;
    }
    size_t fit = least / 2;
    if (psize > fit) {
        snprintf(err, errlen, "cache mode l%d: the packed matrix (%.1f KiB) does not fit in half the %s of %d "
                 "thread%s (%.1f KiB of %.1f KiB, %s); use a smaller shape, more threads or a larger level",
                 level, psize / 1024.0, level_names[level], threads, threads == 1 ? "" : "s", fit / 1024.0,
                 least / 1024.0, src);
        return -1;
    }
    if (level > 1) bb_cache_level_capacity(mach, level - 1, threads, &below_least, &below);
    size_t n = fit / psize;
    if (n * psize <= below) {
        snprintf(err, errlen, "cache mode l%d: %zu copies of the packed matrix (%.1f KiB in all) fit in half the %s "
                 "but not beyond the %.1f KiB of %s %d thread%s can reach (%s): no %s-sized working set exists here",
                 level, n, (double)(n * psize) / 1024.0, level_names[level], below / 1024.0, level_names[level - 1],
                 threads, threads == 1 ? "" : "s", src, level_names[level]);
        return -1;
    }
    *copies = n > INT_MAX ? INT_MAX : (int)n;
    return 0;
}

/* Cache mode dram rotates copies over BB_DRAM_LLC_SPAN times the last-level cache so that no copy
 * is still cached when its turn comes.  Hosts report LLCs of any size (a cloud VM may report its
 * host's whole 480 MiB L3), so the rotation is capped at half the available memory: a capped
 * rotation still spans more than the LLC (said by bb_cache_describe), one that cannot is refused. */
static int dram_copies(size_t psize, const bb_machine *mach, int *copies, char *err, size_t errlen)
{
    size_t llc = bb_machine_llc(mach), target = BB_DRAM_LLC_SPAN * llc;
    size_t n = target / psize + 1;
    if (n < 2) n = 2;
    size_t budget = mach->mem_available ? mach->mem_available / 2 : 0;
    if (budget && n * psize > budget) {
        n = budget / psize;
        if (n < 2 || n * psize <= llc) {
            snprintf(err, errlen,
                     "cache mode dram needs copies of %.1f MiB spanning more than the %.0f MiB LLC, but half the "
                     "available memory (%.1f GiB) holds only %zu; use cache mode resident",
                     psize / 1048576.0, llc / 1048576.0, budget / 1073741824.0, n);
            return -1;
        }
    }
    if (n > INT_MAX) n = INT_MAX;
    *copies = (int)n;
    return 0;
}

int bb_cache_copies(bb_cache_mode c, size_t psize, int threads, const bb_machine *mach, int *copies, char *err,
                    size_t errlen)
{
    if (c == BB_CACHE_DRAM) return dram_copies(psize, mach, copies, err, errlen);
    int level = bb_cache_mode_level(c);
    if (level) return level_copies(level, psize, threads, mach, copies, err, errlen);
    *copies = 1;
    return 0;
}

void bb_cache_describe(bb_cache_mode c, size_t psize, int copies, int threads, const bb_machine *mach, char *buf,
                       size_t len)
{
    double total = (double)copies * (double)psize, llc = (double)bb_machine_llc(mach);
    int level = bb_cache_mode_level(c);
    if (level) {
        size_t least, most, size = 0;
        int inst = 0, shared = 0;
        bb_cache_level_capacity(mach, level, threads, &least, &most);
        bb_cache_level_info(mach, level, &size, &inst, &shared);
        snprintf(buf, len, "%d cop%s of %.2f KiB = %.1f KiB rotated, in half the %s of %d thread%s (%.1f KiB = %.1f "
                 "KiB x %zu, %s)", copies, copies == 1 ? "y" : "ies", psize / 1024.0, total / 1024.0,
                 level_names[level], threads, threads == 1 ? "" : "s", least / 1024.0, size / 1024.0,
                 size ? least / size : 0, mach->cache_source[0] ? mach->cache_source : "no source");
    } else if (c != BB_CACHE_DRAM)
        snprintf(buf, len, "1 copy of %.2f MiB", psize / 1048576.0);
    else
        snprintf(buf, len, "%d copies of %.2f MiB = %.0f MiB rotated, %.1fx the %.0f MiB LLC%s", copies,
                 psize / 1048576.0, total / 1048576.0, total / llc, llc / 1048576.0,
                 total < 2 * llc ? ", capped at half the available memory" : "");
}
