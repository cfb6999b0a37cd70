#!/bin/sh
# The results schema in docs/results.md is the binary's: every CSV table of a run directory has a
# generated block there, and each block is exactly what `bitbench list columns TABLE` prints from
# the column tables the writers use (scripts/docs-columns --check, as tests/test_experiments.sh
# checks docs/reproducing.md with reproduce.lua --check).  A column added, renamed or documented
# differently in harness/ without regenerating the page fails here.  $1 is the bitbench binary.
BB="$1"
src=${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}
. "$src/tests/lib/check.sh"
check_scratch docs_columns

sh "$src/scripts/docs-columns" --check "$BB" >"$T/check" 2>&1; rc=$?
check '[ "$rc" -eq 0 ]' "docs/results.md differs from bitbench list columns (rc=$rc): $(cat "$T/check")"

for t in results e2e samples e2e_samples; do
    check 'grep -q "^<!-- generated: bitbench list columns $t -->$" "$src/docs/results.md"' \
        "docs/results.md has no generated block of the $t table"
    "$BB" list columns "$t" >"$T/$t" 2>&1; rc=$?
    check '[ "$rc" -eq 0 ] && [ "$(sed -n 1p "$T/$t")" = "| column | type | meaning |" ]' "list columns $t: rc=$rc $(head -3 "$T/$t")"
    # every column has a type and a meaning
    check '! grep -v "^| \`[a-z0-9_]*\` | \(text\|integer\|number\) | [^ ].* |$" "$T/$t" | grep -v "^| column |\|^|---|"' \
        "list columns $t: a row without a type or a meaning: $(grep -v '^| `[a-z0-9_]*` | \(text\|integer\|number\) | [^ ]' "$T/$t")"
done
# results.csv's first and provenance columns, in their order
check 'sed -n "3p;4p" "$T/results" | cut -d"|" -f2 | tr -d " \`" | tr "\n" , | grep -qx "experiment,sweep,"' \
    "list columns results starts with experiment, sweep: $(head -4 "$T/results")"
check 'grep -q "^| \`other_cpu_share\` | number | " "$T/e2e"' "e2e.csv has the provenance columns"
check 'grep -q "^| \`err_max_abs\` | number | verify: max \\\\|y - W_deq x\\\\|" "$T/results"' \
    "a | in a doc string is escaped: $(grep err_max_abs "$T/results")"

"$BB" list columns >"$T/all" 2>&1; rc=$?
check '[ "$rc" -eq 0 ] && [ "$(grep -c "^## .* (bitbench list columns [a-z0-9_]*)$" "$T/all")" -eq 4 ]' \
    "list columns without a table lists all four: rc=$rc $(grep '^##' "$T/all")"
"$BB" list columns result >"$T/bad" 2>&1; rc=$?
check '[ "$rc" -eq 2 ] && grep -qx "bitbench list columns: unknown table '"'"'result'"'"'; valid: results, e2e, samples, e2e_samples" "$T/bad"' \
    "an unknown table: rc=$rc $(cat "$T/bad")"

"$BB" list columns results e2e >"$T/two" 2>&1; rc=$?
check '[ "$rc" -eq 2 ] && grep -qx "bitbench list columns: one table at most, got '"'"'e2e'"'"' after '"'"'results'"'"'" "$T/two"' \
    "two tables: rc=$rc $(cat "$T/two")"

# the check itself fails on a page that drifted: a copy of the tree's script and docs with one
# meaning edited by hand
mkdir -p "$T/tree/scripts" "$T/tree/docs"
cp "$src/scripts/docs-columns" "$T/tree/scripts/"
sed 's/^| `gops` | number | .*/| `gops` | number | edited by hand |/' "$src/docs/results.md" >"$T/tree/docs/results.md"
sh "$T/tree/scripts/docs-columns" --check "$BB" >"$T/drift" 2>&1; rc=$?
check '[ "$rc" -eq 1 ] && grep -q "edited by hand" "$T/drift"' "a hand-edited block is caught: rc=$rc $(cat "$T/drift")"

check_summary test_docs_columns
