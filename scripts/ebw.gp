# Effective-bandwidth roofline per kernel (Intel up-convert paper Fig. 4, Eq. 2):
# ebw = min(beta, T * B / gamma), beta the DRAM read bandwidth with T threads, B the packed bytes
# of 32 weights, gamma the measured cycles per 32 weights at the measured clock.
# Variables: term, outfile, points (kernel bpw compute_bound_T ebw), ttl, run, dram, width (the
# canvas grows with the number of kernels), nx (kernels).  Labels stand vertical, one per bar
# group, so they never overlap whatever the number of kernels.
load scriptdir."/plot_common.gp"
set title fulltitle noenhanced
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set xtics rotate by 90 right font ",9"
set bmargin 12
set xlabel "kernel and bits per weight"
set ylabel "weight bandwidth (GB/s)"
set logscale y
set yrange [0.1:*]
plot points using 3:xtic(1) title "compute bound T*B/gamma", \
     points using 4 title "ebw = min(beta, T*B/gamma)", \
     dram title sprintf("beta: DRAM read %.1f GB/s", dram) with lines lw 2 lc rgb "black"
