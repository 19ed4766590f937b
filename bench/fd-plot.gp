# gnuplot script of bench/run: fd alloc+close cost against the number of
# open fds (docs/bench.png).  Called with -e "data='...'; out='...'".
set terminal pngcairo size 900,560 font ",11" noenhanced
set output out
set title "fd alloc+close under QEMU TCG (lower is better)"
set xlabel "open fds"
set ylabel "ns per alloc+close"
set logscale x
set format x "%.0f"
set yrange [0:*]
set key below
set grid
set datafile missing "NaN"
plot data using 1:2 with linespoints lw 2 title "fdkernel, sequential", \
     data using 1:3 with linespoints lw 2 title "fdkernel, non-sequential (O_NONSEQFD)", \
     data using 1:4 with linespoints lw 2 title "Linux, dup+close"
