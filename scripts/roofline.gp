# Roofline (Williams et al.; Intel up-convert paper Fig. 4 style): attained GOP/s against
# operational intensity in operations per weight byte (2*M*K*N / packed weight bytes), one
# point per measured (kernel, shape, threads); the ceilings are the machine profile's read
# bandwidths (GB/s x intensity) and instruction peaks, all threads.
# Variables: term, outfile, points (blocks per kernel), ttl, and the ceilings l1 l2 l3 dram
# (GB/s), peak_i8 peak_f32 (GOP/s), nblocks.
load scriptdir."/plot_common.gp"
set title ttl noenhanced
set logscale xy
set xlabel "operational intensity (operations per weight byte)"
set ylabel "attained throughput (GOP/s)"
set xrange [0.1:1000]
set yrange [0.1:*]
plot for [i=0:nblocks-1] points index i using 2:3 with points pointsize 1.4 title columnheader(1), \
     dram*x title sprintf("DRAM read %.1f GB/s", dram) with lines lw 2 dt 1 lc rgb "black", \
     l3*x title sprintf("L3 read %.1f GB/s", l3) with lines lw 1 dt 2 lc rgb "gray30", \
     l2*x title sprintf("L2 read %.1f GB/s", l2) with lines lw 1 dt 3 lc rgb "gray50", \
     peak_i8 title sprintf("vpdpbusd peak %.0f GOP/s", peak_i8) with lines lw 2 lc rgb "dark-red", \
     peak_f32 title sprintf("fp32 FMA peak %.0f GOP/s", peak_f32) with lines lw 2 dt 4 lc rgb "dark-blue"
