/* The pieces under the results: the JSON emitter (parsed back strictly), CSV quoting and the
 * resume reader (round trip, empty cells for unmeasured values, a cut-short last row dropped),
 * SHA-256 against FIPS 180-4 vectors, the statistics and spread, list parsing, name suggestions,
 * and the timer meter. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cli/args.h"
#include "files.h"
#include "io/json.h"
#include "io/json_read.h"
#include "io/sha256.h"
#include "json_check.h"
#include "meters/meter.h"
#include "results/results.h"
#include "results/results_e2e.h"
#include "support/stats.h"
#include "support/suggest.h"

static void test_json(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    bb_json j;
    bb_json_init(&j, f);
    bb_json_object_begin(&j, NULL);
    bb_json_string(&j, "text", "quote \" backslash \\ newline \n tab \t bell \a é");
    bb_json_number(&j, "pi", 3.141592653589793);
    bb_json_number(&j, "nan", NAN);
    bb_json_number(&j, "inf", INFINITY);
    bb_json_int(&j, "big", 9007199254740993LL);
    bb_json_bool(&j, "yes", true);
    bb_json_null(&j, "nothing");
    bb_json_string(&j, "null_string", NULL);
    bb_json_array_begin(&j, "empty");
    bb_json_array_end(&j);
    bb_json_object_begin(&j, "nested");
    bb_json_array_begin(&j, "list");
    bb_json_int(&j, NULL, 1);
    bb_json_object_begin(&j, NULL);
    bb_json_string(&j, "k", "v");
    bb_json_object_end(&j);
    bb_json_array_end(&j);
    bb_json_object_end(&j);
    bb_json_object_end(&j);
    bb_json_finish(&j);
    fclose(f);
    char err[256] = "";
    jnode *root = json_parse(buf, err, sizeof err);
    CHECK(root != NULL, "emitted JSON parses: %s\n%s", err, buf);
    if (root) {
        const jnode *t = json_at(root, "text");
        CHECK(t && t->t == J_STR && !strcmp(t->str, "quote \" backslash \\ newline \n tab \t bell \a é"),
              "string escapes round-trip");
        CHECK(json_at(root, "pi")->num == 3.141592653589793, "full precision");
        CHECK(json_at(root, "nan")->t == J_NULL && json_at(root, "inf")->t == J_NULL, "NaN/inf are null");
        CHECK(json_at(root, "big")->t == J_NUM, "int");
        CHECK(json_at(root, "yes")->b == 1 && json_at(root, "nothing")->t == J_NULL &&
                  json_at(root, "null_string")->t == J_NULL,
              "bool, null");
        CHECK(json_at(root, "empty")->t == J_ARR && json_at(root, "empty")->nkids == 0, "empty array");
        CHECK(!strcmp(json_at(root, "nested.list.1.k")->str, "v"), "nesting");
        json_free(root);
    }
    free(buf);
}

static bb_result_row sample_row(int point)
{
    bb_result_row r = {0};
    snprintf(r.experiment, sizeof r.experiment, "exp");
    snprintf(r.sweep, sizeof r.sweep, "s");
    r.point = point;
    snprintf(r.kernel, sizeof r.kernel, "i2_s");
    snprintf(r.variant, sizeof r.variant, "amx");
    snprintf(r.variant_ran, sizeof r.variant_ran, "%s", point < 16 ? "avx512" : "amx");
    snprintf(r.family, sizeof r.family, "mad");
    r.bits_per_weight = 2;
    r.lossless = 1;
    snprintf(r.model, sizeof r.model, "m");
    snprintf(r.roles, sizeof r.roles, "q+o");
    r.m = 2560;
    r.k = 2560;
    r.n = point;
    r.threads = 2;
    snprintf(r.cpus, sizeof r.cpus, "0;1");
    snprintf(r.cache, sizeof r.cache, "resident");
    r.warmup = 3;
    r.reps = 10;
    r.t_median_s = 1.0 / 3;
    r.t_min_s = 0.25;
    r.t_max_s = 0.5;
    r.t_sd_s = 0.01;
    r.spread = 0.02;
    r.gops = 1e-3;
    r.weight_bytes = 1638464;
    r.gbps = 4.9;
    r.err_max_abs = 0.0125;
    r.err_rel_rms = 0.0075;
    r.err_master_rel_rms = 0.0875;
    r.weight_rel_rms = NAN;
    r.nmeter = 2;
    r.meter[0] = 123.5;
    r.meter[1] = NAN;
    return r;
}

static void test_csv(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    bb_csv_field(f, "plain");
    fputc('|', f);
    bb_csv_field(f, "a,b");
    fputc('|', f);
    bb_csv_field(f, "say \"hi\"");
    fputc('|', f);
    bb_csv_field(f, "two\nlines");
    fclose(f);
    CHECK(!strcmp(buf, "plain|\"a,b\"|\"say \"\"hi\"\"\"|\"two\nlines\""), "RFC 4180 quoting: %s", buf);
    free(buf);

    char path[] = "/tmp/bb_results_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "temp file");
    if (fd < 0) return;
    close(fd);
    const char *mcols[] = {"x_a", "x_b"};
    char header[2048];
    bb_csv_header(mcols, 2, header, sizeof header);
    CHECK(!strncmp(header, "experiment,sweep,point,kernel,variant,variant_ran,fallback_calls,family,", 72) &&
              strstr(header, ",gbps,err_max_abs,err_rel_rms,err_master_rel_rms,weight_rel_rms,attempts,t_q1_s,t_q3_s,verify,"
                                                                               "rotated_bytes,cache_source,min_reps,"
                                                                               "min_seconds,seed,delay_s,roofline_fraction,"
                                                                               "roofline_ceiling,read_t_median_s,read_t_min_s,read_gbps,"
                                                                               "read_ratio_paired,rounds,round,rounds_t_median_s,"
                                                                               "rounds_read_ratio_paired,read_streams,stream_prefetch,run_id,host,commit,load_before,load_after,"
                                                                               "other_cpu_share,busy,cpu_model,x_a,x_b"),
          "header: %s", header);
    f = fopen(path, "w");
    fprintf(f, "%s\n", header);
    bb_result_row a = sample_row(1), b = sample_row(2);
    b.fallback_calls = 2;
    CHECK(bb_csv_write_row(f, &a) == 0 && bb_csv_write_row(f, &b) == 0, "write rows");
    fputs("exp,s,3,i2_s,av", f); /* a row cut short by a kill */
    fclose(f);
    bb_result_row *rows;
    int n;
    char err[512];
    int rc = bb_csv_read(path, header, 2, &rows, &n, err, sizeof err);
    CHECK(rc == 0 && n == 2, "read back 2 rows: %s", rc ? err : "");
    if (rc == 0 && n == 2) {
        CHECK(rows[1].n == 2 && !strcmp(rows[1].cpus, "0;1") && !strcmp(rows[1].roles, "q+o"), "fields");
        CHECK(!strcmp(rows[1].variant, "amx") && !strcmp(rows[1].variant_ran, "avx512") && rows[1].fallback_calls == 2,
              "the variant asked for, the code that ran and the fallbacks read back");
        CHECK(rows[0].t_median_s == a.t_median_s && rows[1].t_median_s == b.t_median_s && rows[0].gops == a.gops,
              "numbers read back as the very doubles written (full precision)");
        CHECK(rows[0].meter[0] == 123.5 && isnan(rows[0].meter[1]), "meter values, empty = not measured");
        CHECK(rows[0].err_max_abs == 0.0125 && rows[0].err_rel_rms == 0.0075 && rows[0].err_master_rel_rms == 0.0875 &&
                  isnan(rows[0].weight_rel_rms),
              "verify columns read back, empty = not verified");
        free(rows);
    }
    /* the partial row is gone from the file */
    char *text = slurp(path);
    CHECK(text && text[strlen(text) - 1] == '\n' && !strstr(text, ",av\n") && !strstr(text, "exp,s,3"),
          "truncated to the last complete row");
    free(text);
    /* an empty cell is written for an unmeasured meter value */
    text = NULL;
    f = open_memstream(&text, &len);
    bb_csv_write_row(f, &a);
    fclose(f);
    CHECK(len > 2 && !strcmp(text + len - 2, ",\n") && strstr(text, ",123.5,\n"), "NaN meter -> empty cell: %s", text);
    free(text);
    rc = bb_csv_read(path, "other,header", 2, &rows, &n, err, sizeof err);
    CHECK(rc == -1 && strstr(err, "other columns"), "header mismatch refused: %s", err);
    unlink(path);
}

