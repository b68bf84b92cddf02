# Kernel duration against time, one colour for each of the eight kernels
# with the most device time: the phases of a trace at a glance.
# data: rel_s dur_ms index name label (the name cut, as plots.sh says)
set terminal pngcairo size 1200,600 font ",10"
set output out
set title "Kernels: duration against time (the top 8 kernels by device time)"
set xlabel "time since the trace origin (s)"
set ylabel "duration (ms)"
set logscale y
set key outside right top Left reverse font ",8" noautotitle noenhanced
set datafile separator "\t"
set grid
stats data using 3 nooutput
n = int(STATS_max)
label(i) = system(sprintf("awk -F'\t' '$3 == %d { print $5; exit }' '%s'", i, data))
plot data using ($3 == 0 ? $1 : NaN):2 with points pt 7 ps 0.3 lc rgb "#b0b0b0" \
    title "other kernels", \
    for [i=1:n] data using ($3 == i ? $1 : NaN):2 with points pt 7 ps 0.7 lc i \
    title label(i)
