/* up_i1, 256-bit: the paper's Figure 2 microkernel (M = 32, N = 1, K = 4 per step), one
 * vpbroadcastd + vpshufb + vpand + vpcmpeqb + blend (vpandn, see expand) per 8x4 tile.
 * avx2:    vpmaddubsw (u in {0,2} x q -> int16 pairs, |.| <= 2*2*127 = 508), summed in int16
 *          over up to 32 groups (<= 16256), widened with vpmaddwd: exact.
 * avxvnni: VEX vpdpbusd straight into int32 — the paper's exact sequence with vpdpbusd (u8 x s8)
 *          for vpdpbssd (s8 x s8).
 * Dword d of accumulator i is row 8i + d of the block.  Two streams per pass: two blocks against
 * one activation row (GEMV) or one block against two activation rows (GEMM). */
#include <immintrin.h>
#include <string.h>

#include "up_i1.h"

#define FLUSH 32

static inline __m256i bcast_dword(const void *p)
{
    int32_t d;
    memcpy(&d, p, 4);
    return _mm256_set1_epi32(d);
}

typedef struct {
    __m256i perm, bitsel, two;
} expand_consts;

static inline expand_consts consts(void)
{
    expand_consts e;
    /* byte i of lane L takes source byte 2L + i/8, the byte holding bit 16L + i */
    e.perm = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3,
                              3, 3, 3, 3);
    e.bitsel = _mm256_set1_epi64x((long long)0x8040201008040201ull); /* byte i: 1 << (i % 8) */
    e.two = _mm256_set1_epi8(2);
    return e;
}

/* One 8x4 tile (the dword at p) -> 32 bytes u = w + 1 in VNNI4 order.  The paper's final
 * vpblendvb selects +1 / -1; here it selects 0 (bit set) / 2, a select against zero, which is one
 * vpandn (GCC turns the blendv of these constants into exactly that). */
static inline __m256i expand(const uint8_t *p, const expand_consts *e)
{
    __m256i t = _mm256_shuffle_epi8(bcast_dword(p), e->perm);
    __m256i set = _mm256_cmpeq_epi8(_mm256_and_si256(t, e->bitsel), e->bitsel);
    return _mm256_andnot_si256(set, e->two);
}

/* Streams s = c * nblk + j; nb * nblk <= 2. */
static inline __attribute__((always_inline)) void block_avx2(const uint8_t *blk, const int nblk, int k,
                                                             const int8_t *const *q, const int nb,
                                                             int32_t (*usum)[2 * BB_UP_MB])
{
    const expand_consts e = consts();
    const __m256i ones = _mm256_set1_epi16(1);
    const size_t bstride = (size_t)k / 4 * BB_UP_I1_GROUP;
    __m256i acc[2][4], acc16[2][4];
    for (int s = 0; s < nb * nblk; s++)
        for (int i = 0; i < 4; i++) acc[s][i] = acc16[s][i] = _mm256_setzero_si256();
    int groups = k / 4;
    for (int g0 = 0; g0 < groups; g0 += FLUSH) {
        int g1 = g0 + FLUSH < groups ? g0 + FLUSH : groups;
        for (int g = g0; g < g1; g++)
            for (int j = 0; j < nblk; j++) {
                const uint8_t *p = blk + j * bstride + (size_t)g * BB_UP_I1_GROUP;
                if ((g & 3) == 0) bb_up_prefetch(p);
                for (int i = 0; i < 4; i++) {
                    __m256i u = expand(p + 4 * i, &e);
                    for (int c = 0; c < nb; c++)
                        acc16[c * nblk + j][i] =
                            _mm256_add_epi16(acc16[c * nblk + j][i], _mm256_maddubs_epi16(u, bcast_dword(q[c] + 4 * g)));
                }
            }
        for (int s = 0; s < nb * nblk; s++)
            for (int i = 0; i < 4; i++) {
                acc[s][i] = _mm256_add_epi32(acc[s][i], _mm256_madd_epi16(acc16[s][i], ones));
                acc16[s][i] = _mm256_setzero_si256();
            }
    }
    for (int s = 0; s < nb * nblk; s++)
        for (int i = 0; i < 4; i++) _mm256_storeu_si256((__m256i *)(usum[s / nblk] + BB_UP_MB * (s % nblk) + 8 * i), acc[s][i]);
}

static void blocks_avx2(const void *w, const uint8_t *blk, int nblk, int k, const int8_t *const *q, int nb,
                        int32_t (*usum)[2 * BB_UP_MB])
{
    (void)w;
    if (nblk == 2) block_avx2(blk, 2, k, q, 1, usum);
    else if (nb == 2) block_avx2(blk, 1, k, q, 2, usum);
    else block_avx2(blk, 1, k, q, 1, usum);
}

void bb_up_i1_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_up_matmul_blocks(w, act, y, m, k, n, m0, m1, 1, 2, blocks_avx2);
}

#define VNNI __attribute__((target("avxvnni")))

static inline __attribute__((always_inline)) VNNI void block_vnni(const uint8_t *blk, const int nblk, int k,
                                                                  const int8_t *const *q, const int nb,
                                                                  int32_t (*usum)[2 * BB_UP_MB])
{
    const expand_consts e = consts();
    const size_t bstride = (size_t)k / 4 * BB_UP_I1_GROUP;
    __m256i acc[2][4];
    for (int s = 0; s < nb * nblk; s++)
        for (int i = 0; i < 4; i++) acc[s][i] = _mm256_setzero_si256();
    for (int g = 0; g < k / 4; g++)
        for (int j = 0; j < nblk; j++) {
            const uint8_t *p = blk + j * bstride + (size_t)g * BB_UP_I1_GROUP;
            if ((g & 3) == 0) bb_up_prefetch(p);
            for (int i = 0; i < 4; i++) {
                __m256i u = expand(p + 4 * i, &e);
                for (int c = 0; c < nb; c++)
                    acc[c * nblk + j][i] = _mm256_dpbusd_avx_epi32(acc[c * nblk + j][i], u, bcast_dword(q[c] + 4 * g));
            }
        }
    for (int s = 0; s < nb * nblk; s++)
        for (int i = 0; i < 4; i++) _mm256_storeu_si256((__m256i *)(usum[s / nblk] + BB_UP_MB * (s % nblk) + 8 * i), acc[s][i]);
}

static VNNI void blocks_vnni(const void *w, const uint8_t *blk, int nblk, int k, const int8_t *const *q, int nb,
                             int32_t (*usum)[2 * BB_UP_MB])
{
    (void)w;
    if (nblk == 2) block_vnni(blk, 2, k, q, 1, usum);
    else if (nb == 2) block_vnni(blk, 1, k, q, 2, usum);
    else block_vnni(blk, 1, k, q, 1, usum);
}

void bb_up_i1_matmul_avxvnni(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_up_matmul_blocks(w, act, y, m, k, n, m0, m1, 1, 2, blocks_vnni);
}
