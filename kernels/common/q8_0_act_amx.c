/* The AMX driver's activation side (bb_amx_ops act_i8 / act_scales, amx.h) for the q8_0
 * activation buffer (q8_0_act.h), shared by mad's q8_0 / q4_0 / q4_0x8 and codebook's iq4_nl /
 * iq4_nl_x8. */
#include <string.h>

#include "q8_0_act.h"

const int8_t *bb_qx_amx_act_i8(const void *act, int n, int k, int c, int8_t *scratch)
{
    (void)n;
    const bb_block_q8_0 *a = bb_qx_act_row(act, k, c);
    for (int b = 0; b < k / BB_QK; b++) memcpy(scratch + BB_QK * b, a[b].qs, BB_QK);
    return scratch;
}

void bb_qx_amx_act_scales(const void *act, int n, int k, int npad, float *da)
{
    for (int c = 0; c < n; c++) {
        const float *d = bb_qx_aux_row(act, n, k, c).d;
        for (int b = 0; b < k / BB_QK; b++) da[(size_t)b * npad + c] = d[b];
    }
}
