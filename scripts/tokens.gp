# Tokens/s by model and kernel (bitnet.cpp Table 7 / Fig. 7 style): generation (tg) and prompt
# (pp) tokens/s at the most threads measured, error bars from the slowest to the fastest
# repetition, or round for a row measured in rounds (bars says which).  Variables: term, outfile, tg, pp (tables: model, then per kernel its value, low and
# high), nkernels, nmodels, has_pp (0: no prefill was measured, its panel is left out and pp_note
# says why), bars (what the bars are), bars_hidden (how many hide behind their marker), ttl, run.
# The key is right of the data, outside it.
if (has_pp) { width = 1280 }
load scriptdir."/plot_common.gp"
if (!exists("bars")) bars = "bars: slowest to fastest repetition"
set style data histogram
set style histogram errorbars gap 1 lw 2
set style fill solid 0.8 border -1
set yrange [0:*]
set xlabel "model"
set tmargin at screen 0.86
set bmargin at screen 0.22
if (nmodels > 6) { set xtics rotate by 90 right } else { set xtics rotate by -30 }
if (has_pp) {
    set multiplot title fulltitle noenhanced
    unset key
    set lmargin at screen 0.06
    set rmargin at screen 0.36
} else {
    set title fulltitle noenhanced
    set lmargin at screen 0.08
    set rmargin at screen 0.66
    set label 90 keytitle(bars) at screen 0.68, screen 0.85 left font ",9" noenhanced
    set key at screen 0.68, screen 0.78 left top Left reverse font ",9" noenhanced
    set label 1 "no prefill panel:\n" . pp_note at screen 0.68, screen 0.30 left font ",9" noenhanced
}
set ylabel "generation throughput (tokens/s)"
plot for [k=0:nkernels-1] tg using (column(2+3*k)):(bar(3+3*k, column(2+3*k))):(bar(4+3*k, column(2+3*k))):xtic(1) title columnheader(2+3*k)
if (has_pp) {
    set label 90 keytitle(bars) at screen 0.76, screen 0.85 left font ",9" noenhanced
    set key at screen 0.76, screen 0.78 left top Left reverse font ",9" noenhanced
    set lmargin at screen 0.44
    set rmargin at screen 0.74
    set ylabel "prompt throughput (tokens/s)"
    plot for [k=0:nkernels-1] pp using (column(2+3*k)):(bar(3+3*k, column(2+3*k))):(bar(4+3*k, column(2+3*k))):xtic(1) title columnheader(2+3*k)
    unset multiplot
}
