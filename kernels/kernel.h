/* The one kernel interface of bitbench.
 *
 * A kernel computes Y = W · X for a low-bit (or float) weight matrix W of M rows and K columns and
 * N activation vectors X (N×K, row-major float).  The output Y is N×M, row-major: y[n*M + m].
 * N = 1 is the GEMV of token generation, N > 1 the GEMM of prompt processing.
 *
 * Three steps, as in every paper the project comes from:
 *   pack     (offline) master weights → the kernel's packed layout (quantization, interleaving,
 *            bit planes, index/sign planes, codebook assignment all happen here);
 *   prepare  (online, once per activation batch) float activations → what the kernel consumes
 *            (int8 with scales, q8 blocks, lookup tables ...);
 *   matmul   over a slice of output rows [m0, m1) so the harness splits M across threads without
 *            the kernel knowing about threads.  m0 and m1 are multiples of kernel->m_multiple
 *            (or m1 == M).  Any split of M gives the same result, bit for bit.
 *
 * One packed layout and one prepared-activation layout per kernel: all ISA variants of a kernel
 * read the same bytes, so they can be compared against the scalar reference on identical input.
 * Each kernel's header states its exact reference semantics; integer kernels' SIMD variants
 * match the scalar reference bit for bit.
 */
#ifndef BB_KERNEL_H
#define BB_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu.h"

/* What a kernel's pack() wants as master weights. */
typedef enum {
    BB_WEIGHTS_REAL = 0, /* arbitrary float weights (Gaussian in synthetic runs) */
    BB_WEIGHTS_TERNARY,  /* BitNet b1.58 weights: codes in {-1,0,+1} and one per-tensor scale */
} bb_weight_kind;

/* How prepare() represents activations; the conformance suite derives its error bound from it. */
typedef enum {
    BB_ACT_F32 = 0,      /* unchanged float */
    BB_ACT_F16,          /* IEEE binary16, round to nearest even */
    BB_ACT_BF16,         /* bfloat16, round to nearest even */
    BB_ACT_I8_ROW,       /* int8, one absmax scale per activation row (BitNet per-token) */
    BB_ACT_I8_BLOCK32,   /* int8 in blocks of 32 with an fp16 scale (llama.cpp q8_0) */
    BB_ACT_I8_BLOCK256,  /* int8 in blocks of 256 with a float scale (llama.cpp q8_K) */
    BB_ACT_CUSTOM,       /* kernel supplies error_bound() */
} bb_act_format;

/* Master weights handed to pack().  The harness always fills f32 (row-major M×K); for
 * BB_WEIGHTS_TERNARY kernels it also fills ternary/ternary_scale (absmean-ternarized from f32
 * when the source was not ternary already), so that W = ternary * ternary_scale exactly. */
typedef struct bb_weights {
    int m, k;
    const float *f32;
    const int8_t *ternary;
    float ternary_scale;
} bb_weights;

/* The types of a kernel's functions (the fields below hold pointers to them).  A family whose
 * kernels differ only in parameters (a bit width, a table kind, a record layout) has one
 * implementation taking the parameters as arguments; the file holding it instantiates it per
 * parameter set as one-line functions declared with these types (bb_matmul_fn
 * bb_tmac_w2_avx2;), and each kernel's file is its descriptor, pointing at them.  The pointers
 * carry no parameter of their own, so this is how parameters reach the code: docs/kernels.md,
 * "Binding a family's parameters". */
