# The counters of a metric log under the kernel timeline (mct-report
# --metrics LOG -p DIR): which kernel ran when, and what the memory and
# the clocks did meanwhile.
# kern: start_s end_s lane  (lane 1..n: the kernels with the most device
#       time, top first; 0: the others); ytics names the lanes
# ctr.I (I = 1..m): t_s value  (the samples of counter I, names(I))
set terminal pngcairo noenhanced size 1200,(260 + 200 * m) font ",10"
set output out
set datafile separator "\t"
set multiplot layout m + 1, 1 title "Kernels and device metrics against time"
set grid
set lmargin 28
set xrange [0:span]
stats kern using 3 nooutput
n = int(STATS_max)
set yrange [n + 0.5:-0.5]
eval("set ytics " . ytics)
set key off
set xlabel "time since the trace origin (s)"
plot kern using 1:3:($2 - $1):(0):3 with vectors nohead lw 6 lc variable
set ytics autofreq
set autoscale y
do for [i = 1:m] {
	set ylabel word(names, i)
	plot sprintf("%s.%d", ctr, i) using 1:2 with steps lw 1.5 lc i
}
unset multiplot
