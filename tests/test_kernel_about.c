/* `bitbench describe`, `bitbench list kernels --json` and the descriptors' `about` facts
 * (kernels/kernel.h, kernels/kernel_about.h), walking the registry:
 *   - every kernel has every field, non-empty; its paper names a paper of docs/papers.md by its
 *     short name;
 *   - bits_per_weight == 8 * block_bytes / block_weights, and packed_size(M, K) is the blocks'
 *     bytes plus at most a head, a trailer and a float per row ("none" outside: exactly);
 *   - the bytes read per weight are at least bits/8, the activation bytes a weight meets at most
 *     what prepare() writes per activation element; lookup-table kernels state a table cost;
 *   - shape_rules is there exactly when shape_error is; lossless kernels say so first;
 *   - the variant picked is the one bb_kernel_resolve picks, and each variant's "why" says usable
 *     exactly when it is;
 *   - bitbench list kernels --json parses (tests/json_check.h, independent of the writer) and
 *     names the same kernels as bitbench list kernels, each with the variant the table's last
 *     usable one, under this CPU and under BITBENCH_CPU_MASK=scalar (where the why names the mask);
 *   - bitbench describe KERNEL prints every field; an unknown kernel is one error line that says
 *     how to see the names, exit 2. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "files.h"
#include "json_check.h"
#include "kernels/kernel_about.h"

static const char *bin;
static char dir[] = "/tmp/bb_kernel_about_XXXXXX";

static bool nonempty(const char *s) { return s && *s; }

static const char *const short_names[] = {"bitnet.cpp", "1-bit AI Infra", "T-MAC", "Arm paper",
                                          "Intel up-convert paper"};

static bool names_a_paper(const char *paper)
{
    for (size_t i = 0; i < sizeof short_names / sizeof short_names[0]; i++)
        if (strstr(paper, short_names[i])) return true;
    return false;
}

/* A shape every registered kernel takes, with no TL2 sign-plane padding (K a multiple of 96). */
enum { TEST_M = 3072, TEST_K = 6912 };