/* e2e.csv through its column list: numbers at full precision (the shortest text that reads back as
 * the same double; byte counts as integers), empty when not measured, and a resumed run reads them
 * back, the cut-short row dropped. */
/* The markdown tables name the code that ran beside the variant asked for, and note fallbacks. */
static void test_markdown_ran(void)
{
    bb_result_row rows[2] = {sample_row(1), sample_row(16)};
    rows[0].fallback_calls = 1;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    bb_markdown_table(f, rows, 2);
    fclose(f);
    CHECK(buf && strstr(buf, "| i2_s@amx (ran avx512) |") && strstr(buf, "| i2_s@amx |") &&
              strstr(buf, "| 1 fallback calls |"),
          "results table: %s", buf ? buf : "");
    free(buf);
    bb_e2e_row e = {.prompt = 70, .gen = 8, .threads = 1};
    strcpy(e.model, "m");
    strcpy(e.kernel, "i2_s");
    strcpy(e.variant, "amx");
    strcpy(e.variant_ran_pp, "amx+avx512");
    strcpy(e.variant_ran_tg, "avx512");
    buf = NULL;
    f = open_memstream(&buf, &len);
    bb_e2e_markdown_table(f, &e, 1);
    fclose(f);
    CHECK(buf && strstr(buf, "| i2_s@amx (ran amx+avx512) | 1 | pp70 |") && strstr(buf, "| i2_s@amx (ran avx512) | 1 | tg8 |"),
          "e2e table: %s", buf ? buf : "");
    free(buf);
}

