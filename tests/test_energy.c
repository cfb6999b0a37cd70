/* energy_per_token_j's convention (harness/meters/energy.h): the "_energy_j" columns of the first meter
 * that measured any, summed (package + DRAM), over the units of work; empty (NAN) when no meter
 * measured an energy, never 0. */
#include <math.h>

#include "check.h"
#include "meters/energy.h"

static const bb_meter_type timer_like = {.name = "t", .ncolumns = 2, .columns = {"t_region_s", "t_ghz"}};
static const bb_meter_type rapl_like = {
    .name = "r", .ncolumns = 3, .columns = {"r_pkg_energy_j", "r_energy_per_call_j_derived", "r_avg_power_w_derived"}};
static const bb_meter_type pcm_like = {
    .name = "p", .ncolumns = 4, .columns = {"p_dram_read_mbps", "p_pkg_energy_j", "p_dram_energy_j", "p_samples"}};

int main(void)
{
    bb_meter m[3] = {{.type = &timer_like}, {.type = &pcm_like}, {.type = &rapl_like}};
    /* timer | pcm: 2 J package + 1 J DRAM | rapl: 2.5 J package */
    double v[9] = {0.5, 2.3, 900, 2.0, 1.0, 12, 2.5, 0.3, 5.0};
    CHECK(bb_energy_per_unit(m, 3, v, 6) == 0.5, "pcm first: (2 + 1) J / 6 tokens, got %g", bb_energy_per_unit(m, 3, v, 6));
    /* pcm's energy columns unmeasured: rapl's package energy, its derived per-call column ignored */
    v[3] = v[4] = NAN;
    CHECK(bb_energy_per_unit(m, 3, v, 5) == 0.5, "rapl next: 2.5 J / 5, got %g", bb_energy_per_unit(m, 3, v, 5));
    /* one of pcm's two measured: that one alone */
    v[4] = 1.5;
    CHECK(bb_energy_per_unit(m, 3, v, 3) == 0.5, "pcm DRAM only: 1.5 J / 3, got %g", bb_energy_per_unit(m, 3, v, 3));
    /* no energy measured anywhere, or only the timer: empty, not 0 */
    v[4] = v[6] = NAN;
    CHECK(isnan(bb_energy_per_unit(m, 3, v, 4)), "no energy -> NAN");
    CHECK(isnan(bb_energy_per_unit(m, 1, v, 4)), "timer only -> NAN");
    v[6] = 2.5;
    CHECK(isnan(bb_energy_per_unit(m, 3, v, 0)), "no tokens -> NAN");
    return check_summary("energy");
}
