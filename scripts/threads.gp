# Throughput and weight bandwidth against threads (bitnet.cpp Figs. 8 and 10 style), one line
# per kernel and shape (GEMM sweeps) or kernel and model (model sweeps, kind e2e_threads).
# Variables: term, outfile, points (blocks: threads throughput bandwidth), ttl, nblocks, dram
# (GB/s at the most threads, 0 when no profile), optional y1 / y2 (the two axis labels).
load scriptdir."/plot_common.gp"
if (!exists("y1")) y1 = "throughput (GOP/s)"
if (!exists("y2")) y2 = "attained weight bandwidth (GB/s)"
set multiplot layout 1,2 title ttl noenhanced
set xlabel "threads"
set xtics 1
set ylabel y1
set key inside left top font ",9"
plot for [i=0:nblocks-1] points index i using 1:2 with linespoints title columnheader(1)
set ylabel y2
if (dram > 0) {
    plot for [i=0:nblocks-1] points index i using 1:3 with linespoints title columnheader(1), \
         dram title "DRAM read ceiling" with lines lw 2 lc rgb "black"
} else {
    plot for [i=0:nblocks-1] points index i using 1:3 with linespoints title columnheader(1)
}
unset multiplot