static void test_e2e_csv(void)
{
    bb_e2e_row r = {.point = 3, .bits_per_weight = 1.6666667, .threads = 2, .prompt = 0, .gen = 16, .reps = 3,
                    .pp_tps = 0, .pp_tps_min = 0, .pp_tps_max = 0, .tg_tps = 18.92221, .tg_tps_min = 18.3758,
                    .tg_tps_max = 20.0224, .ms_per_token = 52.84801, .matmul_share = 0.97471,
                    .weight_bytes_per_token = 1012680192, .tg_gbps_derived = 19.1621, .read_tps = 27.5065,
                    .read_tps_max = 28.368, .read_gbps = 27.855, .read_streams = 8, .tg_of_read = 0.68789, .footprint_bytes = 1026766728,
                    .logit_max_abs_err = NAN, .logit_rel_rms_err = NAN, .top1_agreement = NAN,
                    .logits_identical = NAN, .ppl = NAN, .ppl_err = NAN, .ppl_tokens = NAN, .ppl_tps = NAN,
                    .energy_per_token_j = NAN, .nmeter = 2, .meter = {0.845570097, NAN},
                    .prov = {.load_before = NAN, .load_after = NAN, .other_cpu_share = NAN},
                    .pp_spread = NAN, .tg_spread = 0.05, .spread_flag = 0, .attempts = 1};
    strcpy(r.experiment, "bitnet_fig8");
    strcpy(r.sweep, "threads");
    strcpy(r.model, "bitnet-dummy-3.8b");
    strcpy(r.kernel, "tl2_0");
    strcpy(r.variant, "amx");
    strcpy(r.variant_ran_pp, "amx+avx512");
    strcpy(r.variant_ran_tg, "avx512");
    r.fallback_calls = 2;
    strcpy(r.family, "elut");
    strcpy(r.out_kernel, "f16");
    strcpy(r.stream_prefetch, "off");
    const char *mcols[] = {"timer_region_s", "timer_tsc_ghz"};
    char header[4096];
    bb_e2e_header(mcols, 2, header, sizeof header);
    CHECK(!strcmp(header, "experiment,sweep,point,model,kernel,variant,variant_ran_pp,variant_ran_tg,fallback_calls,"
                          "family,bits_per_weight,out_kernel,threads,"
                          "prompt,gen,reps,pp_tps,pp_tps_min,pp_tps_max,tg_tps,tg_tps_min,tg_tps_max,ms_per_token,"
                          "matmul_share,weight_bytes_per_token,tg_gbps_derived,read_tps,read_tps_max,read_gbps,"
                          "tg_of_read,footprint_bytes,ref_kernel,logit_max_abs_err,logit_rel_rms_err,top1_agreement,"
                          "logits_identical,ppl_model,ppl,ppl_err,ppl_tokens,ppl_tps,peer,peer_commit,pp_samples,"
                          "tg_samples,energy_per_token_j,cpus,depth,kv_type_k,kv_type_v,kv_bytes_per_token,run_id,host,"
                          "commit,load_before,load_after,other_cpu_share,busy,pp_spread,tg_spread,spread_flag,attempts,"
                          "rounds,round,rounds_pp_tps,rounds_tg_tps,rounds_tg_of_read,interleaved,read_streams,stream_prefetch,cpu_model,"
                          "timer_region_s,"
                          "timer_tsc_ghz"),
          "e2e header: %s", header);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    bb_e2e_write_row(f, &r);
    strcpy(r.ref_kernel, "f32");
    r.logit_max_abs_err = 0.03125;
    r.logit_rel_rms_err = 0.0012;
    r.top1_agreement = 1;
    r.logits_identical = 0;
    bb_e2e_write_row(f, &r);
    fclose(f);
    /* ... cpus (empty), then depth 0, kv_type_k and kv_type_v unrecorded, kv_bytes_per_token 0; every
     * number at full precision (the shortest text that reads back as the same double), stream_prefetch
     * off, cpu_model empty */
    const char *want = "bitnet_fig8,threads,3,bitnet-dummy-3.8b,tl2_0,amx,amx+avx512,avx512,2,elut,1.6666667,f16,2,0,16,3,0,0,0,"
                       "18.92221,18.3758,20.0224,52.84801,0.97471,1012680192,19.1621,27.5065,28.368,27.855,0.68789,"
                       "1026766728,,,,,,,,,,,,,,,,,0,,,0,,,,,,,0,,0.05,0,1,0,0,,,,,8,off,,0.845570097,\n"
                       "bitnet_fig8,threads,3,bitnet-dummy-3.8b,tl2_0,amx,amx+avx512,avx512,2,elut,1.6666667,f16,2,0,16,3,0,0,0,"
                       "18.92221,18.3758,20.0224,52.84801,0.97471,1012680192,19.1621,27.5065,28.368,27.855,0.68789,"
                       "1026766728,f32,0.03125,0.0012,1,0,,,,,,,,,,,,0,,,0,,,,,,,0,,0.05,0,1,0,0,,,,,8,off,,0.845570097,\n";
    CHECK(!strcmp(buf, want), "e2e rows as the positional writer wrote them:\n%s", buf);

    char path[] = "/tmp/bb_e2e_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "temp file");
    if (fd >= 0) {
        close(fd);
        f = fopen(path, "w");
        fprintf(f, "%s\n%s", header, buf);
        fputs("bitnet_fig8,threads,4,bitn", f);
        fclose(f);
        bb_e2e_row *rows;
        int n;
        char err[512];
        int rc = bb_e2e_read(path, header, 2, &rows, &n, err, sizeof err);
        CHECK(rc == 0 && n == 2, "e2e rows read back: %s", rc ? err : "");
        if (rc == 0 && n == 2) {
            CHECK(rows[1].tg_tps == 18.92221 && rows[1].ms_per_token == 52.84801 && rows[1].gen == 16 && !strcmp(rows[1].ref_kernel, "f32") &&
                      !strcmp(rows[1].stream_prefetch, "off") &&
                      rows[1].logits_identical == 0 && isnan(rows[0].logits_identical) && isnan(rows[1].meter[1]),
                  "e2e fields");
            free(rows);
        }
        rc = bb_e2e_read(path, "experiment,sweep", 2, &rows, &n, err, sizeof err);
        CHECK(rc == -1 && strstr(err, "other columns"), "e2e header mismatch refused: %s", err);
        unlink(path);
    }
    free(buf);
}

