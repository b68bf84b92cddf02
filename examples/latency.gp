# Launch latency distribution (device start - launch start), log bins.
# data: latency_us
set terminal pngcairo size 1000,500 font ",10"
set output out
set title "Launch latency (device start - launch start)"
set xlabel "latency (us, log scale)"
set ylabel "pairs"
set datafile separator "\t"
set logscale x
set style fill solid 0.8
set grid y
bin(x) = x > 0 ? 10 ** (floor(log10(x) * 10) / 10.0) : 0.1
plot data using (bin($1)):(1) smooth frequency with boxes notitle
