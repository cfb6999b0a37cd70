# Shared by the plot scripts: the terminal from `term` ("png" or "svg"), the output `outfile`, the
# canvas `width` in pixels (bar charts widen it with their number of bars; default 960), and
# `fulltitle`: the kind's title `ttl` over the run line `run` (experiment, run id, machine, day).
# Keys go outside the data area (right of it); error bars get caps a reader can see.
if (!exists("width")) width = 960
if (term eq "svg") {
    set terminal svg size width,620 dynamic noenhanced font "Sans,12" background "white"
} else {
    set terminal pngcairo size width,620 noenhanced font "Sans,11"
}
set output outfile
if (!exists("run")) run = ""
fulltitle = ttl . "\n" . run
set grid
set key outside right top
set bars 2.5
# an error bar's end from column c, or the point's own y where the data has none ("nan": not a
# valid number, which gnuplot would draw at the axis' edge)
bar(c, y) = valid(c) ? column(c) : y
# the key's title: what the bars are (`bars`), then how many hide behind their marker
# (`bars_hidden`, set by bitbench; empty when every bar shows)
if (!exists("bars_hidden")) bars_hidden = ""
keytitle(b) = strlen(bars_hidden) > 0 ? b . "\n" . bars_hidden : b
