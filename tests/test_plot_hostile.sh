#!/bin/sh
# Strings from other people's files reach gnuplot only as data (issue 29).  Hostile strings --
# backquotes, $(...), both quote characters, a `;system("...")` break-out, a line break followed by
# gnuplot's `!` shell escape, @macros, a leading `|` or `<` (gnuplot's pipes for output, load and
# data file names), backslashes, enhanced-text markup, control characters, bytes that are not
# UTF-8, very long strings -- go through
#   (a) `bitbench run` of an experiment with plots whose `out` holds them (the results folder's
#       name, hence the plot files' paths; also a leading '-' or "--kind=x", which `plot` must
#       not take for an option),
#   (b) `bitbench plot` of a foreign results folder whose run.json (cpu_model, started_at, run_id,
#       the experiment's name), machine profile (cpu_model, gamma kernel names), results.csv
#       (kernel, variant) and model-sweep CSV (model, kernel) hold them;
#   (c) the working directory: a folder from someone else holding a scripts/ of its own (gnuplot
#       scripts that call system(), a paper-table module) -- `bitbench plot` and `bitbench report`
#       run from inside it, without BITBENCH_SOURCE_DIR, use bitbench's own scripts, never those.
#   (d) the commands bitbench suggests for a person to copy into a shell -- `bitbench run`'s
#       "redraw with: bitbench plot DIR" on stderr, the report page's "bitbench report DIR" --
#       with DIR from an experiment's `out` holding $(...), backquotes, quotes or a leading '-':
#       run by sh, each names the run folder as one word and runs nothing else.
# No canary file may ever appear, and every plot is still drawn: none of these strings is more than
# odd once it is data.  Also: a plot that fails leaves the previous plot as it was; `plot` of a
# folder without results, --out under a file and an image place that is a folder say so
# in one line and exit non-zero.
bin=$1
data="$BITBENCH_SOURCE_DIR/tests/data/plot_results"
if ! command -v gnuplot >/dev/null 2>&1; then
    echo "test_plot_hostile: skipped: gnuplot is not installed"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Everything runs inside tmp, so that a command a hostile string ran with a relative path (gnuplot's
# system() runs in bitbench's working directory) leaves its canary where canary() looks.
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
data=$(cd "$data" && pwd)
cd "$tmp" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
canary() { # where
    c=$(find "$tmp" -name CANARY -print | head -n 1)
    [ -z "$c" ] || fail "$1: a hostile string ran a command (created $c)"
}

# ---- (a) the results folder's name: an experiment's `out` (Lua expressions, one a line) ----
cat > "$tmp/outs.txt" <<'EOF'
[==[res`touch CANARY`]==]
[==[res$(touch CANARY)]==]
[==[res';touch CANARY;']==]
[==[res";system("touch CANARY");x="]==]
[==[res';system('touch CANARY');x=']==]
[==[res\";system(\"touch CANARY\");x=\"]==]
[==[|touch CANARY;x]==]
[==[<touch CANARY;x]==]
"res\n!touch CANARY\nx"
"res\r\nsystem('touch CANARY')\n"
[==[res@ttl@outfile]==]
[==[-res]==]
[==[--kind=x]==]
[==[res {\bf x}^2_&@ a]==]
"res\255\254\192"
string.rep(string.rep("r", 200) .. "/", 4) .. "r`touch CANARY`"
EOF
i=0
while IFS= read -r expr; do
    i=$((i + 1))
    d="$tmp/a$i"
    mkdir "$d"
    cat > "$d/shared.lua" <<EOF
bitbench.experiment {
  name = "shared",
  out = $expr,
  plots = { "threads", "gemv_bw" },
  sweeps = {
    bitbench.sweep { name = "g", kernels = { "f32" }, shapes = { { m = 64, k = 64 } }, n = 1,
                     threads = { 1 }, cache = "resident", warmup = 1, reps = 2, min_seconds = 0.001 },
  },
}
EOF
    (cd "$d" && "$bin" run shared.lua --smoke --quiet >out.txt 2>err.txt) || fail "run with out = $expr exited $?: $(cat "$d/err.txt")"
    canary "run with out = $expr"
    for f in threads.png threads.svg gemv_bw.png gemv_bw.svg; do
        [ -n "$(find "$d" -name "$f" -size +0 -print)" ] || fail "run with out = $expr: no $f: $(cat "$d/err.txt")"
    done
done < "$tmp/outs.txt"

# ---- (b) a foreign results folder ----
# Kernel, variant and model names (printf formats, CSV-quoted below); CSV records hold no line
# break, so the control characters here are a carriage return, a tab and \001.
cat > "$tmp/names.txt" <<'EOF'
k`touch CANARY`
k$(touch CANARY)
k';system('touch CANARY');'
k";system("touch CANARY");"
k\\";system(\\"touch CANARY\\");\\"
|touch CANARY
<touch CANARY
k\rsystem("touch CANARY")\t\001
k@ttl {\\bf x}^2_& #c
k\377\376\300
kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk
EOF
nnames=$(wc -l < "$tmp/names.txt")
csv_name() { # line number -> the name CSV-quoted
    fmt=$(sed -n "${1}p" "$tmp/names.txt")
    # shellcheck disable=SC2059
    printf "$fmt" | sed 's/"/""/g; s/^/"/; s/$/"/'
}
# the same names as JSON string contents (for the machine profile's gamma kernels and cpu_model)
cat > "$tmp/json.txt" <<'EOF'
cpu`touch CANARY`
cpu$(touch CANARY)
cpu';system('touch CANARY');'
cpu'.system('touch CANARY').'
cpu';system \"touch CANARY\";x='
cpu\";system(\"touch CANARY\");\"
cpu\\\";system(\\\"touch CANARY\\\");\\\"
|touch CANARY
<touch CANARY
cpu\n!touch CANARY\nx
cpu\r\nsystem('touch CANARY')\n
cpu\u0001\u001b[31m\t
cpu@ttl@outfile {\\bf x}^2_&
cpu\u00e9\u2603
EOF
njson=$(wc -l < "$tmp/json.txt")
json_name() { sed -n "${1}p" "$tmp/json.txt"; }
# An awk function: line with the string value of "key" replaced by s, taken literally (ENVIRON and
# substr: no escape processing as with -v, no & as in sub()); the fixture's values hold no quote.
splice='function splice(line, key, s,   p, rest) {
    p = index(line, "\"" key "\": \""); if (!p) return line
    p += length(key) + 5; rest = substr(line, p)
    return substr(line, 1, p - 1) s substr(rest, index(rest, "\""))
}
'

f="$tmp/b"
mkdir "$f"
cp "$data/run.json" "$f/"
# results.csv: row r gets name r as its kernel and name r+1 as its variant
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "kernel") ck = i; if ($i == "variant") cv = i }
                   print ck, cv }' "$data/results.csv" > "$tmp/cols"
