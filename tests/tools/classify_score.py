#!/usr/bin/python3
"""Scores `llmgate classify` on fixture files (tests/fixtures/responses format): a file is right when the
outcome matches its `expect` or one of `expect.alternatives` (state, reason, retry_after_ms, retry_at, usage),
as tests/integration/test_classify_cli.sh judges it. Prints each miss, then "right/total (percent)".
Usage: classify_score.py [--cli PATH] FILE_OR_DIR...   (exit 0 always: a score, not a test)"""
import json
import os
import subprocess
import sys


def matches(exp, out):
    def ok(alt):
        get = lambda k: alt[k] if k in alt else exp.get(k)
        return all(out.get(k) == get(k) for k in ("state", "reason", "retry_after_ms", "retry_at", "usage"))
    return ok({}) or any(ok(a) for a in exp.get("alternatives", []))


def main(argv):
    cli = "build/llmgate"
    if argv[:1] == ["--cli"]:
        cli, argv = argv[1], argv[2:]
    files = []
    for a in argv:
        if os.path.isdir(a):
            files += sorted(os.path.join(a, f) for f in os.listdir(a) if f.endswith(".json"))
        else:
            files.append(a)
    right = 0
    for f in files:
        line = subprocess.run([cli, "classify", f], capture_output=True, text=True).stdout.strip()
        out = json.loads(line) if line.startswith("{") else {}
        exp = json.load(open(f))["expect"]
        if matches(exp, out):
            right += 1
        else:
            keys = ("state", "reason", "retry_after_ms", "retry_at", "usage")
            print("miss %s\n  got  %s\n  want %s" % (os.path.basename(f), {k: out.get(k) for k in keys},
                                                  {k: exp.get(k) for k in keys}))
    print("%d/%d (%.1f %%)" % (right, len(files), 100.0 * right / max(len(files), 1)))


if __name__ == "__main__":
    main(sys.argv[1:])
