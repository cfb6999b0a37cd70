#!/bin/sh
# Every relative link of the README and the manual (README.md, docs/*.md, docs/measurements/*.md)
# resolves: the file or folder exists, and a #anchor names a heading of the page it points to
# (GitHub's anchors: the heading in lower case, backquotes and punctuation dropped, spaces made
# '-'; non-ASCII characters are dropped too, which is GitHub's rule for symbols such as § or ×,
# not for letters: no anchor here needs one).  Links inside code are not links.  Web addresses
# are not fetched.  And every source file a page names (`harness/results_csv.c`) is in the tree.
# Prints each broken link or path with its file and line.  $1 (the binary) is unused.
src=${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}
src=$(cd "$src" && pwd -P) || { echo "FAIL: no source directory"; exit 1; }
. "$src/tests/lib/check.sh"
check_scratch docs_links
export LC_ALL=C

# FILE:LINE<TAB>TARGET for every link [text](TARGET) / ![alt](TARGET) of a page, code left out.
links() {
    awk -v file="$1" '
        /^```/ { fenced = !fenced; next }
        fenced { next }
        {
            line = $0
            gsub(/`[^`]*`/, "", line)
            while (match(line, /\]\([^)]*\)/)) {
                t = substr(line, RSTART + 2, RLENGTH - 3)
                sub(/[ \t].*/, "", t)      # a title after the address
                print file ":" FNR "\t" t
                line = substr(line, RSTART + RLENGTH)
            }
        }
    ' "$src/$1"
}

# The anchors of a page's headings, one per line.
anchors() {
    awk '
        /^```/ { fenced = !fenced; next }
        !fenced && /^#+ / {
            h = $0
            sub(/^#+ /, "", h)
            h = tolower(h)
            gsub(/[^a-z0-9 _-]/, "", h)
            gsub(/ /, "-", h)
            print h
        }
    ' "$1"
}

pages=$(cd "$src" && ls README.md docs/*.md docs/measurements/*.md 2>/dev/null)
for p in $pages; do links "$p"; done >"$T/links"
n=0
while IFS="$(printf '\t')" read -r where target; do
    n=$((n + 1))
    case $target in
    http://* | https://* | mailto:*) continue ;;
    esac
    page=${where%%:*}
    dir=$(dirname "$src/$page")
    path=${target%%#*}
    anchor=
    case $target in *'#'*) anchor=${target#*#} ;; esac
    if [ -z "$path" ]; then file="$src/$page"; else file="$dir/$path"; fi
    if [ ! -e "$file" ]; then
        fail=$((fail + 1)); echo "FAIL: $where: link to $target: no such file or folder"
        continue
    fi
    if [ -n "$anchor" ]; then
        case $file in
        *.md)
            if anchors "$file" | grep -qx -- "$anchor"; then pass=$((pass + 1)); else
                fail=$((fail + 1)); echo "FAIL: $where: link to $target: no heading of ${file#"$src"/} has that anchor"
            fi ;;
        *) fail=$((fail + 1)); echo "FAIL: $where: link to $target: an anchor into a file that is not markdown" ;;
        esac
    else
        pass=$((pass + 1))
    fi
done <"$T/links"
# Source files the pages name (kernels/mad/i2_s.h, `harness/results_csv.c`, tests/test_x.sh): each
# exists, so a moved or renamed file cannot leave the manual pointing at nothing.  A name under a
# folder of the tree with a source file's extension counts; not one inside another path
# ($BITBENCH_SHARED_DIR/models/...), a pattern (harness/cmd_*.c), a placeholder
# (experiments/NAME.lua) or a message's file name (models/x.lua: is a FIFO ...).
for p in $pages; do
    awk -v file="$p" '
        {
            line = $0
            while (match(line, /(kernels|baselines|support|models|harness|tests|scripts|experiments|cmake)\/[A-Za-z0-9_.\/-]*\.(c|h|lua|sh|gp|cmake)/)) {
                before = RSTART > 1 ? substr(line, RSTART - 1, 1) : ""
                after = substr(line, RSTART + RLENGTH, 1)
                path = substr(line, RSTART, RLENGTH)
                if (before !~ /[A-Za-z0-9_\/.$-]/ && after !~ /[*:A-Za-z0-9_]/ && path !~ /\/[A-Z][A-Z_]+[.\/]/)
                    print file ":" FNR "\t" path
                line = substr(line, RSTART + RLENGTH)
            }
        }
    ' "$src/$p"
done >"$T/paths"
while IFS="$(printf '\t')" read -r where path; do
    if [ -e "$src/$path" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL: $where: names $path, which is not in the tree"
    fi
done <"$T/paths"
if [ "$(wc -l <"$T/paths")" -lt 100 ]; then fail=$((fail + 1)); echo "FAIL: only $(wc -l <"$T/paths") source paths found in $pages"; fi

# the check finds links at all, and finds a broken one
if [ "$n" -lt 20 ]; then fail=$((fail + 1)); echo "FAIL: only $n links found in $pages"; fi
printf '# t\n\n## A `b` heading: c, d\n\n[x](missing.md) [y](#a-b-heading-c-d) `[z](not-a-link.md)` [w](#nope)\n' >"$T/page.md"
got=$(cd "$T" && awk '1' page.md >/dev/null && src=$T links page.md | cut -f2 | tr '\n' ' ')
if [ "$got" = "missing.md #a-b-heading-c-d #nope " ] && anchors "$T/page.md" | grep -qx 'a-b-heading-c-d'; then
    pass=$((pass + 1))
else
    fail=$((fail + 1)); echo "FAIL: the link and anchor extraction: links '$got', anchors $(anchors "$T/page.md" | tr '\n' ' ')"
fi

check_summary test_docs_links
