/* The meter registry: one line per meter type.  Adding a meter (PAPI, PCM, RAPL) = one file
 * harness/meter_<name>.c defining a bb_meter_type, plus one line here. */
#include "meter.h"

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
