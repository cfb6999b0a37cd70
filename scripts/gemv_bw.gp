# Attained GEMV (N = 1) weight bandwidth per shape and kernel at the most threads measured
# (Intel up-convert paper Figs. 5-7 style).  Variables: term, outfile, points (a table: shape
# then one column per kernel, "NaN" where not measured), ttl, run, ncols, dram (GB/s, 0 = none),
# width (the canvas grows with the number of bars), nx (shapes: past 8 the labels stand
# vertical so that they do not overlap).
load scriptdir."/plot_common.gp"
set title fulltitle noenhanced
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set xlabel "shape (M x K) and cache mode"
set ylabel "attained weight bandwidth (GB/s)"
if (nx > 8) { set xtics rotate by 90 right font ",9"; set bmargin 10 } else { set xtics rotate by -30 }
set yrange [0:*]
if (dram > 0) {
    plot for [i=2:ncols] points using i:xtic(1) title columnheader(i), \
         dram title "DRAM read ceiling" with lines lw 2 lc rgb "black"
} else {
    plot for [i=2:ncols] points using i:xtic(1) title columnheader(i)
}