static void test_facts(const bb_kernel *k)
{
    const bb_kernel_about *a = &k->about;
    const char *n = k->name;
    CHECK(nonempty(a->layout_text) && nonempty(a->outside_blocks) && nonempty(a->activation) && nonempty(a->column_cost) &&
              nonempty(a->error),
          "%s: a description field is empty", n);
    CHECK(nonempty(k->paper) && names_a_paper(k->paper), "%s: paper '%s' names no paper of docs/papers.md", n,
          k->paper ? k->paper : "");
    CHECK(a->block_weights > 0 && a->block_bytes > 0, "%s: block %d weights in %d bytes", n, a->block_weights,
          a->block_bytes);
    if (a->block_weights <= 0) return;
    double bpw = 8.0 * a->block_bytes / a->block_weights;
    CHECK(fabs(bpw - k->bits_per_weight) < 1e-9, "%s: block %d bytes / %d weights = %.6f bits, declared %.6f", n,
          a->block_bytes, a->block_weights, bpw, k->bits_per_weight);
    CHECK(TEST_K % k->k_multiple == 0 && TEST_M % k->m_multiple == 0, "%s: the test shape does not fit", n);
    size_t blocks = (size_t)TEST_M * TEST_K / (size_t)a->block_weights * (size_t)a->block_bytes;
    size_t packed = k->packed_size(TEST_M, TEST_K);
    CHECK((size_t)TEST_M * TEST_K % (size_t)a->block_weights == 0, "%s: M*K not whole blocks", n);
    CHECK(packed >= blocks && packed - blocks <= 128 + 4 * (size_t)TEST_M,
          "%s: packed %zu bytes at M=%d K=%d, blocks %zu: the rest is not a head, trailer or per-row scales", n, packed,
          TEST_M, TEST_K, blocks);
    if (!strcmp(a->outside_blocks, "none"))
        CHECK(packed == blocks, "%s: nothing outside the blocks, yet packed %zu != blocks %zu", n, packed, blocks);
    else CHECK(packed > blocks, "%s: says '%s' outside the blocks, but there is nothing", n, a->outside_blocks);

    bb_kernel_figures f;
    bb_kernel_figures_at(k, TEST_M, TEST_K, &f);
    CHECK(f.weight_bytes >= k->bits_per_weight / 8 - 1e-12 && f.bytes_n1 >= k->bits_per_weight / 8,
          "%s: %.4f bytes per weight < %.4f bits / 8", n, f.bytes_n1, k->bits_per_weight);
    double act_per_element = (double)k->act_size(1, TEST_K) / TEST_K;
    CHECK(a->act_bytes > 0 && a->act_bytes <= act_per_element * (1 + 1e-9),
          "%s: %.4f activation bytes per weight, prepare() writes %.4f per element", n, a->act_bytes, act_per_element);
    /* from memory: the weights once, each prepared column once over the M rows */
    CHECK(fabs(f.bytes_per_column - act_per_element / TEST_M) < 1e-15 &&
              fabs(f.bytes_n1 - (f.weight_bytes + f.bytes_per_column)) < 1e-15 && f.touched_per_column == a->act_bytes,
          "%s: bytes n1 %.6f, per column %.6f, touched %.4f", n, f.bytes_n1, f.bytes_per_column, f.touched_per_column);
    CHECK(a->int_ops >= 0 && a->float_ops >= 0 && a->int_ops + a->float_ops > 0, "%s: %g int + %g float ops", n,
          a->int_ops, a->float_ops);
    CHECK(a->column_int_ops_per_k >= 0 && a->column_float_ops_per_k >= 0, "%s: negative column cost", n);
    bool lut = !strcmp(k->family, "bitlut") || !strcmp(k->family, "elut");
    CHECK(lut == (a->column_int_ops_per_k + a->column_float_ops_per_k > 0),
          "%s: family %s, table building per column %g + %g ops per element", n, k->family, a->column_int_ops_per_k,
          a->column_float_ops_per_k);
    CHECK(f.int_ops_n1 >= a->int_ops && f.float_ops_n1 >= a->float_ops, "%s: figures below the per-weight ops", n);
    CHECK((k->shape_error != NULL) == nonempty(a->shape_rules), "%s: shape_error %s, shape_rules '%s'", n,
          k->shape_error ? "set" : "NULL", a->shape_rules ? a->shape_rules : "(NULL)");
    CHECK(k->lossless == !strncmp(a->error, "lossless", 8), "%s: lossless %d, error '%.40s...'", n, k->lossless,
          a->error);

    const bb_kernel *rk;
    const bb_variant *rv;
    char err[1024], why[2048];
    CHECK(bb_kernel_resolve(k->name, &rk, &rv, err, sizeof err) == 0 && rk == k && rv == bb_kernel_default_variant(k),
          "%s: the default variant is not the one resolve picks", n);
    bb_variant_choice_why(k, bb_kernel_default_variant(k), why, sizeof why);
    const bb_variant *dv = bb_kernel_default_variant(k);
    CHECK(dv && !strncmp(why, dv->isa, strlen(dv->isa)), "%s: the choice's why '%s'", n, why);
    for (int i = 0; i < bb_variant_count(k); i++) {
        bb_variant_why(&k->variants[i], why, sizeof why);
        CHECK(bb_variant_usable(&k->variants[i]) == !strncmp(why, "usable", 6), "%s@%s: usable %d, why '%s'", n,
              k->variants[i].isa, bb_variant_usable(&k->variants[i]), why);
    }
}

/* Run bitbench with argv and BITBENCH_CPU_MASK=mask (NULL: as this test has it); stdout, stderr
 * into files.
 * Returns the exit status (-1 for a signal). */
static int run(char *const argv[], const char *mask, const char *out, const char *err)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(out, "w", stdout) || !freopen(err, "w", stderr)) _exit(127);
        if (mask) setenv("BITBENCH_CPU_MASK", mask, 1);
        execv(bin, argv);
        _exit(127);
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid) return -2;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The rows of `bitbench list kernels`: name and the variants column, in order. */
typedef struct {
    char name[64], variants[160];
} table_row;

static int table_rows(const char *text, table_row *rows, int cap)
{
    int n = 0;
    const char *line = strchr(text, '\n'); /* after the header */
    while (line && *++line && n < cap) {
        char name[64], family[32], bpw[32], lossless[16], vars[160];
        if (sscanf(line, "%63s %31s %31s %15s %159s", name, family, bpw, lossless, vars) == 5 && bb_kernel_by_name(name)) {
            snprintf(rows[n].name, sizeof rows[n].name, "%s", name);
            snprintf(rows[n].variants, sizeof rows[n].variants, "%s", vars);
            n++;
        } else if (strncmp(line, "@amx", 4)) {
            CHECK(0, "list kernels: a line that is no kernel: %.60s", line);
        }
        line = strchr(line, '\n');
    }
    return n;
}