read -r ck cv < "$tmp/cols"
head -n 1 "$data/results.csv" > "$f/results.csv"
r=0
tail -n +2 "$data/results.csv" > "$tmp/rows"
while IFS= read -r line; do
    r=$((r + 1))
    printf '%s\n' "$line" | K=$(csv_name $(( (r - 1) % nnames + 1 ))) V=$(csv_name $(( r % nnames + 1 ))) \
        awk -F, -v ck="$ck" -v cv="$cv" 'BEGIN { OFS = "," } { $ck = ENVIRON["K"]; $cv = ENVIRON["V"]; print }' \
        >> "$f/results.csv"
done < "$tmp/rows"
# the model sweep: models and kernels hostile
printf 'model,kernel,threads,pp_tps,tg_tps\n' > "$f/e2e.csv"
for r in 1 2 3 4 5 6; do
    printf '%s,%s,%d,%d,%d\n' "$(csv_name $r)" "$(csv_name $((r + 5)))" $((r % 2 + 1)) $((40 + r)) $((10 + r)) >> "$f/e2e.csv"
done
# the machine profile's gamma kernels (the ebw plot's labels)
awk -v file="$tmp/json.txt" "$splice"'BEGIN { while ((getline l < file) > 0) names[++n] = l }
    index($0, "\"kernel\": \"") { $0 = splice($0, "kernel", names[j++ % n + 1]) } { print }' \
    "$data/machine-profile.json" > "$f/machine-profile.json"
