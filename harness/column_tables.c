#include "column_tables.h"

#include <string.h>

#include "results.h"
#include "results_e2e.h"
#include "samples.h"

int bb_column_table_count(void) { return 4; }

bb_column_table bb_column_table_at(int i)
{
    switch (i) {
    case 0: return (bb_column_table){"results", "results.csv", bb_result_columns, bb_result_ncolumns, true};
    case 1: return (bb_column_table){"e2e", "e2e.csv", bb_e2e_columns, bb_e2e_ncolumns, true};
    case 2: return (bb_column_table){"samples", BB_SAMPLES_NAME, bb_sample_columns, bb_sample_ncolumns, false};
    default:
        return (bb_column_table){"e2e_samples", BB_E2E_SAMPLES_NAME, bb_e2e_sample_columns, bb_e2e_sample_ncolumns,
                                 false};
    }
}

bool bb_column_table_by_name(const char *name, bb_column_table *out)
{
    for (int i = 0; i < bb_column_table_count(); i++) {
        bb_column_table t = bb_column_table_at(i);
        if (strcmp(t.name, name) == 0) {
            *out = t;
            return true;
        }
    }
    return false;
}

void bb_column_table_names(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < bb_column_table_count() && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", bb_column_table_at(i).name);
        if (w < 0) break;
        used += (size_t)w;
    }
}

static const char *kind_name(bb_col_kind k)
{
    switch (k) {
    case BB_COL_STR: return "text";
    case BB_COL_INT: return "integer";
    default: return "number";
    }
}

void bb_columns_markdown(FILE *f, const bb_column_table *t)
{
    fputs("| column | type | meaning |\n|---|---|---|\n", f);
    for (int i = 0; i < t->ncols; i++) {
        const bb_column *c = &t->cols[i];
        fprintf(f, "| `%s` | %s | ", c->name, kind_name(c->kind));
        for (const char *p = c->doc; *p; p++) {
            if (*p == '|') fputc('\\', f);
            fputc(*p, f);
        }
        fputs(" |\n", f);
    }
}
