#!/bin/sh
# models/unicode_tables.c is what scripts/gen_unicode_tables.lua makes of the Unicode Character
# Database on this machine (Debian's unicode-data, which scripts/bootstrap installs).  Where the
# database or lua5.4 is absent there is nothing to compare with: said, and passed.
src="$BITBENCH_SOURCE_DIR"
ucd=/usr/share/unicode
if [ ! -r "$ucd/UnicodeData.txt" ] || [ ! -r "$ucd/PropList.txt" ] || ! command -v lua5.4 >/dev/null 2>&1; then
    echo "unicode_tables: no $ucd/UnicodeData.txt or no lua5.4 here: not regenerated"
    exit 0
fi
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
lua5.4 "$src/scripts/gen_unicode_tables.lua" "$ucd" >"$tmp" || { echo "FAIL: the generator failed"; exit 1; }
if ! cmp -s "$tmp" "$src/models/unicode_tables.c"; then
    echo "FAIL: models/unicode_tables.c differs from the generator's output for $ucd ($(head -1 "$tmp" | grep -o 'Database [0-9.]*'));"
    echo "      regenerate: lua5.4 scripts/gen_unicode_tables.lua > models/unicode_tables.c"
    exit 1
fi
echo "unicode_tables: 1 passed, 0 failed"
