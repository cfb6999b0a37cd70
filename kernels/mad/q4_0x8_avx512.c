/* q4_0x8, AVX-512 VNNI (layout and semantics: q4_0x8.h): the shared 8-row record tile
 * (x8_tile_avx512.h) with q4_0's decode - one vpternlogd per nibble plane undoes the XOR 0x88
 * and masks, leaving the unsigned nibble - and its fold ((float)isum * d_w) * d_a, block b
 * before block b+1: bit-equal to the reference. */
#include "../common/x8_tile_avx512.h"

void bb_q4_0x8_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_x8_matmul(BB_X8_Q4_0, w, act, y, m, k, n, m0, m1);
}
