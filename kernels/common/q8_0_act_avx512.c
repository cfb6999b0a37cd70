/* The q8_0 activation buffer (q8_0_act.h) with AVX-512: the same bytes as bb_qx_prepare. */
#include <immintrin.h>
#include <string.h>

#include "q8_0_act.h"

/* roundf (half away from zero) exactly: t = trunc(v), v - t is exact, one step away from zero
 * where |v - t| >= 0.5. */
static inline __m512 round_away(__m512 v)
{
    __m512 t = _mm512_roundscale_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    __mmask16 up = _mm512_cmp_ps_mask(_mm512_abs_ps(_mm512_sub_ps(v, t)), _mm512_set1_ps(0.5f), _CMP_GE_OQ);
    __m512 step = _mm512_or_ps(_mm512_set1_ps(1.0f), _mm512_and_ps(v, _mm512_set1_ps(-0.0f)));
    return _mm512_mask_add_ps(t, up, t, step);
}

void bb_qx_prepare_avx512(const float *x, int n, int k, void *act)
{
    int nb = k / BB_QK;
    size_t q8 = (size_t)n * nb * sizeof(bb_block_q8_0);
    memset((char *)act + q8, 0, bb_qx_act_size(n, k) - q8);
    for (int r = 0; r < n; r++) {
        bb_block_q8_0 *blk = (bb_block_q8_0 *)bb_qx_act_row(act, k, r);
        bb_qx_aux aux = bb_qx_aux_row(act, n, k, r);
        for (int b = 0; b < nb; b++) {
            const float *xb = x + (size_t)r * k + b * BB_QK;
            __m512 v0 = _mm512_loadu_ps(xb), v1 = _mm512_loadu_ps(xb + 16);
            float amax = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(v0), _mm512_abs_ps(v1)));
            float d = amax / 127.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
            uint16_t h = _cvtss_sh(d, _MM_FROUND_TO_NEAREST_INT);
            __m512 vid = _mm512_set1_ps(id);
            __m128i q0 = _mm512_cvtepi32_epi8(_mm512_cvttps_epi32(round_away(_mm512_mul_ps(v0, vid))));
            __m128i q1 = _mm512_cvtepi32_epi8(_mm512_cvttps_epi32(round_away(_mm512_mul_ps(v1, vid))));
            __m256i q = _mm256_inserti128_si256(_mm256_castsi128_si256(q0), q1, 1);
            memcpy(&blk[b].d, &h, 2);
            _mm256_storeu_si256((__m256i *)blk[b].qs, q);
            /* lane sums of 4 int8: vpdpbusd with unsigned ones */
            __m256i lanes = _mm256_dpbusd_epi32(_mm256_setzero_si256(), _mm256_set1_epi8(1), q);
            _mm256_storeu_si256((__m256i *)(aux.c + 8 * b), _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_slli_epi32(lanes, 3)));
            __m128i s4 = _mm_add_epi32(_mm256_castsi256_si128(lanes), _mm256_extracti128_si256(lanes, 1));
            s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0x4e));
            s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0xb1));
            ((int32_t *)aux.o)[2 * b] = -8 * _mm_cvtsi128_si32(s4);
            ((float *)aux.d)[b] = _cvtsh_ss(h);
        }
    }
}
