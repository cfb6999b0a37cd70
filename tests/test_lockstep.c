/* Decode's streams in lockstep (kernels/common/lockstep.h): for every unit count the passes hand
 * out each unit exactly once; pass j takes unit j of each part, the parts being consecutive runs
 * of bb_lockstep_passes(units) units, so each stream reads forward; every pass has 1 to
 * BB_LOCKSTEP_STREAMS units, and the first pass has one from every part that has any. */
#include <stdbool.h>
#include <string.h>

#include "check.h"
#include "kernels/common/lockstep.h"

int main(void)
{
    for (int units = 1; units <= 300; units++) {
        static int seen[300];
        memset(seen, 0, sizeof seen);
        int passes = bb_lockstep_passes(units);
        bool ok = passes >= 1 && passes * BB_LOCKSTEP_STREAMS >= units && (passes - 1) * BB_LOCKSTEP_STREAMS < units;
        int parts = (units + passes - 1) / passes;
        for (int j = 0; j < passes && ok; j++) {
            int unit[BB_LOCKSTEP_STREAMS];
            int live = bb_lockstep_units(units, j, unit);
            ok = live >= 1 && live <= BB_LOCKSTEP_STREAMS && (j > 0 || live == parts);
            for (int i = 0; i < live && ok; i++) {
                ok = unit[i] == i * passes + j && unit[i] < units;
                if (ok) seen[unit[i]]++;
            }
        }
        for (int u = 0; u < units && ok; u++) ok = seen[u] == 1;
        CHECK(ok, "units %d: passes %d do not hand out each unit once, one per part", units, passes);
    }
    return check_summary("test_lockstep");
}
