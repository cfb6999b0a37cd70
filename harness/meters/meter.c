/* The meter registry: one line per meter type.  Adding a meter (PAPI, PCM, RAPL) = one file
 * harness/meter_<name>.c defining a bb_meter_type, plus one line here. */
#include "meters/meter.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const bb_meter_type *const types[] = {
    &bb_meter_timer,
    &bb_meter_papi,
    &bb_meter_pcm,
    &bb_meter_rapl,
};

int bb_meter_type_count(void) { return (int)(sizeof types / sizeof types[0]); }

const bb_meter_type *bb_meter_type_at(int i) { return i >= 0 && i < bb_meter_type_count() ? types[i] : NULL; }

const bb_meter_type *bb_meter_type_by_name(const char *name)
{
    for (int i = 0; i < bb_meter_type_count(); i++)
        if (strcmp(types[i]->name, name) == 0) return types[i];
    return NULL;
}

void bb_meter_type_names(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < bb_meter_type_count(); i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", types[i]->name);
        if (w < 0 || (size_t)w >= len - used) break;
        used += (size_t)w;
    }
}

static const struct {
    const char *code, *remedy;
} reasons[] = {
    {"not_built", "install the library (scripts/bootstrap installs libpapi-dev), then configure and build again"},
    {"no_pmu", "needs hardware performance counters: run on bare metal, or in a VM whose hypervisor exposes a "
               "virtual PMU (KVM/QEMU: -cpu host with pmu=on; VMware: 'virtualize CPU performance counters'; "
               "in a cloud, a metal instance)"},
    {"perf_paranoid", "lower kernel.perf_event_paranoid (sudo sysctl kernel.perf_event_paranoid=1; 0 or "
                      "CAP_PERFMON for system-wide events)"},
    {"no_permission", "run as root, or make the named file readable by this user"},
    {"not_intel", "Intel PCM needs an Intel CPU; on other CPUs use the rapl meter where the kernel exposes "
                  "package energy"},
    {"no_msr", "load the msr driver (sudo modprobe msr) and run as root, on bare metal or in a VM that "
               "passes MSRs and a virtual PMU through"},
    {"no_uncore", "needs the CPU's uncore PMUs: bare metal on a CPU model the tool supports"},
    {"no_powercap", "needs RAPL: the intel_rapl powercap driver (/sys/class/powercap) or perf's power PMU with "
                    "energy-pkg, on bare metal (VMs rarely expose package energy)"},
    {"event_missing", "name events this CPU has in BB_PAPI_NATIVE (papi_native_avail lists them), or run on a "
                      "CPU whose PMU PAPI maps the presets to"},
    {"no_attach", "needs a PAPI and kernel that let a process attach counters to its own threads "
                  "(perf_event_paranoid <= 1, ptrace allowed: kernel.yama.ptrace_scope = 0), with a hardware PMU"},
    {"tool_missing", "install the tool (scripts/bootstrap installs pcm) or name it with BB_PCM_MEMORY / "
                     "BB_PCM_POWER"},
    {"tool_failed", "run the quoted tool by hand to see why it failed"},
};

bool bb_meter_reason_known(const char *code)
{
    return bb_meter_remedy(code)[0] != 0;
}

const char *bb_meter_remedy(const char *code)
{
    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
        if (!strcmp(code, reasons[i].code)) return reasons[i].remedy;
    return "";
}

int bb_meter_open(bb_meter *m, const bb_meter_type *t)
{
    memset(m, 0, sizeof *m);
    m->type = t;
    return t->open(m);
}

void bb_meter_close(bb_meter *m)
{
    if (m->type && m->type->close) m->type->close(m);
    m->state = NULL;
}

void bb_meter_begin(bb_meter *m)
{
    if (m->available) m->type->begin(m);
}

void bb_meter_end(bb_meter *m, int calls, double *values)
{
    if (m->available) {
        m->type->end(m, calls, values);
        return;
    }
    for (int i = 0; i < m->type->ncolumns; i++) values[i] = NAN;
}
