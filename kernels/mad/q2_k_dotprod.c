/* q2_k, Arm dot product (FEAT_DotProd: SDOT; Cortex-A76 / Neoverse N1 and later, Apple M1+).
 * Layout and exact semantics are q2_k.h's: ggml's block_q2_K, 2-bit codes in tq2_0's planes, a
 * 4-bit scale and min per 16 values, q8_K activations.
 *
 * What the loop does, per 256-weight super-block: four 16-byte loads of codes, the four planes of
 * each by USHR and AND (planes_neon.h); each plane vector is exactly one 16-value sub-block j, so
 * its codes are multiplied (MUL, bytes) by sc_j broadcast with LD1R and masked to its low nibble:
 * sc_j * c <= 45 fits int8, and one SDOT per activation row accumulates sc_j * c * q, the
 * sub-block scales applied before the sum as ggml's Arm Q2_K path applies them after it (16 SDOTs
 * per row into two accumulators).  The min term sum_j m_j * bsums_j is SMULL / SMLAL2 of the 16
 * mins (USHR by 4, widened) with the 16 bsums.  Four super-blocks' lanes are reduced together
 * (ADDP), then (a.d * d) * (float)isum - (a.d * dmin) * (float)summs lane by lane and the fold in
 * block order (ggml_k.h): the reference's integers and float operations, so its bits.  Up to 4
 * activation rows share each decoded super-block.
 *
 * bitnet.cpp §2: Q2_K is its bit-wise MAD baseline; Arm paper §5 / Fig. 7:
 * the 2-bit uniform baseline of the codebook kernels. */
#include <arm_neon.h>

#include "ggml_k_neon.h"
#include "planes_neon.h"
#include "q2_k.h"

/* One super-block against nb activation rows: si[r], sm[r] = lanes of isum and summs. */
static inline __attribute__((always_inline)) void block_dot(const bb_block_q2_K *blk, const bb_block_q8_K *const *ab,
                                                            const int nb, int32x4_t *si, int32x4_t *sm)
{
    const uint8x16_t nib = vdupq_n_u8(15);
    int32x4_t even[BB_GK_NB], odd[BB_GK_NB];
    for (int r = 0; r < nb; r++) even[r] = odd[r] = vdupq_n_s32(0);
    /* bytes 16v..16v+15 in plane l: values 128 (v / 2) + 32 l + 16 (v % 2) + 0..15, sub-block j */
    for (int v = 0; v < 4; v++) {
        int8x16_t c[4];
        bb_planes_neon(vld1q_u8(blk->qs + 16 * v), c);
        for (int l = 0; l < 4; l++) {
            int j = 8 * (v / 2) + 2 * l + v % 2;
            uint8x16_t sc = vandq_u8(vld1q_dup_u8(blk->scales + j), nib);
            int8x16_t cs = vreinterpretq_s8_u8(vmulq_u8(vreinterpretq_u8_s8(c[l]), sc));
            for (int r = 0; r < nb; r++) {
                int8x16_t q = vld1q_s8(ab[r]->qs + 16 * j);
                if (l & 1)
                    odd[r] = vdotq_s32(odd[r], cs, q);
                else
                    even[r] = vdotq_s32(even[r], cs, q);
            }
        }
    }
    uint8x16_t mins8 = vshrq_n_u8(vld1q_u8(blk->scales), 4);
    int16x8_t m0 = vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(mins8)));
    int16x8_t m1 = vreinterpretq_s16_u16(vmovl_high_u8(mins8));
    for (int r = 0; r < nb; r++) {
        si[r] = vaddq_s32(even[r], odd[r]);
        int16x8_t b0 = vld1q_s16(ab[r]->bsums), b1 = vld1q_s16(ab[r]->bsums + 8);
        int32x4_t t = vmull_s16(vget_low_s16(m0), vget_low_s16(b0));
        t = vmlal_high_s16(t, m0, b0);
        t = vmlal_s16(t, vget_low_s16(m1), vget_low_s16(b1));
        sm[r] = vmlal_high_s16(t, m1, b1);
    }
}

