/* bitbench list kernels: the registry as a table. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "kernels/kernel.h"

static void list_kernels(void)
{
    printf("%-10s %-10s %6s %-8s %-30s %-18s %s\n", "kernel", "family", "bpw", "lossless",
           "variants (usable here)", "constraints", "source");
    for (int i = 0; i < bb_kernel_count(); i++) {
        const bb_kernel *k = bb_kernel_at(i);
        char vars[128] = "", cons[64];
        size_t used = 0;
        for (int v = 0; v < bb_variant_count(k); v++) {
            if (!bb_variant_usable(&k->variants[v])) continue;
            int w = snprintf(vars + used, sizeof vars - used, "%s%s", used ? "," : "", k->variants[v].isa);
            if (w < 0 || (size_t)w >= sizeof vars - used) break;
            used += (size_t)w;
        }
        snprintf(cons, sizeof cons, "K%%%d M%%%d%s", k->k_multiple, k->m_multiple, k->shape_error ? " +rules" : "");
        printf("%-10s %-10s %6.3f %-8s %-30s %-18s %s\n", k->name, k->family, k->bits_per_weight,
               k->lossless ? "yes" : "no", vars, cons, k->paper);
    }
}

int bb_cmd_list(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (strcmp(what, "kernels") == 0) {
        list_kernels();
        return 0;
    }
    fprintf(stderr, "bitbench list: unknown list '%s'; valid: kernels\n", what);
    return 2;
}