static void test_list_json(const char *mask)
{
    char out[512], err[512], tout[512];
    snprintf(out, sizeof out, "%s/list.json", dir);
    snprintf(err, sizeof err, "%s/list.err", dir);
    snprintf(tout, sizeof tout, "%s/list.txt", dir);
    char *jargv[] = {(char *)bin, "list", "kernels", "--json", NULL};
    char *targv[] = {(char *)bin, "list", "kernels", NULL};
    int rc = run(jargv, mask, out, err), trc = run(targv, mask, tout, err);
    CHECK(rc == 0 && trc == 0, "list kernels --json: rc %d, list kernels: rc %d (mask %s)", rc, trc, mask ? mask : "-");
    char *json = slurp(out), *text = slurp(tout), perr[256];
    jnode *root = json ? json_parse(json, perr, sizeof perr) : NULL;
    CHECK(root && root->t == J_ARR, "list kernels --json does not parse: %s", root ? "not an array" : perr);
    table_row rows[128];
    int nrows = text ? table_rows(text, rows, 128) : 0;
    if (root && root->t == J_ARR) {
        CHECK(root->nkids == nrows && nrows == bb_kernel_count(), "list kernels --json: %d kernels, the table %d, registry %d",
              root->nkids, nrows, bb_kernel_count());
        for (int i = 0; i < root->nkids && i < nrows; i++) {
            const jnode *e = &root->kids[i];
            const jnode *name = json_at(e, "name"), *var = json_at(e, "variant"), *why = json_at(e, "variant_why");
            CHECK(name && name->t == J_STR && !strcmp(name->str, rows[i].name), "element %d: name %s, the table's %s", i,
                  name && name->t == J_STR ? name->str : "?", rows[i].name);
            /* the table lists the usable variants least capable first: the pick is the last */
            const char *last = strrchr(rows[i].variants, ',');
            last = last ? last + 1 : rows[i].variants;
            CHECK(var && var->t == J_STR && !strcmp(var->str, last), "%s: picks %s, the table's last usable is %s",
                  rows[i].name, var && var->t == J_STR ? var->str : "?", last);
            static const char *const strings[] = {"family", "description", "paper", "layout", "outside_blocks",
                                                  "act_format", "activation", "error", "error_bound",
                                                  "ops_per_weight.counted", "ops_per_weight.column_cost"};
            for (size_t s = 0; s < sizeof strings / sizeof strings[0]; s++) {
                const jnode *v = json_at(e, strings[s]);
                CHECK(v && v->t == J_STR && v->str[0], "%s: %s missing or empty", rows[i].name, strings[s]);
            }
            static const char *const numbers[] = {"bits_per_weight", "block_weights", "block_bytes",
                                                  "bytes_per_weight.weights", "bytes_per_weight.n1",
                                                  "bytes_per_weight.per_extra_column",
                                                  "bytes_per_weight.touched_per_column", "ops_per_weight.n1.int",
                                                  "ops_per_weight.n1.float", "ops_per_weight.per_extra_column.int",
                                                  "ops_per_weight.per_extra_column.float", "constraints.k_multiple",
                                                  "constraints.m_multiple"};
            for (size_t s = 0; s < sizeof numbers / sizeof numbers[0]; s++) {
                const jnode *v = json_at(e, numbers[s]);
                CHECK(v && v->t == J_NUM && v->num >= 0, "%s: %s missing or not a number", rows[i].name, numbers[s]);
            }
            const jnode *all = json_at(e, "all_variants");
            const bb_kernel *k = bb_kernel_by_name(rows[i].name);
            CHECK(all && all->t == J_ARR && k && all->nkids == bb_variant_count(k), "%s: all_variants vs the registry's %d",
                  rows[i].name, k ? bb_variant_count(k) : -1);
            for (int v = 0; all && all->t == J_ARR && k && v < all->nkids && v < bb_variant_count(k); v++) {
                const jnode *isa = json_at(&all->kids[v], "isa");
                CHECK(isa && isa->t == J_STR && !strcmp(isa->str, k->variants[v].isa), "%s: variant %d", rows[i].name, v);
            }
            if (mask && !strcmp(mask, "scalar") && k) {
                /* the scalar level keeps no feature: the pick is the last variant needing none
                 * (scalar, or f32_blas's openblas) */
                const char *plain = NULL;
                for (int v = 0; v < bb_variant_count(k); v++)
                    if (!k->variants[v].requires) plain = k->variants[v].isa;
                CHECK(var && var->t == J_STR && plain && !strcmp(var->str, plain), "%s under the scalar mask picks %s",
                      rows[i].name, var && var->t == J_STR ? var->str : "?");
                /* a SIMD variant this CPU has, listed after it, is said to be masked off */
                bool has_simd = false;
                for (int v = 1; v < bb_variant_count(k); v++)
                    has_simd |= k->variants[v].requires &&
                                (bb_cpu_features_detected() & k->variants[v].requires) == k->variants[v].requires;
                if (has_simd)
                    CHECK(why && why->t == J_STR && strstr(why->str, "masked off by BITBENCH_CPU_MASK=scalar"),
                          "%s: the why does not name the mask: %s", rows[i].name, why && why->t == J_STR ? why->str : "?");
            }
        }
    }
    json_free(root);
    free(json);
    free(text);
}