/* p_b - q_b = (a.d * d) * (float)isum_b - (a.d * dmin) * (float)summs_b lane by lane, then the
 * fold in block order. */
static inline float fold(float sumf, const int32_t *isum, const int32_t *summs, const bb_gk_arow *a, int b0,
                         const float *wd, const float *wdmin, int nc)
{
    float p[BB_GK_CHUNK];
    for (int i = 0; i < BB_GK_CHUNK; i += 4) {
        float32x4_t ad = vld1q_f32(a->d + b0 + i);
        float32x4_t dall = vmulq_f32(ad, vld1q_f32(wd + i)), dmin = vmulq_f32(ad, vld1q_f32(wdmin + i));
        float32x4_t pi = vmulq_f32(dall, vcvtq_f32_s32(vld1q_s32(isum + i)));
        float32x4_t qi = vmulq_f32(dmin, vcvtq_f32_s32(vld1q_s32(summs + i)));
        vst1q_f32(p + i, vsubq_f32(pi, qi));
    }
    return bb_gk_fold(sumf, p, nc);
}

static inline __attribute__((always_inline)) void q2_k_row_nb(const uint8_t *wrow, const bb_gk_arow *a, const int nb,
                                                              int nblk, float *out)
{
    const bb_block_q2_K *x = (const bb_block_q2_K *)wrow;
    float sumf[BB_GK_NB] = {0};
    for (int b0 = 0; b0 < nblk; b0 += BB_GK_CHUNK) {
        int nc = nblk - b0 < BB_GK_CHUNK ? nblk - b0 : BB_GK_CHUNK;
        float wd[BB_GK_CHUNK] = {0}, wdmin[BB_GK_CHUNK] = {0};
        int32_t isum[BB_GK_NB][BB_GK_CHUNK] = {{0}}, summs[BB_GK_NB][BB_GK_CHUNK] = {{0}};
        for (int g = 0; g < nc; g += 4) {
            int32x4_t si[4][BB_GK_NB], sm[4][BB_GK_NB];
            for (int j = 0; j < 4; j++) {
                int b = b0 + g + j;
                if (b - b0 >= nc) {
                    for (int r = 0; r < nb; r++) si[j][r] = sm[j][r] = vdupq_n_s32(0);
                    continue;
                }
                bb_prefetch_stream(&x[b]);
                bb_prefetch_stream((const uint8_t *)&x[b] + sizeof x[b] - 1); /* 84 bytes: both ends */
                wd[b - b0] = bb_fp16_to_fp32(x[b].d);
                wdmin[b - b0] = bb_fp16_to_fp32(x[b].dmin);
                const bb_block_q8_K *ab[BB_GK_NB];
                for (int r = 0; r < nb; r++) ab[r] = &a[r].q[b];
                block_dot(&x[b], ab, nb, si[j], sm[j]);
            }
            for (int r = 0; r < nb; r++) {
                vst1q_s32(&isum[r][g], bb_gk_reduce4_neon(si[0][r], si[1][r], si[2][r], si[3][r]));
                vst1q_s32(&summs[r][g], bb_gk_reduce4_neon(sm[0][r], sm[1][r], sm[2][r], sm[3][r]));
            }
        }
        for (int r = 0; r < nb; r++) sumf[r] = fold(sumf[r], isum[r], summs[r], &a[r], b0, wd, wdmin, nc);
    }
    for (int r = 0; r < nb; r++) out[r] = sumf[r];
}

BB_GK_ROW_BY_NB(q2_k_row, q2_k_row_nb)

void bb_q2_k_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_gk_matmul(w, bb_q2_k_row_bytes(k), act, y, m, k, n, m0, m1, q2_k_row);
}
