/* The report's plots: drawn by `bitbench plot` into a temporary folder of ours, then inlined as
 * SVG only when they hold what gnuplot's svg terminal draws (html_page.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/temp_dir.h"
#include "report/html_page.h"
#include "report/plot_kinds.h"

extern char **environ;

/* The elements gnuplot 5's svg terminal writes (term/svg.trm): shapes, text, groups, its marker
 * definitions and the text-box filters.  No script, style, foreignObject, a, image, animate or
 * set: what could run, load or link. */
static const char *const allowed[] = {
    "svg",     "g",        "title",    "desc",        "defs",        "rect",         "circle",   "ellipse", "path",
    "use",     "text",     "tspan",    "polygon",     "polyline",    "line",         "clipPath", "filter",  "feFlood",
    "feComposite", "feOffset", "feMerge", "feMergeNode", "linearGradient", "radialGradient", "stop", "pattern", NULL,
};

static bool allowed_element(const char *name, size_t n)
{
    for (int i = 0; allowed[i]; i++)
        if (strlen(allowed[i]) == n && !strncmp(allowed[i], name, n)) return true;
    return false;
}

static bool contains_ci(const char *s, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = 0; i + m <= n; i++)
        if (!strncasecmp(s + i, needle, m)) return true;
    return false;
}

/* An attribute value: "url(" only as url(#fragment), with the fragment prefixed. */
static int write_value(FILE *f, const char *v, size_t n, const char *prefix, char *why, size_t whylen)
{
    if (contains_ci(v, n, "javascript:") || contains_ci(v, n, "data:")) {
        snprintf(why, whylen, "an attribute value names a script or data URL");
        return -1;
    }
    /* gnuplot writes no markup characters into attributes; one there is a crafted file's (a
     * "<foreignObject" a lax reader could take for an element), so the image is refused */
    if (memchr(v, '<', n) || memchr(v, '>', n)) {
        snprintf(why, whylen, "an attribute value holding '<' or '>'");
        return -1;
    }
    size_t start = 0;
    for (size_t i = 0; i + 4 <= n; i++) {
        if (strncasecmp(v + i, "url(", 4)) continue;
        if (i + 4 >= n || v[i + 4] != '#') {
            snprintf(why, whylen, "a url() that is not a fragment of the image");
            return -1;
        }
        if (f) fwrite(v + start, 1, i + 5 - start, f);
        if (f) fputs(prefix, f);
        start = i + 5;
    }
    if (f) fwrite(v + start, 1, n - start, f);
    return 0;
}

