/* A sweep's rounds keep the median round (harness/run/sweep_state.h, sweep_median_round): the
 * middle one of an odd count, of an even count the slower of the two middle ones, slower meaning
 * a higher key for a time and a lower one for a share of a bound; whatever order the rounds ran in. */
#include "check.h"
#include "run/sweep_state.h"

int main(void)
{
    const double odd[] = {1.12, 1.07, 1.09};
    CHECK(sweep_median_round(odd, 3, true) == 2, "odd, a time: round %d", sweep_median_round(odd, 3, true));
    CHECK(sweep_median_round(odd, 3, false) == 2, "odd, a share: round %d", sweep_median_round(odd, 3, false));
    /* keys 3 1 4 2: ascending 1 (round 1), 2 (round 3), 3 (round 0), 4 (round 2) */
    const double even[] = {3, 1, 4, 2};
    CHECK(sweep_median_round(even, 4, true) == 0, "even, a time: the higher middle, round %d",
          sweep_median_round(even, 4, true));
    CHECK(sweep_median_round(even, 4, false) == 3, "even, a share: the lower middle, round %d",
          sweep_median_round(even, 4, false));
    const double one[] = {0.9};
    CHECK(sweep_median_round(one, 1, true) == 0 && sweep_median_round(one, 1, false) == 0, "one round");
    const double two[] = {0.91, 0.85};
    CHECK(sweep_median_round(two, 2, false) == 1, "two shares: the lower, round %d", sweep_median_round(two, 2, false));
    CHECK(sweep_median_round(two, 2, true) == 0, "two times: the higher, round %d", sweep_median_round(two, 2, true));
    return check_summary("test_median_round");
}
