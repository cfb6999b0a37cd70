#!/bin/sh
# The HTML report in a real browser (issue 33): Debian's headless Chromium loads the report.html of
# a small real run from a file, logs no console message of level warning or error, and its
# screenshot is not blank (python3 decodes the PNG: many colours, a share of pixels not white).
# The console check is shown to work first: a probe page that logs an error must be caught.
# Skips (status 77, ctest SKIP_RETURN_CODE) only where Chromium is not installed
# (scripts/bootstrap installs it).
BB="$1"
src=${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}
. "$src/tests/lib/check.sh"
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    echo "SKIP: Chromium is not installed (scripts/bootstrap installs Debian's chromium)"
    exit 77
fi
command -v python3 >/dev/null 2>&1 || { echo "FAIL: python3 is missing (scripts/bootstrap installs it)"; exit 1; }
check_scratch report_browser

# Chromium: headless, a profile and HOME of its own in the scratch folder, no network, bounded.
shot() { # URL PNG LOG
    HOME="$T/home" timeout 90 "$browser" --headless --disable-gpu --no-sandbox --no-first-run \
        --user-data-dir="$T/profile" --disable-extensions --disable-background-networking \
        --enable-logging=stderr --v=0 --window-size=1280,2000 --screenshot="$2" "$1" >"$3" 2>&1
}
mkdir -p "$T/home"
# console messages as Chromium logs them: "CONSOLE(line)" with the level, or "Uncaught"
console_errors() { grep -E 'CONSOLE|Uncaught|Refused to|Content Security Policy' "$1"; }

# the probe: a page that logs an error; the check must see it
printf '<!DOCTYPE html><html><body><p>probe</p><script>console.error("bitbench-probe-error"); undefined_fn();</script></body></html>\n' \
    > "$T/probe.html"
shot "file://$T/probe.html" "$T/probe.png" "$T/probe.log"
check 'console_errors "$T/probe.log" | grep -q "bitbench-probe-error\|undefined_fn"' \
    "the console check cannot see a page's errors (so it proves nothing): $(tail -5 "$T/probe.log")"

cat > "$T/k.lua" <<LUA
bitbench.experiment { name = "rptb", out = "$T/res", plots = { "gemv_bw" }, sweeps = {
  bitbench.sweep { name = "g", kernels = { "i2_s", "q8_0" }, shapes = { { m = 128, k = 256 } }, n = { 1 },
                   threads = { 1 }, warmup = 1, reps = 5, min_seconds = 0, max_reps = 5 } } }
LUA
"$BB" run --quiet "$T/k.lua" >/dev/null 2>"$T/err"; rc=$?
dir=$(ls -d "$T"/res/rptb-* | head -1)
check '[ "$rc" -eq 0 ] && [ -s "$dir/report.html" ]' "run: rc=$rc $(cat "$T/err")"
"$BB" report "$dir" -o "$T/page.html" >/dev/null 2>"$T/err"
check '[ -s "$T/page.html" ]' "bitbench report: $(cat "$T/err")"

shot "file://$T/page.html" "$T/page.png" "$T/page.log"; rc=$?
check '[ "$rc" -eq 0 ] && [ -s "$T/page.png" ]' "Chromium made no screenshot: rc=$rc $(tail -5 "$T/page.log")"
check '! console_errors "$T/page.log" >/dev/null' "console messages: $(console_errors "$T/page.log" | head -5)"

# The screenshot decoded (PNG: zlib-compressed scanlines, each with its filter byte; RFC 2083).
cat > "$T/png.py" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and ctype in (2, 6), "8-bit RGB or RGBA expected, got %d/%d" % (depth, ctype)
        bpp = 3 if ctype == 2 else 4
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
colours, ink = set(), 0
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        px = bytes(line[x:x + 3])
        colours.add(px)
        ink += px != b"\xff\xff\xff"
    prev = line
print("%dx%d %d colours %.1f%% not white" % (w, h, len(colours), 100.0 * ink / (w * h)))
sys.exit(0 if len(colours) >= 16 and ink >= 0.01 * w * h else 1)
PY
out=$(python3 "$T/png.py" "$T/page.png" 2>&1); rc=$?
check '[ "$rc" -eq 0 ]' "the screenshot looks blank: $out"
# and the check can fail: a blank page's screenshot is found blank
printf '<!DOCTYPE html><html><body style="background:#fff"></body></html>\n' > "$T/blank.html"
shot "file://$T/blank.html" "$T/blank.png" "$T/blank.log"
out=$(python3 "$T/png.py" "$T/blank.png" 2>&1); rc=$?
check '[ "$rc" -ne 0 ]' "a blank page's screenshot passed the non-blank check: $out"
check_summary test_report_browser