/* The one CSV reader: quoted fields, CRLF, a malformed record named by line, and the lenient mode
 * `bitbench plot` uses for files from elsewhere. */
static void test_csv_reader(void)
{
    char path[] = "/tmp/bb_csvread_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "temp file");
    if (fd < 0) return;
    close(fd);
    FILE *f = fopen(path, "w");
    fputs("# a comment\nname,\"a,b\",c\r\n\"x \"\"y\"\"\",2,\n\n1\n", f);
    fclose(f);
    bb_csv_table t;
    char err[512];
    int rc = bb_csv_load(path, BB_CSV_LENIENT, &t, err, sizeof err);
    CHECK(rc == 0 && t.ncols == 3 && t.nrows == 2, "lenient read: %s", rc ? err : "");
    if (rc == 0) {
        CHECK(bb_csv_col(&t, "a,b") == 1 && bb_csv_col(&t, "c") == 2 && bb_csv_col(&t, "d") == -1, "columns by name");
        CHECK(!strcmp(bb_csv_cell(&t, 0, 0), "x \"y\"") && bb_csv_cell_num(&t, 0, 1) == 2 &&
                  isnan(bb_csv_cell_num(&t, 0, 2)) && !strcmp(bb_csv_cell(&t, 1, 2), ""),
              "quoted cells, empty cells, a short row padded");
        bb_csv_table_free(&t);
    }
    f = fopen(path, "w");
    fputs("a,b\n1,2\n3\n", f);
    fclose(f);
    rc = bb_csv_load(path, 0, &t, err, sizeof err);
    CHECK(rc == -1 && strstr(err, ":3: 1 fields, the header has 2"), "a short row is an error naming its line: %s",
          err);
    f = fopen(path, "w");
    fputs("a,b\n\"1,2\n", f);
    fclose(f);
    rc = bb_csv_load(path, 0, &t, err, sizeof err);
    CHECK(rc == -1 && strstr(err, ":2: not a well-formed CSV record"), "unbalanced quote: %s", err);
    unlink(path);
    rc = bb_csv_load(path, 0, &t, err, sizeof err);
    CHECK(rc == -1 && strstr(err, path) && strstr(err, "cannot open it"), "missing file: %s", err);
}

