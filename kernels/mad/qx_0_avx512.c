/* q8_0 and q4_0, AVX-512 VNNI: one block = one 256-bit vpdpbusd (unsigned × signed bytes summed
 * straight into int32 lanes, no int16 stage), 8 int32 lane partials of the block's exact dot,
 * converted and accumulated with FMA, scaled by d_w * d_a.
 *   q8_0: the sign trick, vpdpbusd(0, |w|, sign(a, w))  (llama.cpp's VNNI path)
 *   q4_0: vpdpbusd(c, n, a) on the stored unsigned nibbles n, the lane accumulator starting at
 *         the activation's per-lane -8 * sum (qx_0.h aux c, a plain load), which removes the +8
 *         bias exactly: one VNNI instruction per block and activation row.
 * Per-lane corrections keep every lane equal to the exact dot of its 4 signed weights, so the
 * float accumulation sees no large cancelling values.  Row loop: qx_0_rows.h. */
#define QX_ISA avx512
#include "qx_0_rows.h"

/* The 4 blocks' fp16 d gathered with one vpermw / vpermt2w from the 64 / 128 bytes that hold them. */
BB_QX_INLINE void block_step(const uint8_t *blk, int fmt, int b, const bb_block_q8_0 *const *a,
                              const bb_qx_aux *aux, int nb, const float (*sc)[4], int j, __m256 *acc)
{
    if (fmt == FMT_Q8_0) {
        __m256i w = _mm256_loadu_si256((const __m256i *)(blk + 2)), aw = _mm256_sign_epi8(w, w);
        for (int c = 0; c < nb; c++) {
            __m256i q = _mm256_loadu_si256((const __m256i *)a[c][b].qs);
            __m256i p = _mm256_dpbusd_epi32(_mm256_setzero_si256(), aw, _mm256_sign_epi8(q, w));
            acc[c] = _mm256_fmadd_ps(_mm256_broadcast_ss(&sc[c][j]), _mm256_cvtepi32_ps(p), acc[c]);
        }
    } else {
        __m256i u = nibbles_u8(blk);
        for (int c = 0; c < nb; c++) {
            __m256i q = _mm256_loadu_si256((const __m256i *)a[c][b].qs);
            __m256i p = _mm256_dpbusd_epi32(_mm256_loadu_si256((const __m256i *)(aux[c].c + 8 * b)), u, q);
            acc[c] = _mm256_fmadd_ps(_mm256_broadcast_ss(&sc[c][j]), _mm256_cvtepi32_ps(p), acc[c]);
        }
    }
}