int bb_page_inline_svg(FILE *f, const char *svg, size_t n, const char *prefix, char *why, size_t whylen)
{
    const char *begin = NULL, *end = NULL;
    for (size_t i = 0; i + 4 <= n; i++)
        if (!begin && !strncmp(svg + i, "<svg", 4)) begin = svg + i;
    for (size_t i = n >= 6 ? n - 6 + 1 : 0; i-- > 0;)
        if (!strncmp(svg + i, "</svg>", 6)) {
            end = svg + i + 6;
            break;
        }
    if (!begin || !end || end <= begin) {
        snprintf(why, whylen, "no <svg> element");
        return -1;
    }
    /* checked whole first, written after: a refused image leaves nothing of itself in the page */
    for (int pass = 0; pass < 2; pass++) {
        FILE *o = pass ? f : NULL;
        const char *p = begin;
        while (p < end) {
            if (*p != '<') {
                const char *lt = memchr(p, '<', (size_t)(end - p));
                size_t len = lt ? (size_t)(lt - p) : (size_t)(end - p);
                if (o) fwrite(p, 1, len, o);
                p += len;
                continue;
            }
            p++;
            bool closing = *p == '/';
            if (closing) p++;
            const char *name = p;
            while (p < end && (isalnum((unsigned char)*p) || *p == ':' || *p == '-')) p++;
            size_t nlen = (size_t)(p - name);
            if (!nlen || !allowed_element(name, nlen)) {
                if (nlen) snprintf(why, whylen, "an element gnuplot does not draw (<%s%.*s>)", closing ? "/" : "",
                                   (int)(nlen > 40 ? 40 : nlen), name);
                else snprintf(why, whylen, "markup that is not an element (a comment, a declaration or a stray '<')");
                return -1;
            }
            if (o) fprintf(o, "<%s%.*s", closing ? "/" : "", (int)nlen, name);
            for (;;) {
                while (p < end && isspace((unsigned char)*p)) p++;
                if (p >= end) {
                    snprintf(why, whylen, "a tag that does not end");
                    return -1;
                }
                if (*p == '>' || (*p == '/' && p + 1 < end && p[1] == '>')) {
                    size_t k = *p == '>' ? 1 : 2;
                    if (o) fwrite(p, 1, k, o);
                    p += k;
                    break;
                }
                const char *an = p;
                while (p < end && !isspace((unsigned char)*p) && *p != '=' && *p != '>' && *p != '/' && *p != '\'' &&
                       *p != '"' && *p != '<')
                    p++;
                size_t alen = (size_t)(p - an);
                while (p < end && isspace((unsigned char)*p)) p++; /* XML allows blanks around '=' */
                if (!alen || p >= end || *p != '=') {
                    snprintf(why, whylen, "an attribute without a quoted value");
                    return -1;
                }
                if (alen >= 2 && !strncasecmp(an, "on", 2)) {
                    snprintf(why, whylen, "an event handler attribute (%.*s)", (int)(alen > 40 ? 40 : alen), an);
                    return -1;
                }
                p++;
                while (p < end && isspace((unsigned char)*p)) p++;
                char q = p < end ? *p : 0;
                if (q != '\'' && q != '"') {
                    snprintf(why, whylen, "an attribute without a quoted value");
                    return -1;
                }
                const char *v = ++p, *vend = memchr(p, q, (size_t)(end - p));
                if (!vend) {
                    snprintf(why, whylen, "an attribute value that does not end");
                    return -1;
                }
                size_t vlen = (size_t)(vend - v);
                p = vend + 1;
                bool is_id = alen == 2 && !strncmp(an, "id", 2), is_href = contains_ci(an, alen, "href");
                if (is_href && (vlen == 0 || v[0] != '#')) {
                    snprintf(why, whylen, "a link out of the image");
                    return -1;
                }
                if (o) fprintf(o, " %.*s=%c", (int)alen, an, q);
                if (is_id && o) fputs(prefix, o);
                if (is_href) {
                    if (o) fprintf(o, "#%s", prefix);
                    v++, vlen--;
                }
                if (write_value(o, v, vlen, prefix, why, whylen)) return -1;
                if (o) fputc(q, o);
            }
        }
    }
    return 0;
}

int bb_page_draw_plots(const char *dir, char *tmp, char *err, size_t errlen)
{
    if (bb_temp_dir("report", tmp, BB_PAGE_TMP_MAX, err, errlen)) return -1;
    char log[BB_PAGE_TMP_MAX + 16];
    snprintf(log, sizeof log, "%s/plot.log", tmp);
    /* this executable, `plot`, our folder as --out; "--" so that a folder named "-x" is a folder */
    char *const argv[] = {"bitbench", "plot", "--out", tmp, "--", (char *)dir, NULL};
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, log, O_WRONLY | O_CREAT | O_EXCL, 0600);
    fflush(stdout);
    fflush(stderr);
    pid_t pid;
    int rc = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc) {
        /* said in the page through the log: plot could not be started */
        FILE *l = fopen(log, "w");
        if (l) {
            fprintf(l, "bitbench report: cannot run bitbench plot (/proc/self/exe): %s\n", strerror(rc));
            fclose(l);
        }
        return 0;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    return 0;
}

void bb_page_remove_plots(const char *tmp)
{
    char p[BB_PAGE_TMP_MAX + 64];
    for (int i = 0; i < BB_PLOT_NKINDS; i++)
        for (int svg = 0; svg < 2; svg++) {
            snprintf(p, sizeof p, "%s/%s.%s", tmp, bb_plot_kinds[i], svg ? "svg" : "png");
            unlink(p);
        }
    snprintf(p, sizeof p, "%s/plot.log", tmp);
    unlink(p);
    rmdir(tmp);
}