/* The one JSON reader: what the emitter writes reads back by member name; malformed documents are
 * refused with the offset of the fault. */
static void test_json_reader(void)
{
    char err[256];
    bb_jv *v = bb_json_parse("{\"a\": [1, -2.5e3, true, null], \"s\": \"q\\\"\\u00e9\\ud83d\\ude00\", "
                             "\"o\": {\"k\": \"v\"}, \"a\": 2}", err, sizeof err);
    CHECK(v != NULL, "parses: %s", err);
    if (v) {
        const bb_jv *a = bb_jv_get(v, "a");
        CHECK(a && a->type == BB_JV_ARR && a->n == 4 && a->items[1].num == -2500 && a->items[2].b &&
                  a->items[3].type == BB_JV_NULL,
              "array items");
        CHECK(!strcmp(bb_jv_str(v, "s"), "q\"\xc3\xa9\xf0\x9f\x98\x80"), "escapes and surrogate pairs to UTF-8");
        CHECK(!strcmp(bb_jv_str(bb_jv_get(v, "o"), "k"), "v") && isnan(bb_jv_num(v, "s")) && !bb_jv_str(v, "zz"),
              "members by name, wrong types and missing members");
        bb_jv_free(v);
    }
    const char *bad[] = {"", "{", "{\"a\" 1}", "[1,]", "[1 2]", "\"abc", "\"\\x\"", "\"\\ud800\"", "{} x", "nul"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        v = bb_json_parse(bad[i], err, sizeof err);
        CHECK(v == NULL && strstr(err, "offset "), "refused: '%s' (%s)", bad[i], err);
        bb_jv_free(v);
    }
    char deep[200];
    memset(deep, '[', sizeof deep - 1);
    deep[sizeof deep - 1] = 0;
    v = bb_json_parse(deep, err, sizeof err);
    CHECK(v == NULL && strstr(err, "deeply"), "deep nesting refused: %s", err);
}