static void test_describe_cli(void)
{
    char out[512], err[512];
    snprintf(out, sizeof out, "%s/d.out", dir);
    snprintf(err, sizeof err, "%s/d.err", dir);
    char *argv[] = {(char *)bin, "describe", "tl2_0", NULL};
    int rc = run(argv, NULL, out, err);
    char *text = slurp(out);
    CHECK(rc == 0 && text, "describe tl2_0: rc %d", rc);
    static const char *const labels[] = {"tl2_0: ", "\nfamily ", "\npaper ", "\nweights ", "\nlayout ",
                                         "\nactivations ", "\nbytes/weight ", "\nops/weight ", "\nconstraints ",
                                         "\naccuracy ", "\nvariants ", "\npicked here ", "\ncpu mask ",
                                         "bitnet.cpp §3.1", "1.667 bits per weight", "1536 weights in 320 bytes"};
    for (size_t i = 0; text && i < sizeof labels / sizeof labels[0]; i++)
        CHECK(strstr(text, labels[i]), "describe tl2_0 lacks '%s'", labels[i]);
    free(text);

    char *bad[] = {(char *)bin, "describe", "no_such_kernel", NULL};
    rc = run(bad, NULL, out, err);
    char *e = slurp(err), *o = slurp(out);
    CHECK(rc == 2 && e && strstr(e, "unknown kernel 'no_such_kernel'") && strstr(e, "bitbench list kernels") &&
              strchr(e, '\n') == e + strlen(e) - 1 && o && !o[0],
          "describe no_such_kernel: rc %d, stderr %s", rc, e ? e : "");
    free(e), free(o);
    char *none[] = {(char *)bin, "describe", NULL};
    rc = run(none, NULL, out, err);
    e = slurp(err);
    CHECK(rc == 2 && e && strstr(e, "bitbench list kernels"), "describe without a kernel: rc %d, %s", rc, e ? e : "");
    free(e);
    char *extra[] = {(char *)bin, "list", "kernels", "--csv", NULL};
    rc = run(extra, NULL, out, err);
    e = slurp(err);
    CHECK(rc == 2 && e && strstr(e, "unexpected '--csv'; valid: --json"), "list kernels --csv: rc %d, %s", rc, e ? e : "");
    free(e);
    char *json[] = {(char *)bin, "describe", "i2_s", "--json", NULL};
    rc = run(json, NULL, out, err);
    char *j = slurp(out), perr[256];
    jnode *root = j ? json_parse(j, perr, sizeof perr) : NULL;
    const jnode *bw = root ? json_at(root, "bytes_per_weight.weights") : NULL;
    CHECK(rc == 0 && root && bw && bw->t == J_NUM && bw->num == 0.25, "describe i2_s --json: rc %d, %s", rc,
          root ? "weights bytes not 0.25" : perr);
    json_free(root);
    free(j);
}

int main(void)
{
    for (int i = 0; i < bb_kernel_count(); i++) test_facts(bb_kernel_at(i));
    bin = getenv("BITBENCH_BIN");
    if (!bin || access(bin, X_OK) != 0) {
        fprintf(stderr, "test_kernel_about: set BITBENCH_BIN to the bitbench binary (ctest does)\n");
        return 1;
    }
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_list_json(NULL);
    test_list_json("scalar");
    test_describe_cli();
    if (check_failed == 0) remove_tree(dir);
    return check_summary("test_kernel_about");
}
