# Slice the big-shape phase into a smaller trace the viewer opens, and
# count what it holds (python3 json loads it).
mct-cat "$TRACE" | mct-filter --from 2.668s --to 6.823s | mct-cat --wrap > "$TMP/window.json"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
print(len(d["traceEvents"]), "events;", sorted(k for k in d if k != "traceEvents"))' "$TMP/window.json"
mct-cat "$TMP/window.json" | mct-filter --name kernel_kernel --where 'args.grid==[2056,32,1]' -c
