#!/usr/bin/python3
"""paired.py NAME REQUESTS GOAL [GOAL_US] < rounds: the ratios of paired runs, with a bootstrap confidence interval.

Each input line is "ROUND SIDE WALL_US CPU_US" (SIDE: base or gated), one run of REQUESTS requests. A
round's two runs ran back to back, so the machine's slow drift (other tenants, frequency) hits both
alike: the ratio gated/base of each round is one sample, and the median of those samples is the figure.
The 95 % interval is the 2.5th-97.5th percentile of the median over 2000 resamples of the rounds (a
seeded generator: the same input prints the same interval). GOAL (a ratio, 0 for none) is met when the
interval's upper end is at most GOAL, missed when its lower end is above it, undecided otherwise. GOAL_US (a
number of microseconds, optional): the same verdict on the wall time the gated side adds per request (the
median of the rounds' differences, gated minus base, and its interval).
"""
import random
import statistics
import sys


def interval(samples, rounds=2000):
    """The bootstrap 95 % interval of the median of samples."""
    rng = random.Random(12)
    medians = sorted(statistics.median(rng.choices(samples, k=len(samples))) for _ in range(rounds))
    return medians[rounds // 40], medians[rounds - 1 - rounds // 40]


def main():
    name, requests, goal = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    goal_us = float(sys.argv[4]) if len(sys.argv) > 4 else 0
    runs = {}
    for line in sys.stdin:
        f = line.split()
        if len(f) == 4 and f[1] in ("base", "gated"):
            runs.setdefault(f[0], {})[f[1]] = (int(f[2]) / requests, int(f[3]) / requests)
    pairs = [r for r in runs.values() if len(r) == 2]
    if len(pairs) < 5:
        print("%-20s too few complete rounds (%d)" % (name, len(pairs)))
        return 1
    out = []
    for i, what in ((0, "wall"), (1, "host cpu")):
        base = statistics.median(p["base"][i] for p in pairs)
        gated = statistics.median(p["gated"][i] for p in pairs)
        ratios = [p["gated"][i] / p["base"][i] for p in pairs]
        lo, hi = interval(ratios)
        out.append("%s %.1f -> %.1f us/req, paired ratio %.3f (95 %% CI %.3f-%.3f)" %
                   (what, base, gated, statistics.median(ratios), lo, hi))
        if i == 0 and goal > 0:
            verdict = "met" if hi <= goal else "missed" if lo > goal else "undecided"
    print("%-20s %s" % (name, out[0]))
    print("%-20s %s" % ("", out[1]))
    if goal > 0:
        print("%-20s goal wall <= %.2fx over %d rounds: %s" % ("", goal, len(pairs), verdict))
    if goal_us > 0:
        added = [p["gated"][0] - p["base"][0] for p in pairs]
        lo, hi = interval(added)
        verdict = "met" if hi <= goal_us else "missed" if lo > goal_us else "undecided"
        print("%-20s wall added %+.1f us/req (95 %% CI %+.1f-%+.1f), goal <= +%.0f us: %s" %
              ("", statistics.median(added), lo, hi, goal_us, verdict))
    return 0


if __name__ == "__main__":
    sys.exit(main())