grep -q 'touch CANARY' "$f/machine-profile.json" && grep -q 'touch CANARY' "$f/results.csv" ||
    fail "the test did not put its names into the folder"
"$bin" plot "$f" --out "$f/plots" >"$tmp/b.out" 2>"$tmp/b.err" || fail "plot of the hostile folder exited $?: $(cat "$tmp/b.err")"
canary "plot of hostile kernel and model names"
for k in roofline threads gemv_bw tokens ebw e2e_threads; do
    for ext in png svg; do
        [ -s "$f/plots/$k.$ext" ] || fail "hostile names: $k.$ext missing or empty: $(cat "$tmp/b.err")"
    done
done
grep -q 'touch CANARY' "$f/plots/gemv_bw.svg" || fail "hostile kernel names are not printed as text in gemv_bw.svg"

# cpu_model (every title) and started_at, one folder each
j=0
while [ $j -lt "$njson" ]; do
    j=$((j + 1))
    s=$(json_name $j)
    g="$tmp/c$j"
    mkdir "$g"
    cp "$data/results.csv" "$g/"
    # (the fixture's run.json predates the run_id field: the line is added, then spliced)
    S=$s awk "$splice"'/"started_at"/ { print splice("  \"run_id\": \"x\",", "run_id", ENVIRON["S"]) }
        index($0, "\"plot_fixture\"") { $0 = splice($0, "name", ENVIRON["S"]) }
        { $0 = splice(splice($0, "cpu_model", ENVIRON["S"]), "started_at", ENVIRON["S"]); print }' \
        "$data/run.json" > "$g/run.json"
    S=$s awk "$splice"'{ $0 = splice($0, "cpu_model", ENVIRON["S"]); print }' \
        "$data/machine-profile.json" > "$g/machine-profile.json"
    grep -q 'touch CANARY\|@ttl\|\\u' "$g/run.json" || fail "the test did not put '$s' into run.json"
    "$bin" plot "$g" --kind roofline --out "$g/plots" >"$g/out.txt" 2>"$g/err.txt" ||
        fail "plot with cpu_model '$s' exited $?: $(cat "$g/err.txt")"
    canary "plot with cpu_model '$s'"
    [ -s "$g/plots/roofline.png" ] && [ -s "$g/plots/roofline.svg" ] || fail "cpu_model '$s': no roofline plot"
done
grep -q 'touch CANARY' "$tmp/c1/plots/roofline.svg" || fail "a hostile cpu_model is not printed as text in the title"

# ---- (c) a working directory with a scripts/ folder of its own ----
w="$tmp/foreign-cwd"
mkdir -p "$w/scripts/lib" "$w/scripts/reproduce"
for gp in plot_common roofline threads gemv_bw tokens ebw depth; do
    printf 'system("touch %s/CANARY")\nset terminal png\nset output outfile\nplot x\n' "$w" > "$w/scripts/$gp.gp"
done
printf 'return { read_json = function() return {} end, read_csv = function() return {} end }\n' > "$w/scripts/lib/report.lua"
printf 'return { title = "FOREIGN MODULE", render = function() return "FOREIGN MODULE RAN" end }\n' \
    > "$w/scripts/reproduce/plot_fixture.lua"
(cd "$w" && env -u BITBENCH_SOURCE_DIR "$bin" plot "$data" --kind threads --out "$w/plots" >"$w/out.txt" 2>"$w/err.txt") ||
    fail "plot run from a folder with its own scripts/ exited $?: $(cat "$w/err.txt")"
canary "plot run from a folder with its own scripts/"
[ -s "$w/plots/threads.png" ] && [ -s "$w/plots/threads.svg" ] || fail "plot from a folder with its own scripts/: no threads plot"
cp -r "$data" "$w/run"
(cd "$w" && env -u BITBENCH_SOURCE_DIR "$bin" report "$w/run" -o "$w/report.html" >"$w/rout.txt" 2>"$w/rerr.txt") ||
    fail "report run from a folder with its own scripts/ exited $?: $(cat "$w/rerr.txt")"
canary "report run from a folder with its own scripts/"
grep -q 'FOREIGN MODULE' "$w/report.html" && fail "report ran the working directory's scripts/reproduce/plot_fixture.lua"
grep -q '<svg' "$w/report.html" || fail "report from a folder with its own scripts/ inlines no plot: $(cat "$w/rerr.txt")"

