# Device busy % over time, binned (busy = union of device intervals).
# data: bin_center_s busy_pct
set terminal pngcairo size 1200,400 font ",10"
set output out
set title "Device busy over time"
set xlabel "time since the trace origin (s)"
set ylabel "busy (%)"
set yrange [0:105]
set datafile separator "\t"
set style fill solid 0.6
set grid
plot data using 1:2 with boxes notitle
