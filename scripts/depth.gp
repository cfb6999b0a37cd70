# Tokens/s against KV-cache depth (kind e2e_depth): generation (left) and prefill (right), one line
# per kernel, model, threads and KV cache type.  Variables: term, outfile, points (blocks: depth
# tg tg_low tg_high pp pp_low pp_high; NaN where a phase was not measured), ttl, run, nblocks,
# have_tg, have_pp (whether any row measured that phase: a sweep with prompt = 0, as
# experiments/peers_depth.lua, has no prefill, and gets the generation panel alone).
# Error bars: slowest to fastest repetition, or round for a row measured in rounds (bars says
# which).  One key, right of the last panel, outside the data.
width = 1280
load scriptdir."/plot_common.gp"
if (!exists("bars")) bars = "bars: slowest to fastest repetition"
set offsets graph 0.03, graph 0.03, 0, 0
set multiplot title fulltitle noenhanced
set tmargin at screen 0.86
set bmargin at screen 0.11
set xlabel "depth (tokens in the KV cache before the test)"
# tics at a power of two (depths are, like llama-bench's -d), about four across the range; none
# left of 0, where the offset leaves room for the first point's bar
stats points using 1 nooutput
tic = STATS_max > 4 ? 2**ceil(log(STATS_max / 4.0) / log(2)) : 1
set xtics 0, tic
set autoscale xfix
set yrange [0:*]
unset key
# the panels: two side by side, or one as wide as both
panels = have_tg + have_pp
left = 0.06
right = panels == 2 ? 0.33 : 0.68
if (have_tg) {
    set lmargin at screen left
    set rmargin at screen right
    set ylabel "generation throughput (tokens/s)"
    if (!have_pp) {
        set label 90 bars at screen 0.70, screen 0.85 left font ",9" noenhanced
        set key at screen 0.70, screen 0.80 left top Left reverse font ",9" noenhanced
    }
    plot for [i=0:nblocks-1] points index i using 1:2:(bar(3, $2)):(bar(4, $2)) with yerrorlines lw 1.5 title columnheader(1)
    left = 0.41
    right = 0.68
}
if (have_pp) {
    set label 90 bars at screen 0.70, screen 0.85 left font ",9" noenhanced
    set key at screen 0.70, screen 0.80 left top Left reverse font ",9" noenhanced
    set lmargin at screen left
    set rmargin at screen right
    set ylabel "prefill throughput (tokens/s)"
    plot for [i=0:nblocks-1] points index i using 1:5:(bar(6, $5)):(bar(7, $5)) with yerrorlines lw 1.5 title columnheader(1)
}
unset multiplot