# ---- (d) the commands bitbench suggests, run by sh ----
mkdir -p "$tmp/fakebin"
printf '#!/bin/sh\nfor a in "$@"; do printf "[%%s]\\n" "$a"; done > "$SUGGESTED_ARGS"\n' > "$tmp/fakebin/bitbench"
chmod +x "$tmp/fakebin/bitbench"
html_text() { sed "s/&#39;/'/g; s/&quot;/\"/g; s/&lt;/</g; s/&gt;/>/g; s/&amp;/\\&/g"; }
cat > "$tmp/suggest_outs.txt" <<'EOF'
[==[-r $(touch CANARY) `touch CANARY` 'q' "dq" \ x]==]
[==[res$(touch${IFS}CANARY)]==]
EOF
while IFS= read -r expr; do
    d=$(mktemp -d "$tmp/d.XXXXXX")
    E=$expr awk '/^  out = / { print "  out = " ENVIRON["E"] ","; next } { print }' "$tmp/a1/shared.lua" > "$d/shared.lua"
    # no gnuplot on PATH: the plots fail, and bitbench run says how to redraw them
    (cd "$d" && env PATH=/nonexistent "$bin" run shared.lua --smoke --quiet >out.txt 2>err.txt) ||
        fail "run with out = $expr and no gnuplot exited $?: $(cat "$d/err.txt")"
    run_dir=$(dirname "$(find "$d" -name run.json)")
    run_dir=${run_dir#"$d"/}
    case $run_dir in -*) shown="./$run_dir" ;; *) shown=$run_dir ;; esac
    for how in stderr html; do
        if [ $how = html ]; then
            cmd=$(sed -n 's/.*<code>\(bitbench report [^<]*\)<\/code>.*/\1/p' "$d/$run_dir/report.html" | html_text)
            want="[report] [$shown] "
        else
            cmd=$(sed -n 's/.*redraw with: //p' "$d/err.txt" | head -n 1)
            want="[plot] [$shown] [--kind] [threads] "
        fi
        [ -n "$cmd" ] || fail "out = $expr: no suggested command in the $how: $(cat "$d/err.txt")"
        rm -f "$tmp/args"
        (cd "$d" && PATH="$tmp/fakebin:$PATH" SUGGESTED_ARGS="$tmp/args" sh -c "$cmd") 2>/dev/null
        canary "the command the $how suggests for out = $expr ($cmd)"
        got=$(tr '\n' ' ' < "$tmp/args" 2>/dev/null)
        [ "$got" = "$want" ] || fail "out = $expr: the $how suggests '$cmd', which sh runs as '$got', not '$want'"
    done
done < "$tmp/suggest_outs.txt"

# An out with bytes a terminal acts on (an OSC window title, a line break): the redraw command on
# stderr holds no control byte (the folder in bash's $'...'), and bash runs it with the folder as
# its one argument.  (Before, the folder's bytes were printed raw inside the quotes.)
if command -v bash >/dev/null 2>&1; then
    d=$(mktemp -d "$tmp/d.XXXXXX")
    E='"res\27]0;title\7\nx"' awk '/^  out = / { print "  out = " ENVIRON["E"] ","; next } { print }' \
        "$tmp/a1/shared.lua" > "$d/shared.lua"
    (cd "$d" && env PATH=/nonexistent "$bin" run shared.lua --smoke --quiet >out.txt 2>err.txt) ||
        fail "run with out holding control bytes and no gnuplot exited $?: $(cat "$d/err.txt")"
    LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$d/err.txt" &&
        fail "stderr holds control bytes: $(od -c "$d/err.txt" | head -n 5)"
    cmd=$(sed -n 's/.*redraw with: //p' "$d/err.txt" | head -n 1)
    [ -n "$cmd" ] || fail "out with control bytes: no suggested command: $(cat "$d/err.txt")"
    rm -f "$tmp/args"
    (cd "$d" && PATH="$tmp/fakebin:$PATH" SUGGESTED_ARGS="$tmp/args" bash -c "$cmd") 2>/dev/null
    run_dir=$(dirname "$(find "$d" -name run.json)")
    run_dir=${run_dir#"$d"/}
    case $run_dir in "$(printf 'res\033]0;title\007\nx/shared-')"*) ;; *) fail "the run folder is '$run_dir'" ;; esac
    want=$(printf '[plot]\n[%s]\n[--kind]\n[threads]' "$run_dir")
    [ "$(cat "$tmp/args" 2>/dev/null)" = "$want" ] ||
        fail "out with control bytes: the suggested '$cmd' runs in bash as '$(od -c "$tmp/args" 2>&1 | head -n 4)'"
