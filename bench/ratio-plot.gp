# gnuplot script of bench/plot: every row's fdkernel ÷ Linux cost
# (instructions per operation) as a bar, log scale, 1.0 drawn: a bar below
# the line is a row where fdkernel does the work in fewer instructions.
# Called with -e "data='...'; out='...'"; data lines are "row ratio".
set terminal pngcairo size 1300,700 font ",11" noenhanced
set output out
set title "fdkernel ÷ Linux, instructions per operation (QEMU -icount; below 1: fdkernel cheaper)"
set ylabel "fdkernel ÷ Linux (log scale)"
set logscale y
set yrange [0.01:10]
set style fill solid 0.7 border -1
set boxwidth 0.7
set xtics rotate by -45 left nomirror
set grid ytics
set key off
set bmargin 13
set rmargin 8
set arrow from graph 0, first 1 to graph 1, first 1 nohead lw 2 lc rgb "black"
set ytics ("0.01" 0.01, "0.1" 0.1, "0.5" 0.5, "1.0 = parity" 1, "2" 2, "10" 10)
plot data using 0:2:($2 < 1 ? 0x2a9d8f : 0xe76f51):xtic(1) with boxes lc rgb variable
