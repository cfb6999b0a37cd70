# Effective-bandwidth roofline per kernel (Intel up-convert paper Fig. 4, Eq. 2):
# ebw = min(beta, T * B / gamma), beta the DRAM read bandwidth with T threads, B the packed bytes
# of 32 weights, gamma the measured cycles per 32 weights at the measured clock.
# Variables: term, outfile, points (kernel bpw compute_bound_T ebw), ttl, dram.
load scriptdir."/plot_common.gp"
set title ttl noenhanced
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set xtics rotate by -60 font ",8"
set xlabel "kernel and bits per weight" offset 0,-1
set ylabel "weight bandwidth (GB/s)"
set logscale y
set yrange [0.1:*]
plot points using 3:xtic(1) title "compute bound T*B/gamma", \
     points using 4 title "ebw = min(beta, T*B/gamma)", \
     dram title sprintf("beta: DRAM read %.1f GB/s", dram) with lines lw 2 lc rgb "black"
