#!/bin/sh
# `bitbench COMMAND --help` and the manual say the same (issue 31: "--help stays complete and
# matches docs").  For every command `bitbench --help` lists:
#   - `bitbench CMD --help` exits 0 and prints its usage on stdout;
#   - a command with options has exactly one options table in docs/*.md, under a heading
#     "`bitbench CMD` options" (a `| option | meaning |` table), and the options of its first
#     column are exactly the --options its --help prints (text in backquotes in a --help, such as
#     "(`bitbench slurm --constraint`)", names another command's option and is not counted);
#   - every --option the docs or the README give a command in code (a fenced block, or an inline
#     `bitbench CMD ... --opt` span, joined across line breaks) is one its --help prints.
# Prints each mismatch with its file and line.  $1 is the bitbench binary.
BB="$1"
src=${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}
. "$src/tests/lib/check.sh"
check_scratch docs_help

# The --options of a help text on stdin, one per line, sorted: backquoted spans (which may run
# across lines) left out.
options_of() {
    tr '\n' ' ' | awk '{ n = split($0, part, "`"); for (i = 1; i <= n; i += 2) print part[i] }' |
        grep -o -- '--[a-z][a-z0-9-]*' | grep -vx -- '--help' | sort -u
}

"$BB" --help >"$T/help" 2>&1; rc=$?
cmds=$(sed -n '/^commands:/,$s/^  \([a-z][a-z0-9]*\) .*/\1/p' "$T/help")
check '[ "$rc" -eq 0 ] && [ "$(echo $cmds | wc -w)" -ge 15 ]' "bitbench --help lists the commands: rc=$rc, found: $cmds"

for c in $cmds; do
    "$BB" "$c" --help >"$T/$c.help" 2>"$T/$c.err"; rc=$?
    check '[ "$rc" -eq 0 ] && grep -q "^usage: bitbench $c" "$T/$c.help" && [ ! -s "$T/$c.err" ]' \
        "bitbench $c --help: rc=$rc, stdout: $(head -2 "$T/$c.help") stderr: $(head -2 "$T/$c.err")"
    options_of <"$T/$c.help" >"$T/$c.opts"
    # every long option the command's getopt table accepts is in its --help (harness/**/cmd_CMD.c)
    file=$(find "$src/harness" -name "cmd_$c.c" | head -n 1)
    if [ -n "$file" ]; then
        accepted=$(grep -o '{"[a-z0-9-]*", *[a-z]*_argument' "$file" | sed 's/^{"\([^"]*\)".*/--\1/' | grep -vx -- --help |
            sort -u | comm -23 - "$T/$c.opts" | tr '\n' ' ')
        check '[ -z "$accepted" ]' "bitbench $c accepts options its --help does not print: $accepted"
    fi
    # the options table of the command in the docs
    awk -v c="$c" '
        $0 ~ "^#+ `bitbench " c "` options$" { print FILENAME ":" FNR > "/dev/stderr"; intable = 1; next }
        intable && /^#/ { intable = 0 }
        intable && /^\|/ { n = split($0, cell, "|"); print cell[2]; seen = 1; next }
        intable && seen && !/^\|/ { intable = 0; seen = 0 }
    ' "$src"/docs/*.md 2>"$T/$c.where" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u >"$T/$c.docopts"
    headings=$(wc -l <"$T/$c.where")
    if [ -s "$T/$c.opts" ]; then
        check '[ "$headings" -eq 1 ]' "bitbench $c: $headings options tables in docs/*.md (want one under \"### \`bitbench $c\` options\"): $(cat "$T/$c.where")"
        missing=$(comm -23 "$T/$c.opts" "$T/$c.docopts" | tr '\n' ' ')
        extra=$(comm -13 "$T/$c.opts" "$T/$c.docopts" | tr '\n' ' ')
        check '[ -z "$missing" ]' "bitbench $c: --help prints options the docs' table ($(cat "$T/$c.where")) lacks: $missing"
        check '[ -z "$extra" ]' "bitbench $c: the docs' table ($(cat "$T/$c.where")) has options --help does not print: $extra"
    else
        check '[ "$headings" -eq 0 ]' "bitbench $c has no options but an options table: $(cat "$T/$c.where")"
    fi
done

# Every `bitbench CMD ... --opt` in code of the docs and the README: CMD<TAB>OPT<TAB>FILE:LINE.
# Fenced blocks go line by line (an indented line continues the command above it); elsewhere a
# paragraph is joined and its inline code spans are read.  A command ends at &&, ||, ;, a " | "
# pipe or a " #" comment.
for f in "$src"/README.md "$src"/docs/*.md; do
    awk -v file="${f#"$src"/}" -v cmds=" $(echo $cmds) " '
        function scan(text, where, cont,    i, n, w, word, cmd) {
            gsub(/&&|\|\||;| \| /, " ; ", text)
            sub(/ #.*/, "", text)
            n = split(text, w, /[ \t]+/)
            cmd = cont
            for (i = 1; i <= n; i++) {
                word = w[i]
                if (word == ";") { cmd = ""; continue }
                if (word ~ /(^|[\/(])bitbench$/ && i < n && index(cmds, " " w[i + 1] " ")) { cmd = w[i + 1]; i++; continue }
                if (word ~ /(^|[\/(])bitbench$/) { cmd = ""; continue }
                if (cmd != "" && match(word, /^\[?--[a-z][a-z0-9-]*/)) {
                    word = substr(word, RSTART, RLENGTH); sub(/^\[/, "", word)
                    print cmd "\t" word "\t" file ":" where
                }
            }
            return cmd
        }
        function flush(    n, i, span) {
            if (para == "") return
            n = split(para, span, "`")
            for (i = 2; i <= n; i += 2) scan(span[i], pline, "")
            para = ""
        }
        /^```/ { flush(); fenced = !fenced; cur = ""; next }
        fenced { cur = scan($0, FNR, ($0 ~ /^[ \t]/) ? cur : ""); next }
        /^[ \t]*$/ || /^#/ || /^\|/ { flush(); if (/^\|/) { para = $0; pline = FNR; flush() } next }
        { if (para == "") pline = FNR; para = para " " $0 }
        END { flush() }
    ' "$f"
done >"$T/used"
while IFS="$(printf '\t')" read -r c opt where; do
    case $opt in --allow-nonfinite | --help) continue ;; esac
    check 'grep -qx -- "$opt" "$T/$c.opts"' "$where: bitbench $c $opt: not an option of bitbench $c --help"
done <"$T/used"
check '[ "$(wc -l <"$T/used")" -gt 50 ]' "the docs give commands with options in code: only $(wc -l <"$T/used") found"

check_summary test_docs_help
