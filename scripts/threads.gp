# Throughput and weight bandwidth against threads (bitnet.cpp Figs. 8 and 10 style), one line
# per kernel and shape.  Variables: term, outfile, points (blocks: threads gops gbps), ttl,
# nblocks, dram (GB/s at the most threads, 0 when no profile).
load scriptdir."/plot_common.gp"
set multiplot layout 1,2 title ttl noenhanced
set xlabel "threads"
set xtics 1
set ylabel "throughput (GOP/s)"
set key inside left top font ",9"
plot for [i=0:nblocks-1] points index i using 1:2 with linespoints title columnheader(1)
set ylabel "attained weight bandwidth (GB/s)"
if (dram > 0) {
    plot for [i=0:nblocks-1] points index i using 1:3 with linespoints title columnheader(1), \
         dram title "DRAM read ceiling" with lines lw 2 lc rgb "black"
} else {
    plot for [i=0:nblocks-1] points index i using 1:3 with linespoints title columnheader(1)
}
unset multiplot
