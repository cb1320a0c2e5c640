#!/usr/bin/python3
"""footprint.py SHORT LONG REQUESTS: what one request costs, from two callgrind runs (--dump-instr=yes) of
the same client, SHORT and LONG requests (REQUESTS = LONG - SHORT): instructions per request, and the
distinct 64-byte code lines executed per request in all and in libllmgate.so. A line counts when its
instructions ran at least once per request more in LONG than in SHORT (start-up code does not). Between two
requests the kernel's network stack evicts the caches, so each such line is a cache miss every request: the
lines, more than the instructions, are what a request through the preload costs in time; and so are the
4 KiB pages of libllmgate.so's code they lie in, where a system call empties the TLB (PTI without PCID).
Prints "instructions=N lines=N ours=N pages=N" (pages: of libllmgate.so's code)."""
import sys


def load(path):
    """{(object, address): instructions} of a callgrind profile with absolute positions."""
    costs, obj, skip = {}, None, False
    with open(path) as f:
        for line in f:
            if line.startswith("ob="):
                obj = line[3:].strip().rsplit("/", 1)[-1]
            elif line.startswith("calls="):
                skip = True  # the next position line is the call's inclusive cost, not an instruction
            elif line.startswith("0x"):
                if skip:
                    skip = False
                    continue
                fields = line.split()
                key = (obj, int(fields[0], 16))
                costs[key] = costs.get(key, 0) + int(fields[-1])
    return costs


def main():
    short, long_, requests = load(sys.argv[1]), load(sys.argv[2]), int(sys.argv[3])
    instructions = (sum(long_.values()) - sum(short.values())) / requests
    lines = set()
    for key, n in long_.items():
        if n - short.get(key, 0) >= requests * 0.97:
            lines.add((key[0], key[1] >> 6))
    ours = sum(1 for obj, _ in lines if obj.startswith("libllmgate"))
    pages = len({line >> 6 for obj, line in lines if obj.startswith("libllmgate")})
    print("instructions=%.0f lines=%d ours=%d pages=%d" % (instructions, len(lines), ours, pages))


if __name__ == "__main__":
    main()
