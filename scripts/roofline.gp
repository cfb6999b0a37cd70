# Roofline (Williams et al.; Intel up-convert paper Fig. 4 style): attained GOP/s against
# operational intensity in operations per weight byte (2*M*K*N / packed weight bytes).  Per thread
# count t of the data, one ceiling per read level: min(peak_t, bw_level_t x intensity), in the
# colour of t; the points measured with t threads are drawn in the same colour (one point type per
# kernel), so each point is read against the roof of its own thread count.
# Variables: term, outfile, points (blocks per kernel and thread count), ttl, run, nblocks, and per
# block i (from 0) bthr_i (its thread count's index j, from 1) and bker_i (its kernel's index);
# nthr, and per j: thr_j (threads), dram_j l3_j l2_j (read GB/s, NaN = not measured), peak_j (int8
# GOP/s, NaN = none measured); levels (1: DRAM ceilings only, 3: also L3 and L2).
width = 1280
load scriptdir."/plot_common.gp"
set title fulltitle noenhanced
set logscale xy
set xlabel "operational intensity (operations per weight byte, op/B)"
set ylabel "attained throughput (GOP/s)"
set xrange [0.1:1000]
set yrange [0.1:*]
set samples 400
set lmargin at screen 0.08
set rmargin at screen 0.58
set label 90 "ceiling = min(int8 peak, read GB/s x op/B)" at screen 0.60, screen 0.90 left font ",9" noenhanced
set key at screen 0.60, screen 0.87 left top Left reverse font ",9" noenhanced
tcolors = "#1f77b4 #d62728 #2ca02c #9467bd #ff7f0e #8c564b #e377c2 #17becf"
tcol(j) = word(tcolors, (j - 1) % 8 + 1)
num(name) = value(name)
# the roof: bandwidth times intensity, flat at the compute peak where the profile has one
roof(x, bw, pk) = (pk == pk && pk > 0 && pk < bw * x) ? pk : bw * x
lvname(l) = l == 1 ? "DRAM" : (l == 2 ? "L3" : "L2")
lvvar(l) = l == 1 ? "dram_" : (l == 2 ? "l3_" : "l2_")
plural(t) = t == 1 ? "" : "s"
rooftitle(j, l) = sprintf("ceiling %d thread%s, %s: %.1f GB/s, %s", num(sprintf("thr_%d", j)), \
    plural(num(sprintf("thr_%d", j))), lvname(l), num(sprintf("%s%d", lvvar(l), j)), \
    num(sprintf("peak_%d", j)) == num(sprintf("peak_%d", j)) ? sprintf("peak %.0f GOP/s", num(sprintf("peak_%d", j))) \
                                                              : "no int8 peak in the profile")
plot for [i=0:nblocks-1] points index i using 2:3 with points pointsize 1.4 \
         pt (num(sprintf("bker_%d", i)) - 1) % 13 + 1 lc rgb tcol(num(sprintf("bthr_%d", i))) title columnheader(1), \
     for [j=1:nthr] for [l=1:levels] \
         (num(sprintf("%s%d", lvvar(l), j)) == num(sprintf("%s%d", lvvar(l), j)) ? \
             roof(x, num(sprintf("%s%d", lvvar(l), j)), num(sprintf("peak_%d", j))) : NaN) \
         with lines lw (l == 1 ? 2 : 1) dt l lc rgb tcol(j) \
         title (num(sprintf("%s%d", lvvar(l), j)) == num(sprintf("%s%d", lvvar(l), j)) ? rooftitle(j, l) : "")
