# Host time of a call is not device time. Each host call
# paired (by co_id) with the device work it caused.
mct-cat "$TRACE" | mct-flow -q | mct-group --by launch.name -a count,sum:launch.dur,total -o table