typedef void bb_matmul_fn(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
typedef void bb_prepare_fn(const float *x, int n, int k, void *act);
typedef size_t bb_act_size_fn(int n, int k);
typedef size_t bb_packed_size_fn(int m, int k);
typedef int bb_pack_fn(const struct bb_weights *w, void *dst, char *err, size_t errlen);
typedef void bb_unpack_fn(const void *src, int m, int k, float *dst);

/* One ISA variant of a kernel.  `requires` is a mask of BB_CPU_* features that must all be
 * present.  prepare may be NULL: the kernel's own prepare is used.
 *
 * What ran.  A variant's matmul may run another variant's code; results name both the variant
 * asked for and the code that ran, so a number is never credited to code that did not produce it:
 *   - a documented dispatch rule, fixed by the shape: with fewer than `min_n` activation rows the
 *     call runs the variant `small_n_isa` of the same kernel (the @amx variants: N < 16 runs
 *     @avx512, a GEMV using one sixteenth of a tile being slower).  bb_variant_ran(v, n) is the
 *     code a call with n rows runs; results.csv's variant_ran, e2e.csv's variant_ran_pp and
 *     variant_ran_tg, the roofline's gamma labels and the claims table are computed from it.
 *     small_n_isa NULL (min_n 0): no rule, every call runs the variant's own code.
 *   - anything else, decided per call by the data or the machine (the float @amx variants send
 *     rows or calls holding denormals, infinities or NaNs to @avx512; a tile call whose scratch
 *     memory cannot be allocated runs the small-N variant): the matmul calls
 *     bb_kernel_fallback_note() once per call in which any output came from the other code, and
 *     the harness reports the count over a point's timed calls (results.csv's fallback_calls). */
typedef struct {
    const char *isa; /* "scalar", "avx2", "avx512", "avx512bf16", ... */
    uint64_t requires;
    bb_matmul_fn *matmul;
    bb_prepare_fn *prepare;
    const char *small_n_isa; /* the variant that runs when n < min_n; NULL: no such rule */
    int min_n;
    /* Rows the variant computes together in one pass over their weights, where that is more than
     * m_multiple (0 otherwise): a slice of fewer rows runs narrower passes, which load the same
     * tables for fewer rows and prefetch less far (the elut tiles).  A hint for callers that cut
     * M into slices: the engine's decode chunks are multiples of it.  A multiple of m_multiple. */
    int m_pass;
    /* true: the variant issues its software prefetches only where bb_cpu_stream_prefetch() says
     * (cpu.h), and where it does not, reads the weights as one forward stream (q8_0_x16 always
     * does; the AVX-512 x16 readers of q8_K activations leave their lockstep order then); results
     * record that setting (bb_variant_follows_stream_prefetch).  Same bits either way. */
    bool stream_prefetch;
} bb_variant;

#define BB_MAX_VARIANTS 6

/* What `bitbench describe`, `bitbench list kernels --json` and Lua's bitbench.kernel() say about a
 * kernel beyond the fields of bb_kernel: facts from its header (layout, semantics), stated in its
 * descriptor, where it registers; tests/test_kernel_about.c checks them against the descriptor and
 * the code (docs/kernels.md, "`bitbench describe`").  Counts are per weight of the M x K matrix
 * and per activation column; kernel_about.h derives bytes and operations at N = 1 and per extra
 * column from them. */
typedef struct bb_kernel_about {
    /* The stored layout in a few lines, separated by '\n'. */
    const char *layout_text;
    /* The layout's repeating unit: block_weights weights in block_bytes bytes, scales included,
     * so that bits_per_weight == 8 * block_bytes / block_weights. */
    int block_weights;
    int block_bytes;
    /* Storage outside the blocks (a per-tensor scale, per-row scales, a codebook), or "none". */
    const char *outside_blocks;
    /* What prepare() makes of one activation column, in words. */
    const char *activation;
    /* Bytes of prepared activations (or table entries) the reference semantics read per weight and
     * per activation column: what each multiply (or lookup) meets besides the weight. */
    double act_bytes;
    /* Operations per weight and activation column of the reference semantics: a multiply, an add,
     * a table lookup each count 1 (a multiply-add 2); per-block scale steps are included, spread
     * over the block's weights; the decode of stored codes to numbers is not (SIMD variants share
     * it between columns: instruction counts per variant are docs/kernels.md's "Instructions per
     * 32 weights"), nor the few float operations per output. */
    double int_ops;
    double float_ops;
    /* Work per activation column that is not per weight (building lookup tables), as integer and
     * float operations per activation element (so per weight: divided by M), and in words. */
    double column_int_ops_per_k;
    double column_float_ops_per_k;
    const char *column_cost;
    /* What shape_error refuses, in words; NULL exactly when shape_error is NULL. */
    const char *shape_rules;
    /* Lossless kernels: what is exact; the others: the bound on |y - sum_k wdeq x| (the
     * conformance suite's, kernels/common/error_bound.h) and how the weights are rounded. */
    const char *error;
} bb_kernel_about;

typedef struct bb_kernel {
    const char *name;        /* unique, lower case: used on the command line, in Lua, in results */
    const char *family;      /* its folder: kernels/<family>, or "float" for baselines/ (bb_family_at) */
    const char *description; /* one line */
    const char *paper;       /* where it comes from: "bitnet.cpp §2" */
    double bits_per_weight;  /* as stored, scales included, for large K */
    bool lossless;           /* exact w.r.t. its reference semantics for its weight kind */
    bb_weight_kind weights;
    bb_act_format act;
    /* true: the packed weights are the M rows one after another, packed_size(1, K) bytes each,
     * and unpack(row, 1, K, dst) dequantizes any one row alone (the float kernels: f32,
     * f32_blas, f16, bf16).  The engine then looks a tied embedding up in the packed classifier. */
    bool plain_rows;
    /* false: every variant gives the scalar reference's bits (integer kernels, and float kernels
     * whose variants keep the reference's order of float operations).
     * true: variants accumulate float partial sums (per-block scale products, FMA lanes) in an
     * order of their own; the conformance suite then checks them against the reference within
     * float rounding of sum |terms| instead of bit for bit. */
    bool float_accumulation;
    /* The ggml type (as models/gguf_types.h names it: "TQ2_0", "F16", ...) whose GGUF tensor
     * bytes are this kernel's packed bytes for the same M x K: the rows one after another, any
     * per-tensor trailer where the kernel keeps it, the packed size at least the tensor's bytes
     * (the rest zero).  The engine then copies such a tensor as it is, without a dequantize and
     * requantize round trip.  NULL: no GGUF type is stored this way. */
    const char *gguf_type;
    /* Or the ggml type whose GGUF tensor bytes this kernel's layout rearranges (an interleaved
     * layout of that type's blocks: q2_k_x16 takes "Q2_K"), with repack_stored writing the packed
     * bytes (packed_size(m, k)) from such a tensor's M x K row-major blocks: the engine then loads
     * the tensor without a dequantize and requantize round trip, as llama.cpp's CPU_REPACK
     * buffers do, and the numbers are those of the kernel that stores the type as it is.  NULL
     * when there is none. */
    const char *gguf_repack_type;
    void (*repack_stored)(const void *src, int m, int k, void *dst);
    int k_multiple;          /* K must be a multiple of this */
    int m_multiple;          /* M, and every row-slice boundary, must be a multiple of this */

    /* Extra shape rules beyond the multiples; NULL or returns NULL when (m, k) is fine, else a
     * static message saying what is valid. */
    const char *(*shape_error)(int m, int k);

    bb_packed_size_fn *packed_size;
    /* Returns 0, or -1 with a message in err (e.g. a codebook that cannot be fitted). */
    bb_pack_fn *pack;
    /* Dequantize the packed weights to float M×K: what the kernel multiplies by. */
    bb_unpack_fn *unpack;

    bb_act_size_fn *act_size;
    bb_prepare_fn *prepare;

    /* Only for BB_ACT_CUSTOM: a bound on |y - sum_k wdeq[k]*x[k]| for one output. */
    double (*error_bound)(const float *wdeq_row, const float *x, int k);

    bb_variant variants[BB_MAX_VARIANTS]; /* variants[0] is the scalar reference */

    bb_kernel_about about;
} bb_kernel;

/* ---- registry (kernels/registry.c) ---- */

int bb_kernel_count(void);
const bb_kernel *bb_kernel_at(int i);
const bb_kernel *bb_kernel_by_name(const char *name);
/* For test programs only (tests/hooks/): add a kernel after the registry's, e.g. one wrong on
 * purpose, so that a test can show a check failing it.  Nothing in the bitbench program calls it.
 * Returns 0, or -1 when the name is taken or the few test slots are full. */
int bb_kernel_register_for_tests(const bb_kernel *k);
/* The kernel families, each once, in the order the registry first lists them; NULL past the end. */
int bb_family_count(void);
const char *bb_family_at(int i);
int bb_variant_count(const bb_kernel *k);

/* Resolve "name" or "name@isa".  Without @isa the best variant this CPU can run is chosen
 * (the last usable in the kernel's list).  Returns 0, or -1 with one line in err naming the
 * problem and the valid choices. */
int bb_kernel_resolve(const char *spec, const bb_kernel **kernel, const bb_variant **variant,
                      char *err, size_t errlen);

/* The isa of the code a matmul call of v with n activation rows runs by v's documented dispatch
 * rule: v->small_n_isa when n < v->min_n, else v->isa (kernels/dispatch.c). */
const char *bb_variant_ran(const bb_variant *v, int n);
/* Whether the code that runs variant v of kern at N = n (bb_variant_ran) follows
 * bb_cpu_stream_prefetch(): that variant's stream_prefetch. */
bool bb_variant_follows_stream_prefetch(const bb_kernel *kern, const bb_variant *v, int n);

/* Count one matmul call that ran other code than its variant's for a reason not in the variant's
 * dispatch rule (see bb_variant).  Thread-safe; the count is process-wide and only grows, so a
 * caller reads it before and after the calls it times.  Never called on a call's fast path. */
void bb_kernel_fallback_note(void);
uint64_t bb_kernel_fallback_calls(void);

/* ---- work sharing (kernels/chunks.c) ----
 * A call shared among threads is cut into chunks of rows that the threads take one after another,
 * each first streaming its own share forward, then helping with what is left of the others'
 * (support/pool.h, bb_pool_run_chunks).  With one fixed slice per thread the threads of a 700M
 * decode step waited for each other 5-6 % of the matmul time: a thread's DRAM stream runs faster
 * or slower from one call to the next (docs/models.md, "Matmul dispatch"); chunks of 16 or 64 KiB were no
 * different from 32.  A call with n > 1 activation rows takes at least BB_PREFILL_CHUNK_ROWS
 * rows per chunk: it has a cost per activation batch that does not shrink with its rows (the
 * @amx variants transpose all n x K activations into tiles, the GEMM tiles set up their
 * activation rows), which at 32 KiB of ternary weights (about 50 rows) was as large as the
 * arithmetic.  Every row is computed on slices whose ends are multiples of m_multiple, so the
 * result is the same bits however the chunks fall. */
#define BB_CHUNK_BYTES 32768
#define BB_PREFILL_CHUNK_ROWS 256
/* Rows per chunk of v's call on an M x K matrix with n activation rows: about BB_CHUNK_BYTES of
 * packed weights (n = 1) or at least BB_PREFILL_CHUNK_ROWS (n > 1), and a multiple of the
 * kernel's m_multiple, of 16 and of v's m_pass (v may be NULL). */
int bb_variant_chunk_rows(const bb_kernel *kern, const bb_variant *v, int m, int k, int n);

/* Is variant usable on this CPU? */
bool bb_variant_usable(const bb_variant *v);

/* Check a shape against a kernel.  Returns 0, or -1 with one line in err. */
int bb_kernel_check_shape(const bb_kernel *k, int m, int k_dim, int n, char *err, size_t errlen);

/* Pack with the representation the kernel wants: fills the ternary view when the kernel is
 * ternary and w has none.  dst must hold packed_size(m, k) bytes. */
int bb_kernel_pack(const bb_kernel *k, const bb_weights *w, void *dst, char *err, size_t errlen);

#endif
