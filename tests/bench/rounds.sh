# Sourced by the overhead benches (run.sh, socket.sh): their rounds, in one place.
# paired_rounds NAME N GOAL BASE GATED [GOAL_US]: one warm-up run of each side, then ROUNDS rounds of one run of each
# side back to back, the order swapped every round (the second of two runs in a row is favoured, or not, on
# these machines). BASE and GATED are commands (run with eval) that print "wall_us cpu_us" for N requests.
# Prints tests/bench/paired.py's report of the rounds' paired ratios against GOAL (0: none), and of the wall
# time added per request against GOAL_US (microseconds; 0 or absent: none).
paired_rounds() {
    local name=$1 n=$2 goal=$3 base=$4 gated=$5 goal_us=${6:-0} i b p
    eval "$base" >/dev/null; eval "$gated" >/dev/null
    for i in $(seq 1 "$ROUNDS"); do
        if [ $((i % 2)) = 1 ]; then
            b=$(eval "$base"); p=$(eval "$gated")
        else
            p=$(eval "$gated"); b=$(eval "$base")
        fi
        [ -n "$b" ] && [ -n "$p" ] || { echo "$name: a run failed" >&2; return 1; }
        echo "$i base $b"; echo "$i gated $p"
    done | /usr/bin/python3 tests/bench/paired.py "$name" "$n" "$goal" "$goal_us"
}
