/* How a caller that shares one matmul call among threads cuts M into chunks (kernel.h,
 * bb_variant_chunk_rows): the engine's linear layers and `bitbench gemm` cut it the same way. */
#include "kernel.h"

static int gcd(int a, int b) { return b ? gcd(b, a % b) : a; }

int bb_variant_chunk_rows(const bb_kernel *kern, const bb_variant *v, int m, int k, int n)
{
    /* whole rows of the kernel's layout, whole register tiles of every kernel (16), whole passes
     * of the variant: 96-row chunks of tl2_0@avx512 ran as passes of 4, 1 and 1 tiles, and its
     * 700M decode reached 79 % of the read-alone bound where 128-row chunks reach 88 %
     * (docs/measurements/2026-11-29-xeon.md) */
    int unit = kern->m_multiple / gcd(kern->m_multiple, 16) * 16;
    if (v && v->m_pass > 0) unit = unit / gcd(unit, v->m_pass) * v->m_pass;
    double row_bytes = m > 0 ? (double)kern->packed_size(m, k) / m : 1;
    int units = (int)(BB_CHUNK_BYTES / (row_bytes * unit) + 0.5);
    int rows = unit * (units > 1 ? units : 1);
    if (n > 1) {
        int prefill_units = (BB_PREFILL_CHUNK_ROWS + unit - 1) / unit;
        if (rows < unit * prefill_units) rows = unit * prefill_units;
    }
    return rows;
}