static void test_sha256(void)
{
    static const struct { const char *in, *hex; } v[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        bb_sha256 s;
        bb_sha256_init(&s);
        /* in two pieces, to cross the block buffering */
        size_t l = strlen(v[i].in);
        bb_sha256_update(&s, v[i].in, l / 2);
        bb_sha256_update(&s, v[i].in + l / 2, l - l / 2);
        uint8_t d[32];
        bb_sha256_final(&s, d);
        char hex[65];
        for (int b = 0; b < 32; b++) snprintf(hex + 2 * b, 3, "%02x", d[b]);
        CHECK(!strcmp(hex, v[i].hex), "sha256(\"%s\") = %s", v[i].in, hex);
    }
    bb_sha256 s;
    bb_sha256_init(&s);
    char a[1000];
    memset(a, 'a', sizeof a);
    for (int i = 0; i < 1000; i++) bb_sha256_update(&s, a, sizeof a);
    uint8_t d[32];
    bb_sha256_final(&s, d);
    char hex[65];
    for (int b = 0; b < 32; b++) snprintf(hex + 2 * b, 3, "%02x", d[b]);
    CHECK(!strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"), "million a: %s", hex);
}

static void test_stats(void)
{
    double v[] = {5, 1, 4, 2, 3, 100};
    bb_stats s = bb_stats_of(v, 6);
    CHECK(s.min == 1 && s.max == 100 && s.median == 3.5, "min/max/median");
    CHECK(fabs(s.q1 - 2.25) < 1e-12 && fabs(s.q3 - 4.75) < 1e-12, "quartiles %g %g", s.q1, s.q3);
    CHECK(fabs(bb_stats_spread(&s) - 2.5 / 3.5) < 1e-12, "spread = IQR / median");
    CHECK(s.sd > 30, "sd sees the outlier");
    double w[100];
    for (int i = 0; i < 100; i++) w[i] = 1.0 + (i == 99 ? 50 : 0.001 * (i % 7));
    bb_stats t = bb_stats_of(w, 100);
    CHECK(!bb_stats_spread_large(&t, 0.1) && t.sd / t.median > 0.1,
          "one preempted call in a hundred does not flag the point (spread %g, sd/median %g)", bb_stats_spread(&t),
          t.sd / t.median);
    double one = 7;
    s = bb_stats_of(&one, 1);
    CHECK(s.median == 7 && s.sd == 0 && s.q1 == 7 && s.q3 == 7, "single sample");
}

static void test_args_and_names(void)
{
    int *v, n;
    CHECK(bb_parse_int_list("--t", "1,3-5,8", 1, 8, &v, &n) == 0 && n == 5 && v[1] == 3 && v[3] == 5 && v[4] == 8,
          "list with a range");
    free(v);
    CHECK(bb_parse_int_list("--t", "1,", 1, 8, &v, &n) == -1, "trailing comma refused");
    CHECK(bb_parse_int_list("--t", "3-1", 1, 8, &v, &n) == -1, "backwards range refused");
    CHECK(bb_parse_int_list("--t", "2,1-3", 1, 8, &v, &n) == -1, "duplicate refused");
    CHECK(bb_edit_distance("threads", "thread") == 1 && bb_edit_distance("", "abc") == 3, "edit distance");
    const char *c[] = {"threads", "warmup", "kernels", "vocab_size"};
    CHECK(!strcmp(bb_suggest("thraeds", c, 4), "threads"), "transposition suggested");
    CHECK(!strcmp(bb_suggest("vocab", c, 4), "vocab_size"), "prefix suggested");
    CHECK(bb_suggest("zzz", c, 4) == NULL, "nothing close: no suggestion");
}

static void test_timer_meter(void)
{
    const bb_meter_type *t = bb_meter_type_by_name("timer");
    CHECK(t && t->ncolumns == 3 && bb_meter_type_by_name("nope") == NULL, "registry");
    if (!t) return;
    bb_meter m;
    CHECK(bb_meter_open(&m, t) == 0 && m.available, "timer is always available");
    double v[BB_METER_MAX_COLUMNS];
    bb_meter_begin(&m);
    volatile double x = 0;
    for (int i = 0; i < 1000000; i++) x += i;
    bb_meter_end(&m, 10, v);
#if defined(__aarch64__)
    const double min_ghz = 0.001; /* the generic timer counts at 1 MHz .. 1 GHz (CNTFRQ_EL0) */
#else
    const double min_ghz = 0.1;
#endif
    CHECK(v[0] > 0 && v[1] > 0 && v[2] > min_ghz && v[2] < 10, "region %g s, %g ticks/call, TSC %g GHz", v[0], v[1],
          v[2]);
    bb_meter_close(&m);
    /* an unavailable meter reports NaN, never 0 */
    bb_meter off = {.type = t, .available = false};
    v[0] = v[1] = v[2] = 0;
    bb_meter_begin(&off);
    bb_meter_end(&off, 10, v);
    CHECK(isnan(v[0]) && isnan(v[1]) && isnan(v[2]), "unavailable -> NaN");
}

/* results.md's note on a flagged row gives both measures the flag is decided on: a row flagged for
 * an sd of 18000 % of its median must not read "spread 11%". */
static void test_markdown_flag_note(void)
{
    bb_result_row rows[2] = {sample_row(1), sample_row(2)};
    rows[1].spread_flag = 1;
    rows[1].spread = 0.11;
    rows[1].t_median_s = 1e-3;
    rows[1].t_sd_s = 0.18;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    bb_markdown_table(f, rows, 2);
    fclose(f);
    CHECK(strstr(buf, "| note |") != NULL, "a note column when a row is flagged: %s", buf);
    CHECK(strstr(buf, "flagged: IQR/median 11%, sd/median 18000% |") != NULL, "the note states both measures: %s", buf);
    free(buf);
}

int main(void)
{
    test_json();
    test_csv();
    test_e2e_csv();
    test_markdown_ran();
    test_csv_reader();
    test_json_reader();
    test_sha256();
    test_stats();
    test_args_and_names();
    test_timer_meter();
    test_markdown_flag_note();
    return check_summary("test_results");
}
