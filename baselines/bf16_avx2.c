/* bf16, AVX2 + FMA: each 32-bit pair widened by shift (even element) and mask (odd element),
 * tiles of 4 weight rows x 2 activation rows, 8 weight rows for N = 1.  The prepare is the
 * reference's integer round-to-nearest-even (x + 0x7fff + bit 16) >> 16 on 8 lanes, NaN kept
 * quiet, so its bytes equal bb_fp32_to_bf16's. */
#include "bf16.h"
#include "float_tile.h"

static void gemm_tile(bb_fl_tile *t) { bb_fl_tile_sum(t, 4, 2, BB_FL_BF16); }
static void gemv_tile(bb_fl_tile *t) { bb_fl_tile_sum(t, 8, 1, BB_FL_BF16); }

void bb_bf16_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    static const bb_fl_plan plan = {BB_FL_BF16, {4, 2, gemm_tile}, {8, 1, gemv_tile}};
    bb_fl_drive(&plan, w, act, y, m, k, n, m0, m1);
}

void bb_bf16_prepare_avx2(const float *x, int n, int k, void *act)
{
    size_t count = (size_t)n * k, i = 0;
    uint16_t *a = act;
    const __m256i abs = _mm256_set1_epi32(0x7fffffff), inf = _mm256_set1_epi32(0x7f800000);
    const __m256i half = _mm256_set1_epi32(0x7fff), one = _mm256_set1_epi32(1), quiet = _mm256_set1_epi32(0x40);
    for (; i + 16 <= count; i += 16) {
        __m256i h[2];
        for (int j = 0; j < 2; j++) {
            __m256i v = _mm256_loadu_si256((const __m256i *)(x + i + 8 * j));
            __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(v, abs), inf);
            __m256i rounded = _mm256_add_epi32(v, _mm256_add_epi32(half, _mm256_and_si256(_mm256_srli_epi32(v, 16), one)));
            __m256i r = _mm256_blendv_epi8(_mm256_srli_epi32(rounded, 16),
                                           _mm256_or_si256(_mm256_srli_epi32(v, 16), quiet), nan);
            h[j] = r;
        }
        /* 16 x 32-bit (< 2^16) -> 16 x 16-bit; packus interleaves 128-bit halves, permute fixes it */
        __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi32(h[0], h[1]), 0xd8);
        _mm256_storeu_si256((__m256i *)(a + i), p);
    }
    bb_fl_prepare_ref(BB_FL_BF16, x + i, count - i, a + i);
}
