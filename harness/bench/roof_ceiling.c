#include "bench/roof_ceiling.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io/json_read.h"

int bb_roof_ceilings_load(const char *path, const bb_machine *mach, bb_roof_ceilings *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    snprintf(c->path, sizeof c->path, "%s", path);
    char jerr[512];
    bb_jv *root = bb_json_load(path, jerr, sizeof jerr);
    if (!root) {
        snprintf(err, errlen, "%s", jerr);
        return -1;
    }
    int rc = -1;
    const char *kind = bb_jv_str(root, "kind"), *cpu = bb_jv_str(bb_jv_get(root, "machine"), "cpu_model");
    if (!kind || strcmp(kind, "bitbench machine profile")) {
        snprintf(err, errlen, "%s: not a machine profile of bitbench roofline (no \"kind\": \"bitbench machine "
                 "profile\")", path);
        goto done;
    }
    snprintf(c->cpu_model, sizeof c->cpu_model, "%s", cpu ? cpu : "");
    if (mach && strcmp(c->cpu_model, mach->cpu_model)) {
        snprintf(err, errlen, "%s: a profile of another CPU (%s; this is %s): its ceilings are not this machine's",
                 path, c->cpu_model[0] ? c->cpu_model : "unknown", mach->cpu_model);
        goto done;
    }
    /* The same model string is not the same machine: a VM's "AMD EPYC" covers several generations,
     * and one CPU in machines of 2 or 64 cores, or other cache sizes, reads memory at other rates.
     * Each of these the profile records (older profiles may lack some) must be this machine's. */
    const bb_jv *pm = bb_jv_get(root, "machine");
    const struct { const char *key; double here; } same[] = {
        {"cores", mach ? mach->cores : 0}, {"pus", mach ? mach->pus : 0},
        {"l2_bytes", mach ? (double)mach->l2 : 0}, {"l3_bytes", mach ? (double)mach->l3 : 0}};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        const bb_jv *v = bb_jv_get(pm, same[i].key);
        if (v && v->type == BB_JV_NUM && same[i].here > 0 && v->num != same[i].here) {
            snprintf(err, errlen, "%s: a profile of another machine with this CPU model (%s %.0f; this one has %.0f): "
                     "its ceilings are not this machine's", path, same[i].key, v->num, same[i].here);
            goto done;
        }
    }
    double streams = bb_jv_num(root, "dram_read_streams");
    c->dram_read_streams = isfinite(streams) && streams >= 1 && streams <= 1024 ? (int)streams : 1;
    const bb_jv *bw = bb_jv_get(root, "read_bandwidth"), *peaks = bb_jv_get(root, "peaks");
    for (int i = 0; bw && bw->type == BB_JV_ARR && i < bw->n; i++) {
        const char *level = bb_jv_str(&bw->items[i], "level");
        double t = bb_jv_num(&bw->items[i], "threads"), g = bb_jv_num(&bw->items[i], "gbps");
        for (int l = 0; l < BB_ROOF_LEVELS; l++)
            if (level && !strcmp(level, bb_roof_level_names[l]) && t >= 1 && t <= BB_ROOF_MAX_THREADS && t == (int)t &&
                isfinite(g) && g > 0) {
                c->bw[(int)t][l] = g;
                if ((int)t > c->maxthreads) c->maxthreads = (int)t;
            }
    }
    for (int i = 0; peaks && peaks->type == BB_JV_ARR && i < peaks->n; i++) {
        const bb_jv *p = &peaks->items[i];
        const char *name = bb_jv_str(p, "instruction");
        double g1 = bb_jv_num(p, "gops_1t_derived"), ga = bb_jv_num(p, "gops_all_derived"),
               ta = bb_jv_num(p, "threads_all");
        if (!name) continue;
        if (isfinite(ta) && ta > c->maxthreads && ta <= BB_ROOF_MAX_THREADS) c->maxthreads = (int)ta;
        bool i8 = !strcmp(name, "vpdpbusd") || !strcmp(name, "sdot") || !strcmp(name, "smmla");
        bool f32 = !strcmp(name, "fma_fp32") || !strcmp(name, "fmla_fp32");
        if (i8 && isfinite(g1)) c->i8_1t = fmax(c->i8_1t, g1);
        if (i8 && isfinite(ga)) c->i8_all = fmax(c->i8_all, ga);
        if (f32 && isfinite(g1)) c->f32_1t = fmax(c->f32_1t, g1);
        if (f32 && isfinite(ga)) c->f32_all = fmax(c->f32_all, ga);
    }
    if (!c->maxthreads) {
        snprintf(err, errlen, "%s: a machine profile without read bandwidths", path);
        goto done;
    }
    rc = 0;
done:
    bb_jv_free(root);
    return rc;
}

int bb_roof_level_of(bb_cache_mode mode, size_t rotated_bytes, int threads, const bb_machine *mach)
{
    if (mode == BB_CACHE_DRAM) return 3;
    int level = bb_cache_mode_level(mode);
    if (level) return level - 1;
    for (int l = 1; l <= 3; l++) {
        size_t least, most;
        bb_cache_level_capacity(mach, l, threads, &least, &most);
        if (least && rotated_bytes <= least) return l - 1;
    }
    return 3;
}

bool bb_roofline_fraction(const bb_roof_ceilings *c, int level, int threads, double bits_per_weight, double gops,
                          double gbps, double *fraction, char *ceiling, size_t len)
{
    *fraction = NAN;
    bool fp = bits_per_weight >= 16;
    const char *kind = fp ? "fp32" : "int8";
    double bw = threads >= 1 && threads <= BB_ROOF_MAX_THREADS && level >= 0 && level < BB_ROOF_LEVELS
                    ? c->bw[threads][level] : 0;
    double peak = threads == 1 ? (fp ? c->f32_1t : c->i8_1t)
                  : threads == c->maxthreads ? (fp ? c->f32_all : c->i8_all) : 0;
    const char *lname = level >= 0 && level < BB_ROOF_LEVELS ? bb_roof_level_names[level] : "?";
    if (!bw) {
        snprintf(ceiling, len, "no %s read bandwidth at %d threads in the profile", lname, threads);
        return false;
    }
    if (!peak) {
        snprintf(ceiling, len, "no %s peak at %d threads in the profile (it has 1 and %d)", kind, threads,
                 c->maxthreads);
        return false;
    }
    if (!isfinite(gops) || !isfinite(gbps) || gops <= 0 || gbps <= 0) {
        snprintf(ceiling, len, "no attained rate");
        return false;
    }
    double by_compute = gops / peak, by_bw = gbps / bw;
    if (!isfinite(by_compute) || !isfinite(by_bw)) { /* a ceiling of 1e-320 GB/s: no ceiling at all */
        snprintf(ceiling, len, "the profile's %s ceilings at %d threads are not usable numbers", lname, threads);
        return false;
    }
    if (by_bw >= by_compute) {
        *fraction = by_bw;
        snprintf(ceiling, len, "%s read %d thread%s", lname, threads, threads == 1 ? "" : "s");
    } else {
        *fraction = by_compute;
        snprintf(ceiling, len, "%s peak %d thread%s", kind, threads, threads == 1 ? "" : "s");
    }
    return true;
}
