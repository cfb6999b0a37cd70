# Tokens/s against KV-cache depth (kind e2e_depth): generation (left) and prefill (right), one line
# per kernel, model, threads and KV cache type.  Variables: term, outfile, points (blocks: depth
# tg tg_low tg_high pp pp_low pp_high; NaN where a phase was not measured), ttl, nblocks.  Error
# bars: slowest to fastest repetition.
load scriptdir."/plot_common.gp"
set offsets graph 0.03, graph 0.03, 0, 0
set multiplot layout 1,2 title ttl noenhanced
set xlabel "depth (tokens in the KV cache before the test)"
set key inside right top font ",9" title "bars: slowest to fastest repetition" noenhanced
set ylabel "generation throughput (tokens/s)"
plot for [i=0:nblocks-1] points index i using 1:2:3:4 with yerrorlines title columnheader(1)
set ylabel "prefill throughput (tokens/s)"
plot for [i=0:nblocks-1] points index i using 1:5:6:7 with yerrorlines title columnheader(1)
unset multiplot
