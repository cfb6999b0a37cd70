/* q8_0 and q4_0, AVX2, after llama.cpp's x86 path for row-major blocks
 * (ggml_vec_dot_q{8,4}_0_q8_0): one block = one 256-bit vector, vpmaddubsw (unsigned × signed
 * bytes, pairs summed in int16: |pair| <= 2*127*127 < 2^15, no saturation) then vpmaddwd(·, 1)
 * to 8 int32 lane partials of the block's exact dot, converted and accumulated with FMA, scaled
 * by d_w * d_a.
 *   q8_0: the sign trick, vpmaddubsw(|w|, sign(a, w))  (as llama.cpp)
 *   q4_0: the stored nibbles n are already unsigned: vpmaddubsw(n, a), and the +8 bias leaves
 *         with the activation's per-lane -8 * sum (qx_0.h aux c), added to each lane exactly —
 *         three instructions per block fewer than llama.cpp's subtract-then-sign-trick.
 * Row loop: qx_0_rows.h. */
#define QX_ISA avx2
#include "qx_0_rows.h"

BB_QX_INLINE void block_step(const uint8_t *blk, int fmt, int b, const bb_block_q8_0 *const *a,
                              const bb_qx_aux *aux, int nb, const float (*sc)[4], int j, __m256 *acc)
{
    const __m256i ones = _mm256_set1_epi16(1);
    if (fmt == FMT_Q8_0) {
        __m256i w = _mm256_loadu_si256((const __m256i *)(blk + 2)), aw = _mm256_sign_epi8(w, w);
        for (int c = 0; c < nb; c++) {
            __m256i q = _mm256_loadu_si256((const __m256i *)a[c][b].qs);
            __m256i p = _mm256_madd_epi16(_mm256_maddubs_epi16(aw, _mm256_sign_epi8(q, w)), ones);
            acc[c] = _mm256_fmadd_ps(_mm256_broadcast_ss(&sc[c][j]), _mm256_cvtepi32_ps(p), acc[c]);
        }
    } else {
        __m256i u = nibbles_u8(blk);
        for (int c = 0; c < nb; c++) {
            __m256i q = _mm256_loadu_si256((const __m256i *)a[c][b].qs);
            __m256i p = _mm256_madd_epi16(_mm256_maddubs_epi16(u, q), ones);
            p = _mm256_add_epi32(p, _mm256_loadu_si256((const __m256i *)(aux[c].c + 8 * b)));
            acc[c] = _mm256_fmadd_ps(_mm256_broadcast_ss(&sc[c][j]), _mm256_cvtepi32_ps(p), acc[c]);
        }
    }
}