fi

# ---- a plot that fails leaves the previous plot as it was ----
"$bin" plot "$data" --kind threads --out "$tmp/keep" >/dev/null 2>&1 || fail "plot into keep"
cp "$tmp/keep/threads.png" "$tmp/threads.png.before"
cp "$tmp/keep/threads.svg" "$tmp/threads.svg.before"
mkdir "$tmp/nan"
cp "$data/run.json" "$tmp/nan/"
# every throughput NaN: gnuplot opens its output, then stops with "all points y value undefined"
awk -F, 'BEGIN { OFS = "," } NR == 1 { for (i = 1; i <= NF; i++) if ($i == "gops") c = i; print; next }
         { $c = "nan"; print }' "$data/results.csv" > "$tmp/nan/results.csv"
"$bin" plot "$tmp/nan" --kind threads --out "$tmp/keep" >/dev/null 2>"$tmp/nan.err" && fail "a plot gnuplot could not draw exited 0"
cmp -s "$tmp/keep/threads.png" "$tmp/threads.png.before" || fail "a failed plot changed the previous threads.png"
cmp -s "$tmp/keep/threads.svg" "$tmp/threads.svg.before" || fail "a failed plot changed the previous threads.svg"
[ -z "$(find "$tmp/keep" -name '.*' -type f)" ] || fail "a failed plot left temporary files in the output folder"

# ---- a folder without results; --out under a file ----
mkdir "$tmp/empty"
"$bin" plot "$tmp/empty" >"$tmp/empty.out" 2>"$tmp/empty.err" && fail "plot of a folder without results exited 0"
[ "$(wc -l < "$tmp/empty.err")" -eq 1 ] && grep -q 'no results' "$tmp/empty.err" ||
    fail "plot of a folder without results: not one line saying so: $(cat "$tmp/empty.err")"
# a folder whose tables are a header without rows is a folder without results (it exited 0 with
# every kind "skipped"), kernel-sweep and model-sweep tables alike
mkdir "$tmp/header"
cp "$data/run.json" "$tmp/header/"
head -1 "$data/results.csv" > "$tmp/header/results.csv"
printf 'model,kernel,threads,pp_tps,tg_tps\n' > "$tmp/header/e2e.csv"
"$bin" plot "$tmp/header" --out "$tmp/header/plots" >"$tmp/header.out" 2>"$tmp/header.err" &&
    fail "plot of a folder whose tables are only headers exited 0"
[ "$(wc -l < "$tmp/header.err")" -eq 1 ] && grep -q 'no results' "$tmp/header.err" ||
    fail "plot of a folder whose tables are only headers: not one line saying so: $(cat "$tmp/header.err")"
# --out under a missing folder makes it (test_plot); a part of the path that is a file is named
: > "$tmp/afile"
"$bin" plot "$data" --kind threads --out "$tmp/afile/deeper/plots" >/dev/null 2>"$tmp/missing.err" &&
    fail "--out under a file exited 0"
[ "$(wc -l < "$tmp/missing.err")" -eq 1 ] && grep -q "$tmp/afile is a regular file, not a folder" "$tmp/missing.err" ||
    fail "--out under a file: not one line naming it: $(cat "$tmp/missing.err")"
mkdir -p "$tmp/dirout/threads.svg"
"$bin" plot "$data" --kind threads --out "$tmp/dirout" >/dev/null 2>"$tmp/dirout.err" && fail "an image place that is a folder exited 0"
grep -q 'threads.svg: is a directory' "$tmp/dirout.err" && [ ! -e "$tmp/dirout/threads.png" ] ||
    fail "an image place that is a folder: not refused before drawing: $(cat "$tmp/dirout.err")"
canary "the end"
echo "test_plot_hostile: passed"
