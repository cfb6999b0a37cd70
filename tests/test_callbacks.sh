#!/bin/sh
# No file calls back into the file that calls it (docs/design.md, "The rooms of harness/"): over
# the compiled objects of kernels (with baselines), support, models and harness, a file's object
# uses a function or variable of another's only if that one, directly or through others, uses
# nothing of the first.  Where two files share state or helpers, those go in a file of their own
# that both use (run/sweep_state.c, experiment/lua_load.c, models/gguf_value.c); in kernels/ a
# family's descriptor names its ISA variants, so what the variants share with it (a codebook, a
# layout) sits below both (codebook/iq4_nl_blocks.c; the x16 layouts in their headers).
# The graph is read with nm from the objects CMake built beside BITBENCH_BIN
# (CMakeFiles/<library>.dir/...): global symbols each defines, and those it leaves undefined.
# Prints each edge of every cycle with its symbols, and fails if there is any.
# By hand: nm -g --defined-only OBJ (what OBJ offers), nm -u OBJ (what it takes).
bin=${1:?usage: test_callbacks.sh BITBENCH_BIN}
build=$(cd "$(dirname "$bin")" && pwd -P) || { echo "FAIL: no build directory for $bin"; exit 1; }
fail() { echo "FAIL: $*"; exit 1; }
command -v nm >/dev/null || fail "nm (binutils) is not installed"

objs=$(mktemp)
defs=$(mktemp)
uses=$(mktemp)
trap 'rm -f "$objs" "$defs" "$uses"' EXIT
for lib in bbkernels bbsupport bbmodels bbcore; do
    [ -d "$build/CMakeFiles/$lib.dir" ] || fail "no $build/CMakeFiles/$lib.dir (is $bin in a CMake build directory?)"
    find "$build/CMakeFiles/$lib.dir" -name '*.o' | sort >>"$objs"
done
# An object whose source is gone (a file moved or split since the build directory was made) is
# stale: CMake leaves it, the library no longer holds it, and its symbols would be false edges.
if [ -n "${BITBENCH_SOURCE_DIR:-}" ]; then
    while read -r o; do
        src=${o#"$build"/CMakeFiles/*.dir/}
        [ -f "$BITBENCH_SOURCE_DIR/${src%.o}" ] && echo "$o"
    done <"$objs" >"$objs.live"
    mv "$objs.live" "$objs"
fi
n=$(wc -l <"$objs")
[ "$n" -gt 100 ] || fail "only $n objects found under $build/CMakeFiles"

# "object symbol" lines: what each object defines, and what it uses
while read -r o; do
    name=${o#"$build"/CMakeFiles/*.dir/}
    nm -g --defined-only "$o" | awk -v o="$name" 'NF == 3 { print o, $3 }' >>"$defs"
    nm -u "$o" | awk -v o="$name" 'NF == 2 { print o, $2 }' >>"$uses"
done <"$objs"

awk -v defs="$defs" '
    BEGIN { while ((getline line < defs) > 0) { split(line, f, " "); owner[f[2]] = f[1] } }
    {
        b = owner[$2]
        if (b == "" || b == $1) next
        if (!(($1 SUBSEP b) in edge)) { edge[$1, b] = $2; out[$1] = out[$1] " " b }
        else if (index(" " edge[$1, b] " ", " " $2 " ") == 0) edge[$1, b] = edge[$1, b] " " $2
        node[$1] = 1; node[b] = 1
    }
    # does a reach t?  (depth-first over the edges, each node once)
    function reaches(a, t,    stack, sp, seen, v, k, nb, list) {
        delete seen; sp = 0; stack[++sp] = a; seen[a] = 1
        while (sp > 0) {
            v = stack[sp--]
            nb = split(out[v], list, " ")
            for (k = 1; k <= nb; k++) {
                if (list[k] == t) return 1
                if (!(list[k] in seen)) { seen[list[k]] = 1; stack[++sp] = list[k] }
            }
        }
        return 0
    }
    END {
        bad = 0
        for (e in edge) {
            split(e, ab, SUBSEP)
            if (reaches(ab[2], ab[1])) {
                printf "%s uses %s (%s), which leads back to it\n", ab[1], ab[2], edge[e]
                bad++
            }
        }
        exit bad > 0
    }' "$uses" >"$objs.out"
rc=$?
if [ "$rc" -ne 0 ]; then
    echo "FAIL: files that call back into the file that calls them (each edge of a cycle):"
    sort "$objs.out"
    rm -f "$objs.out"
    exit 1
fi
rm -f "$objs.out"
echo "test_callbacks: passed ($n objects)"
