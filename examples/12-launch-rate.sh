# awk recipe: kernel launches per second of trace time (first 10 seconds).
mct-cat "$TRACE" | mct-filter --name 'mc*LaunchKernel' -o tsv --no-header -F rel |
    awk '{ n[int($1 / 1e9)]++ } END { for (s = 0; s < 10; s++) printf "%d\t%d\n", s, n[s] }'
