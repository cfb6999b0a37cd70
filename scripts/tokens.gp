# Tokens/s by model and kernel (bitnet.cpp Table 7 / Fig. 7 style): generation (tg) and prompt
# (pp) tokens/s at the most threads measured.  Variables: term, outfile, tg, pp (tables: model
# then one column per kernel), ttl, ncols.
load scriptdir."/plot_common.gp"
set multiplot layout 1,2 title ttl noenhanced
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set xtics rotate by -30
set yrange [0:*]
set key inside right top font ",9"
set xlabel "model"
set ylabel "generation throughput (tokens/s)"
plot for [i=2:ncols] tg using i:xtic(1) title columnheader(i)
set ylabel "prompt throughput (tokens/s)"
plot for [i=2:ncols] pp using i:xtic(1) title columnheader(i)
unset multiplot
