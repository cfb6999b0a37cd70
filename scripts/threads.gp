# Throughput and weight bandwidth against threads (bitnet.cpp Figs. 8 and 10 style), one line
# per kernel and shape (GEMM sweeps) or kernel and model (model sweeps, kind e2e_threads).
# Variables: term, outfile, points (blocks: threads y1 y2 y1_low y1_high y2_low y2_high flagged),
# ttl, run, nblocks, flagged (how many points are flagged), dram (GB/s at the most threads, 0 when
# no profile), bars (what the error bars are: the interquartile range of a kernel point's calls,
# or an end-to-end point's slowest to fastest repetition, or round when it was measured in
# rounds), bars_hidden (how many hide behind their marker), optional y1 / y2 (the two axis
# labels), optional y2_note (set when no point has a y2: the panel says it instead of plotting
# nothing, which gnuplot refuses).  Flagged points
# (spread_flag or busy) get a red ring.  The two panels have fixed margins and share one key,
# right of the second panel, outside both data areas; y starts at 0, so that the bars' sizes
# compare.
width = 1280
load scriptdir."/plot_common.gp"
if (!exists("y1")) y1 = "throughput (GOP/s)"
if (!exists("y2")) y2 = "attained weight bandwidth (GB/s)"
if (!exists("flagged")) flagged = 0
if (!exists("bars")) bars = ""
set offsets 0.15, 0.15, 0, 0
set multiplot title fulltitle noenhanced
set tmargin at screen 0.86
set bmargin at screen 0.11
set xlabel "threads (count)"
set xtics 1
set yrange [0:*]
flagtitle = "flagged: large spread or busy machine"
# left panel: no key (the right one carries it)
unset key
set lmargin at screen 0.06
set rmargin at screen 0.33
set ylabel y1
if (flagged > 0) {
    plot for [i=0:nblocks-1] points index i using 1:2:(bar(4, $2)):(bar(5, $2)) with yerrorlines lw 1.5 title columnheader(1), \
         for [i=0:nblocks-1] points index i using 1:($8 > 0 ? $2 : NaN) with points pt 6 ps 2.5 lw 2 \
             lc rgb "red" title (i == 0 ? flagtitle : "")
} else {
    plot for [i=0:nblocks-1] points index i using 1:2:(bar(4, $2)):(bar(5, $2)) with yerrorlines lw 1.5 title columnheader(1)
}
# the key right of the second panel: what the bars are on top, the entries under it (placed at
# screen positions right of the fixed margins, so never over the data)
set label 90 keytitle(bars) at screen 0.70, screen 0.85 left font ",9" noenhanced
set key at screen 0.70, screen 0.78 left top Left reverse font ",9" noenhanced
set lmargin at screen 0.41
set rmargin at screen 0.68
set ylabel y2
if (exists("y2_note")) {
    set yrange [0:1]
    unset ytics
    set label 91 y2_note at graph 0.5, graph 0.5 center font ",10" noenhanced
}
if (dram > 0) { ceiling = dram } else { ceiling = NaN }
ceilingtitle = dram > 0 ? "DRAM read ceiling, most threads" : ""
if (flagged > 0) {
    plot for [i=0:nblocks-1] points index i using 1:3:(bar(6, $3)):(bar(7, $3)) with yerrorlines lw 1.5 title columnheader(1), \
         for [i=0:nblocks-1] points index i using 1:($8 > 0 ? $3 : NaN) with points pt 6 ps 2.5 lw 2 \
             lc rgb "red" title (i == 0 ? flagtitle : ""), \
         ceiling title ceilingtitle with lines lw 2 lc rgb "black"
} else {
    plot for [i=0:nblocks-1] points index i using 1:3:(bar(6, $3)):(bar(7, $3)) with yerrorlines lw 1.5 title columnheader(1), \
         ceiling title ceilingtitle with lines lw 2 lc rgb "black"
}
unset multiplot
