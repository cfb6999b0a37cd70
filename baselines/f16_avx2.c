/* f16, AVX2 + F16C + FMA: weights widened by vcvtph2ps, tiles of 4 weight rows x 2 activation
 * rows, 8 weight rows for N = 1.  The prepare rounds through vcvtps2ph (round to nearest even,
 * the same bits as bb_fp32_to_fp16 for every non-NaN input) and back; NaN lanes are replaced by
 * the reference's quiet NaN, because vcvtps2ph keeps part of the payload. */
#include "f16.h"
#include "float_tile.h"

static void gemm_tile(bb_fl_tile *t) { bb_fl_tile_sum(t, 4, 2, BB_FL_F16); }
static void gemv_tile(bb_fl_tile *t) { bb_fl_tile_sum(t, 8, 1, BB_FL_F16); }

void bb_f16_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    static const bb_fl_plan plan = {BB_FL_F16, {4, 2, gemm_tile}, {8, 1, gemv_tile}};
    bb_fl_drive(&plan, w, act, y, m, k, n, m0, m1);
}

void bb_f16_prepare_avx2(const float *x, int n, int k, void *act)
{
    size_t count = (size_t)n * k, i = 0;
    float *a = act;
    const __m256 sign = _mm256_set1_ps(-0.0f), qnan = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000));
    for (; i + 8 <= count; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        __m256 r = _mm256_cvtph_ps(_mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        __m256 nan = _mm256_cmp_ps(v, v, _CMP_UNORD_Q);
        r = _mm256_blendv_ps(r, _mm256_or_ps(_mm256_and_ps(v, sign), qnan), nan);
        _mm256_storeu_ps(a + i, r);
    }
    bb_fl_prepare_ref(BB_FL_F16, x + i, count - i, a + i);
}
