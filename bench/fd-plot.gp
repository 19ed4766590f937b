# gnuplot script of bench/plot: fd alloc+close instructions against the
# number of open fds, each pattern of bench_fd, fdkernel solid and Linux
# dashed in the same colour.  Called with -e "data='...'; out='...'".
set terminal pngcairo size 960,600 font ",11" noenhanced
set output out
set title "fd alloc+close, instructions (QEMU -icount; lower is better)"
set xlabel "open fds"
set ylabel "instructions per alloc+close"
set logscale x
set format x "%.0f"
set yrange [0:*]
set key below maxrows 2
set grid
set rmargin 6
set datafile missing "NaN"
plot data using 1:2 with linespoints lw 2 lc 1 pt 7 title "fdkernel seq (dup+close)", \
     data using 1:3 with linespoints lw 2 lc 2 pt 7 title "fdkernel reopen", \
     data using 1:4 with linespoints lw 2 lc 3 pt 7 title "fdkernel hole", \
     data using 1:5 with linespoints lw 2 lc 4 pt 7 title "fdkernel non-seq (O_NONSEQFD)", \
     data using 1:6 with linespoints lw 2 lc 1 dt 2 pt 6 title "Linux seq", \
     data using 1:7 with linespoints lw 2 lc 2 dt 2 pt 6 title "Linux reopen", \
     data using 1:8 with linespoints lw 2 lc 3 dt 2 pt 6 title "Linux hole"
