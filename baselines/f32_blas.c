#include "f32_blas.h"

#include <cblas.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "f32.h"

/* The harness splits M across its own thread pool and calls every slice from a different
 * thread; OpenBLAS must then compute each slice on the calling thread alone.  Left at its
 * default it would start its own threads inside every slice (T pool threads x T OpenBLAS
 * threads on T cores), oversubscribing the cores and timing OpenBLAS's thread hand-off instead
 * of its kernels.  openblas_set_num_threads is process-wide and not meant to race with calls in
 * flight, hence once, before the first call. */
static pthread_once_t single_thread_once = PTHREAD_ONCE_INIT;

/* OpenBLAS cores that use no AVX2: chosen on an AVX2 machine they mean misdetection. */
static int generic_core(const char *core)
{
    static const char *const generic[] = {"Prescott", "Core2", "Penryn", "Dunnington", "Nehalem",
                                          "Sandybridge", "Atom", "Katmai", "Coppermine", "Northwood",
                                          "Banias", "Opteron", "Opteron_SSE3", "Barcelona"};
    for (size_t i = 0; i < sizeof generic / sizeof generic[0]; i++)
        if (strcmp(core, generic[i]) == 0) return 1;
    return 0;
}

static void single_thread(void)
{
    openblas_set_num_threads(1);
    const char *core = openblas_get_corename();
    if (core && generic_core(core) && (bb_cpu_features() & BB_ISA_AVX2) == BB_ISA_AVX2)
        fprintf(stderr,
                "bitbench: f32_blas: OpenBLAS chose its '%s' kernels on this AVX2%s CPU, so its numbers "
                "understate OpenBLAS; set OPENBLAS_CORETYPE=%s before starting bitbench\n",
                core, (bb_cpu_features() & BB_ISA_AVX512) == BB_ISA_AVX512 ? "/AVX-512" : "",
                (bb_cpu_features() & BB_ISA_AVX512) == BB_ISA_AVX512 ? "SkylakeX" : "Haswell");
}

const char *bb_f32_blas_backend(void)
{
    static char desc[256];
    snprintf(desc, sizeof desc, "%s (core %s)", openblas_get_config(), openblas_get_corename());
    return desc;
}

/* OpenBLAS's sum for one output depends on the shape of the call it is in (edge kernels,
 * small-matrix paths and blocking chosen from M, N, K), so calling it on [m0, m1) directly would
 * give different bits for different splits of M.  Instead every row is computed in a call that
 * depends on M, K, N alone: rows go in chunks on a fixed grid from row 0 (activation rows in
 * blocks of BLAS_COLS), each chunk is computed whole into an aligned scratch tile, and the
 * slice's rows are copied out.  A chunk cut by a slice boundary is computed by both neighbours
 * (at most one chunk of extra work per boundary). */
enum { BLAS_GEMV_ROWS = 64, BLAS_GEMM_ROWS = 128, BLAS_COLS = 64 };

static void f32_blas_matmul(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    pthread_once(&single_thread_once, single_thread);
    const float *wf = w, *x = act;
    _Alignas(64) float part[BLAS_GEMM_ROWS * BLAS_COLS];
    const int chunk = n == 1 ? BLAS_GEMV_ROWS : BLAS_GEMM_ROWS;
    for (int g = m0 / chunk * chunk; g < m1; g += chunk) {
        int rows = m - g < chunk ? m - g : chunk;
        int lo = g > m0 ? g : m0, hi = g + rows < m1 ? g + rows : m1;
        const float *a = wf + (size_t)g * k;
        if (n == 1) {
            cblas_sgemv(CblasRowMajor, CblasNoTrans, rows, k, 1.0f, a, k, x, 1, 0.0f, part, 1);
            memcpy(y + lo, part + (lo - g), sizeof(float) * (size_t)(hi - lo));
            continue;
        }
        for (int c0 = 0; c0 < n; c0 += BLAS_COLS) {
            int nc = n - c0 < BLAS_COLS ? n - c0 : BLAS_COLS;
            /* part (nc x rows, row-major) = X[c0 .. c0+nc) . W[g .. g+rows)^T */
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, nc, rows, k, 1.0f, x + (size_t)c0 * k, k, a, k,
                        0.0f, part, rows);
            for (int c = 0; c < nc; c++)
                memcpy(y + (size_t)(c0 + c) * m + lo, part + (size_t)c * rows + (lo - g), sizeof(float) * (size_t)(hi - lo));
        }
    }
}

const bb_kernel bb_kernel_f32_blas = {
    .name = "f32_blas",
    .family = "float",
    .description = "f32 through OpenBLAS sgemv/sgemm, single-threaded per row slice",
    .paper = "T-MAC §5.1, llama.cpp (BLAS) baseline",
    .bits_per_weight = 32.0,
    .lossless = true,
    .weights = BB_WEIGHTS_REAL,
    .act = BB_ACT_F32,
    .plain_rows = true,
    .gguf_type = "F32",
    .float_accumulation = true,
    .k_multiple = 1,
    .m_multiple = 1,
    .packed_size = bb_f32_packed_size,
    .pack = bb_f32_pack,
    .unpack = bb_f32_unpack,
    .act_size = bb_f32_act_size,
    .prepare = bb_f32_prepare,
    .variants = {
        {"scalar", 0, bb_f32_matmul_ref, NULL},
        {"openblas", 0, f32_blas_matmul, NULL},
    },
    .about = {
        .layout_text = "row-major M x K float32, nothing else (the bytes a BLAS sgemm reads with lda = K)",
        .block_weights = 1,
        .block_bytes = 4,
        .outside_blocks = "none",
        .activation = "float32, unchanged",
        .act_bytes = 4.0,
        .int_ops = 0.0,
        .float_ops = 2.0,
        .column_int_ops_per_k = 0,
        .column_float_ops_per_k = 0,
        .column_cost = "none besides preparing the activations",
        .error = "lossless: the master weights and activations as they are; OpenBLAS sums in an order of "
            "its own (within float rounding of sum |w x|)",
    },
};
