# Device time by category (bars).  data: category total_s
set terminal pngcairo size 1000,500 font ",10"
set output out
set title "Device time by category"
set ylabel "device time (s)"
set datafile separator "\t"
set style fill solid 0.8
set boxwidth 0.7
set xtics rotate by -30 font ",8" noenhanced
set bmargin 8
set grid y
set yrange [0:*]
plot data using 0:2:xtic(1) with boxes notitle
