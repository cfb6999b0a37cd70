# Throughput and weight bandwidth against threads (bitnet.cpp Figs. 8 and 10 style), one line
# per kernel and shape (GEMM sweeps) or kernel and model (model sweeps, kind e2e_threads).
# Variables: term, outfile, points (blocks: threads y1 y2 y1_low y1_high y2_low y2_high flagged),
# ttl, nblocks, flagged (how many points are flagged), dram (GB/s at the most threads, 0 when no
# profile), bars (what the error bars are, for the key: the interquartile range of a kernel
# point's calls, or an end-to-end point's slowest to fastest repetition), optional y1 / y2 (the
# two axis labels).  Flagged points (spread_flag or busy) get a red ring.
load scriptdir."/plot_common.gp"
if (!exists("y1")) y1 = "throughput (GOP/s)"
if (!exists("y2")) y2 = "attained weight bandwidth (GB/s)"
if (!exists("flagged")) flagged = 0
if (!exists("bars")) bars = ""
set offsets 0.15, 0.15, 0, 0
set multiplot layout 1,2 title ttl noenhanced
set xlabel "threads"
set xtics 1
set ylabel y1
set key inside left top font ",9" title bars noenhanced
flagtitle = "flagged: large spread or busy machine"
if (flagged > 0) {
    plot for [i=0:nblocks-1] points index i using 1:2:4:5 with yerrorlines title columnheader(1), \
         for [i=0:nblocks-1] points index i using 1:($8 > 0 ? $2 : NaN) with points pt 6 ps 2.5 lw 2 \
             lc rgb "red" title (i == 0 ? flagtitle : "")
} else {
    plot for [i=0:nblocks-1] points index i using 1:2:4:5 with yerrorlines title columnheader(1)
}
set ylabel y2
if (dram > 0) {
    plot for [i=0:nblocks-1] points index i using 1:3:6:7 with yerrorlines title columnheader(1), \
         dram title "DRAM read ceiling" with lines lw 2 lc rgb "black"
} else {
    plot for [i=0:nblocks-1] points index i using 1:3:6:7 with yerrorlines title columnheader(1)
}
unset multiplot
