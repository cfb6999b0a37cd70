/* The q8_0 activation buffer (q8_0_act.h) with AVX2: the same bytes as bb_qx_prepare. */
#include <immintrin.h>
#include <string.h>

#include "q8_0_act.h"

/* roundf (half away from zero) exactly: t = trunc(v), v - t is exact, one step away from zero
 * where |v - t| >= 0.5. */
static inline __m256 round_away(__m256 v)
{
    const __m256 sign = _mm256_set1_ps(-0.0f);
    __m256 t = _mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    __m256 up = _mm256_cmp_ps(_mm256_andnot_ps(sign, _mm256_sub_ps(v, t)), _mm256_set1_ps(0.5f), _CMP_GE_OQ);
    __m256 step = _mm256_or_ps(_mm256_set1_ps(1.0f), _mm256_and_ps(v, sign));
    return _mm256_add_ps(t, _mm256_and_ps(up, step));
}

void bb_qx_prepare_avx2(const float *x, int n, int k, void *act)
{
    const __m256 sign = _mm256_set1_ps(-0.0f);
    int nb = k / BB_QK;
    size_t q8 = (size_t)n * nb * sizeof(bb_block_q8_0);
    memset((char *)act + q8, 0, bb_qx_act_size(n, k) - q8);
    for (int r = 0; r < n; r++) {
        bb_block_q8_0 *blk = (bb_block_q8_0 *)bb_qx_act_row(act, k, r);
        bb_qx_aux aux = bb_qx_aux_row(act, n, k, r);
        for (int b = 0; b < nb; b++) {
            const float *xb = x + (size_t)r * k + b * BB_QK;
            __m256 v[4], m = _mm256_setzero_ps();
            for (int i = 0; i < 4; i++) {
                v[i] = _mm256_loadu_ps(xb + 8 * i);
                m = _mm256_max_ps(m, _mm256_andnot_ps(sign, v[i]));
            }
            __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
            m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
            m4 = _mm_max_ss(m4, _mm_movehdup_ps(m4));
            float d = _mm_cvtss_f32(m4) / 127.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
            uint16_t h = _cvtss_sh(d, _MM_FROUND_TO_NEAREST_INT);
            __m256i iv[4];
            /* int32 -> int8 keeping the low byte, as the scalar (int8_t) conversion does (it only
             * matters where 1/d overflows and x/d is not a number: cvtt gives 0x80000000, byte 0);
             * the two packs interleave 128-bit halves, the dword permutation restores the order */
            for (int i = 0; i < 4; i++) {
                iv[i] = _mm256_cvttps_epi32(round_away(_mm256_mul_ps(v[i], _mm256_set1_ps(id))));
                iv[i] = _mm256_srai_epi32(_mm256_slli_epi32(iv[i], 24), 24);
            }
            __m256i q = _mm256_packs_epi16(_mm256_packs_epi32(iv[0], iv[1]), _mm256_packs_epi32(iv[2], iv[3]));
            q = _mm256_permutevar8x32_epi32(q, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
            memcpy(&blk[b].d, &h, 2);
            _mm256_storeu_si256((__m256i *)blk[b].qs, q);
            __m256i lanes = _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_set1_epi8(1), q), _mm256_set1_epi16(1));
            _mm256_storeu_si256((__m256i *)(aux.c + 8 * b), _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_slli_epi32(lanes, 3)));
            __m128i s4 = _mm_add_epi32(_mm256_castsi256_si128(lanes), _mm256_extracti128_si256(lanes, 1));
            s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0x4e));
            s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0xb1));
            ((int32_t *)aux.o)[2 * b] = -8 * _mm_cvtsi128_si32(s4);
            ((float *)aux.d)[b] = _cvtsh_ss(h);
        }
    }
}
