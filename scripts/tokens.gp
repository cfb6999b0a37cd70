# Tokens/s by model and kernel (bitnet.cpp Table 7 / Fig. 7 style): generation (tg) and prompt
# (pp) tokens/s at the most threads measured, error bars from the slowest to the fastest
# repetition.  Variables: term, outfile, tg, pp (tables: model, then per kernel its value, low and
# high), nkernels, has_pp (0: no prefill was measured, its panel is left out), ttl.
load scriptdir."/plot_common.gp"
if (has_pp) { set multiplot layout 1,2 title ttl noenhanced } else { set title ttl noenhanced }
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.8 border -1
set xtics rotate by -30
set yrange [0:*]
set key inside right top font ",9" title "bars: slowest to fastest repetition" noenhanced
set xlabel "model"
set ylabel "generation throughput (tokens/s)"
plot for [k=0:nkernels-1] tg using (column(2+3*k)):(column(3+3*k)):(column(4+3*k)):xtic(1) title columnheader(2+3*k)
if (has_pp) {
    set ylabel "prompt throughput (tokens/s)"
    plot for [k=0:nkernels-1] pp using (column(2+3*k)):(column(3+3*k)):(column(4+3*k)):xtic(1) title columnheader(2+3*k)
    unset multiplot
}
