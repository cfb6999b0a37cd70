/* The register tile of the float baselines, written once and included by float_common.h for each
 * ISA (no include guard on purpose).  The includer defines:
 *   BB_FLT_ISA        name suffix (avx2, avx512) of the generated bb_fl_tile_<isa>
 *   BB_FLT_V          vector type, BB_FLT_LANES floats
 *   BB_FLT_ZERO()     zero vector
 *   BB_FLT_LOAD(p, i, part, type), BB_FLT_LOAD_TAIL(p, i, cnt, part, type)
 *                     elements i.. of a row as floats (type: BB_FL_*; part: even/odd bf16 halves),
 *                     the tail form zero-filling the lanes past cnt elements
 *   BB_FLT_MADD(w, x, acc, mode)   acc + w * x (one FMA, or vdpbf16ps for BB_FL_BF16DP)
 *   BB_FLT_REDUCE(v)  horizontal sum in a fixed order
 *   BB_FLT_PARK_LOAD(p), BB_FLT_PARK_STORE(p, v)   aligned accumulator spill between K-blocks
 *
 * bb_fl_tile_<isa>(t, NR, NC, MODE) accumulates NR weight rows x NC activation rows over
 * [t->i0, t->i1); NR, NC and MODE are constants at every call site, so the loops unroll and the
 * NR*NC accumulators live in registers.  Each accumulator receives exactly: its parked or zero
 * start, one MADD per step (per part) in increasing k, the zero-padded tail, one REDUCE — the
 * same sequence whatever NR, NC or the tile's position, which is what makes row slices exact. */

#define BB_FLT_CAT2(a, b) a##b
#define BB_FLT_CAT(a, b) BB_FLT_CAT2(a, b)

BB_FL_INLINE void BB_FLT_CAT(bb_fl_tile_, BB_FLT_ISA)(bb_fl_tile *t, const int NR, const int NC, const int MODE)
{
    /* bfloat16 modes consume pairs: one 32-bit lane holds two elements */
    const int pairs = MODE == BB_FL_BF16 || MODE == BB_FL_BF16DP;
    const int step = BB_FLT_LANES * (pairs ? 2 : 1);
    const int parts = MODE == BB_FL_BF16 ? 2 : 1;
    const int xtype = MODE == BB_FL_F16 ? BB_FL_F32 : MODE; /* f16 activations are prepared as float */
    BB_FLT_V acc[BB_FL_RMAX][BB_FL_CMAX];
    for (int r = 0; r < NR; r++)
        for (int c = 0; c < NC; c++)
            acc[r][c] = t->first ? BB_FLT_ZERO() : BB_FLT_PARK_LOAD(t->park + (r * NC + c) * BB_FL_LANES);
    int i = t->i0;
    for (; i + step <= t->i1; i += step)
        for (int p = 0; p < parts; p++) {
            BB_FLT_V xv[BB_FL_CMAX];
            for (int c = 0; c < NC; c++) xv[c] = BB_FLT_LOAD(t->x[c], i, p, xtype);
            for (int r = 0; r < NR; r++) {
                /* GEMV: weights stream from memory once; one prefetch per 64-byte line, a fixed
                 * distance ahead in the row or, past its end, in the same row of the next tile
                 * (see "GEMV weight-row prefetch" in float_common.h) */
                if (NC == 1 && p == 0 && (size_t)i * bb_fl_wsize(MODE) % 64 == 0) {
                    size_t ahead = (size_t)i * bb_fl_wsize(MODE) + BB_PREFETCH_BYTES / NR;
                    if (ahead >= t->wrow) ahead += (size_t)(NR - 1) * t->wrow;
                    _mm_prefetch((const char *)t->w[r] + ahead, _MM_HINT_T0);
                }
                BB_FLT_V wv = BB_FLT_LOAD(t->w[r], i, p, MODE);
                for (int c = 0; c < NC; c++) acc[r][c] = BB_FLT_MADD(wv, xv[c], acc[r][c], MODE);
            }
        }
    if (t->i1 < t->k) { /* K-block boundary: park the sums for the next block */
        for (int r = 0; r < NR; r++)
            for (int c = 0; c < NC; c++) BB_FLT_PARK_STORE(t->park + (r * NC + c) * BB_FL_LANES, acc[r][c]);
        return;
    }
    if (i < t->k) {
        int cnt = t->k - i;
        for (int p = 0; p < parts; p++) {
            BB_FLT_V xv[BB_FL_CMAX];
            for (int c = 0; c < NC; c++) xv[c] = BB_FLT_LOAD_TAIL(t->x[c], i, cnt, p, xtype);
            for (int r = 0; r < NR; r++) {
                BB_FLT_V wv = BB_FLT_LOAD_TAIL(t->w[r], i, cnt, p, MODE);
                for (int c = 0; c < NC; c++) acc[r][c] = BB_FLT_MADD(wv, xv[c], acc[r][c], MODE);
            }
        }
    }
    for (int r = 0; r < NR; r++)
        for (int c = 0; c < NC; c++) t->out[r * BB_FL_CMAX + c] = BB_FLT_REDUCE(acc[r][c]);
}

#undef BB_FLT_CAT
#undef BB_FLT_CAT2
