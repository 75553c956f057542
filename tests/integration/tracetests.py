#!/usr/bin/env python3
"""Tests of GASNET_TRACEFILE / GASNET_TRACEMASK and GASNET_STATSFILE /
GASNET_STATSMASK, each a CTest case: tracecheck (a 2-rank job with a known
list of operations) runs through gasnetrun, and the files it leaves are
checked line by line against that list.

usage: tracetests.py --bin-dir DIR CASE
"""
import os
import re
import subprocess
import sys
import tempfile

from jobtests import Failure, check, run_case

ARGS = None
LETTERS = "GPRSWBLAXIOCDNHU"

# What tracecheck does, per rank, in order: (KIND, peer, bytes, fields).
RANK0 = [
    ("PUT", "1", 64, {"api": "gasnet_put"}),
    ("PUT", "1", 64, {"api": "gasnet_put"}),
    ("PUT", "1", 64, {"api": "gasnet_put"}),
    ("GET", "1", 128, {"api": "gasnet_get"}),
    ("PUT_NBI", "1", 32, {"api": "gasnet_put_nbi"}),
    ("SYNC_WAIT", "-", 0, {"api": "gex_NBI_Wait"}),
    ("PUT", "0", 16, {"api": "gasnet_put"}),
    ("AMREQ_SHORT", "1", 0, {"api": "gasnet_AMRequestShort", "handler": "200", "nargs": "1"}),
    ("AMREQ_MEDIUM", "1", 100, {"api": "gasnet_AMRequestMedium", "handler": "201",
                                "nargs": "0"}),
]
RANK1 = [
    ("AMREQ_SHORT_HANDLER", "0", 0, {"handler": "200", "nargs": "1"}),
    ("AMREQ_MEDIUM_HANDLER", "0", 100, {"handler": "201", "nargs": "0"}),
]
BARRIER = [
    ("BARRIER_NOTIFY", "-", 0, {"api": "gasnet_barrier_notify", "id": "7", "flags": "0"}),
    ("BARRIER_WAIT", "-", 0, {"api": "gasnet_barrier_wait", "id": "7", "flags": "0",
                              "result": "ok"}),
]
EXPECTED = {0: RANK0 + BARRIER, 1: RANK1 + BARRIER}
CATEGORY = {"PUT": "P", "PUT_NBI": "P", "GET": "G", "SYNC_WAIT": "S", "BARRIER_NOTIFY": "B",
            "BARRIER_WAIT": "B", "AMPOLL": "X"}
TIMED = {"PUT", "GET", "BARRIER_WAIT", "SYNC_WAIT"}


def category(kind):
    return CATEGORY.get(kind, "A")


def expected(rank, mask, local=True):
    lines = [e for e in EXPECTED[rank] if category(e[0]) in mask]
    if not local:
        lines = [e for e in lines if not (e[0].startswith("PUT") and e[1] == str(rank))]
    return lines


def run(env, args=(), code=0):
    """Runs tracecheck on 2 ranks; returns (stdout, stderr)."""
    full = dict(os.environ)
    for name in list(full):
        if name.startswith(("GASNET_TRACE", "GASNET_STATS")):
            del full[name]
    full.update(env)
    argv = [os.path.join(ARGS.bin_dir, "gasnetrun"), "-n", "2",
            os.path.join(ARGS.bin_dir, "tests", "integration", "tracecheck")] + list(args)
    p = subprocess.run(argv, env=full, capture_output=True, text=True, timeout=90,
                       stdin=subprocess.DEVNULL)
    show = "\n--- exit %d\n--- stdout:\n%s--- stderr:\n%s" % (p.returncode, p.stdout, p.stderr)
    check(p.returncode == code, "exit %d, expected %d%s" % (p.returncode, code, show))
    if code == 0:
        for r in (0, 1):
            check("tracecheck rank %d: PASS" % r in p.stdout, "rank %d did not pass%s" % (r, show))
    return p.stdout, p.stderr


def split_headers(text, what, rank, var, mask):
    """The lines of a file without its headers, after checking them: one
    '# gexx <what>: rank R ...' line for `rank`, and '# <var>=<letters>' lines."""
    ours = [l for l in text.splitlines() if l.startswith("# gexx %s: rank %d " % (what, rank))]
    check(len(ours) == 1, "expected one %s header of rank %d, got %s:\n%s" % (what, rank, ours,
                                                                           text))
    check(re.fullmatch(r"# gexx %s: rank %d of 2 on \S+, pid \d+: \S*tracecheck.*" % (what, rank),
                       ours[0]), "header %r" % ours[0])
    masks = [l for l in text.splitlines() if l.startswith("# %s=" % var)]
    letters = "".join(c for c in LETTERS if c in mask)
    check(masks and all(l == "# %s=%s" % (var, letters) for l in masks),
          "mask headers %s, expected %s" % (masks, letters))
    return [l for l in text.splitlines() if not l.startswith("#")]


def parse_trace(text, rank, mask):
    """(time, KIND, peer, bytes, fields, source) of rank's lines."""
    ops = []
    for line in split_headers(text, "trace", rank, "GASNET_TRACEMASK", mask.replace("U", "")):
        m = re.fullmatch(r"(\d+\.\d{6}) (\d+) ([A-Z_]+) peer=(\S+) bytes=(\d+)((?: \w+=\S+)*)"
                         r"( \[\S+:\d+\])?", line)
        check(m, "rank %d: malformed trace line %r" % (rank, line))
        if int(m.group(2)) != rank:
            continue
        fields = dict(f.split("=", 1) for f in m.group(6).split())
        ops.append((float(m.group(1)), m.group(3), m.group(4), int(m.group(5)), fields,
                    m.group(7)))
    return ops


def check_trace(text, rank, mask, local=True, where="trace"):
    ops = [o for o in parse_trace(text, rank, mask)
           if o[1] != "AMPOLL"]  # how often rank 1 polls is not known
    got = [(o[1], o[2], o[3]) for o in ops]
    want = [(e[0], e[1], e[2]) for e in expected(rank, mask, local)]
    check(got == want, "%s of rank %d (mask %s):\n got  %s\n want %s" % (where, rank, mask, got,
                                                                          want))
    for (t, kind, _, _, fields, source), e in zip(ops, expected(rank, mask, local)):
        detail = {k: v for k, v in fields.items() if k not in ("remote", "local", "args")}
        check(detail == e[3], "%s of rank %d, %s: fields %s, expected %s" % (
            where, rank, kind, detail, e[3]))
        check(("remote" in fields) == ("D" in mask and kind in ("PUT", "PUT_NBI", "GET")),
              "%s: %s has remote= iff D is in the mask: %s" % (where, kind, fields))
        check(0 <= t < 60, "%s: time %s is not seconds since start" % (where, t))
        check(source is None, "%s: a source line without GASNETT_TRACE_SETSOURCELINE" % where)
    return ops


def tmpdir():
    return tempfile.TemporaryDirectory(prefix="gexx-trace-")


def read(path):
    with open(path) as f:
        return f.read()


# ---- cases -------------------------------------------------------------

def case_lines():
    """Every rank's file holds exactly its operations, in order."""
    with tmpdir() as d:
        mask = "GPSAB"
        run({"GASNET_TRACEFILE": d + "/trace.%", "GASNET_TRACEMASK": mask})
        check(sorted(os.listdir(d)) == ["trace.0", "trace.1"], "files: %s" % os.listdir(d))
        for r in (0, 1):
            ops = check_trace(read("%s/trace.%d" % (d, r)), r, mask)
            times = [o[0] for o in ops]
            check(times == sorted(times), "rank %d: times go backwards: %s" % (r, times))


def case_default_mask():
    """Unset, GASNET_TRACEMASK is every category."""
    with tmpdir() as d:
        run({"GASNET_TRACEFILE": d + "/t%.txt"})
        for r in (0, 1):
            check_trace(read("%s/t%d.txt" % (d, r)), r, LETTERS)


def case_masks():
    """Only the selected categories appear."""
    for mask in ("G", "P", "B", "A", "S", "PG", "X", ""):
        with tmpdir() as d:
            run({"GASNET_TRACEFILE": d + "/trace.%", "GASNET_TRACEMASK": mask})
            for r in (0, 1):
                text = read("%s/trace.%d" % (d, r))
                check_trace(text, r, mask)
                if "X" not in mask:
                    check("AMPOLL" not in text, "mask %r traced AMPoll:\n%s" % (mask, text))


def case_detail():
    """D adds addresses to puts and gets and the arguments to AMs."""
    with tmpdir() as d:
        run({"GASNET_TRACEFILE": d + "/trace.%", "GASNET_TRACEMASK": "PGAD"})
        ops0 = check_trace(read(d + "/trace.0"), 0, "PGAD")
        ops1 = check_trace(read(d + "/trace.1"), 1, "PGAD")
        for o in ops0:
            if o[1] in ("PUT", "GET", "PUT_NBI"):
                check(re.fullmatch(r"0x[0-9a-f]+", o[4]["remote"]), "remote= %s" % o[4])
        short = [o for o in ops0 + ops1 if o[1].startswith("AMREQ_SHORT")]
        check([o[4].get("args") for o in short] == ["0x2a", "0x2a"], "Short args: %s" % short)
        medium = [o for o in ops0 + ops1 if o[1].startswith("AMREQ_MEDIUM")]
        check([o[4].get("args") for o in medium] == [None, None], "Medium args: %s" % medium)


def case_stderr():
    """'-' is standard error: both ranks' lines arrive there whole."""
    _, err = run({"GASNET_TRACEFILE": "-", "GASNET_TRACEMASK": "PB"})
    for r in (0, 1):
        check_trace(err, r, "PB", where="stderr")


def case_shared():
    """A name without '%' is one file for the job: rank 0 truncates it, both append."""
    with tmpdir() as d:
        path = d + "/trace.txt"
        with open(path, "w") as f:
            f.write("stale line from an earlier run\n")
        run({"GASNET_TRACEFILE": path, "GASNET_TRACEMASK": "GPSAB", "GASNET_TRACEFLUSH": "1"})
        text = read(path)
        check("stale" not in text, "the shared file was not truncated:\n" + text)
        check(os.listdir(d) == ["trace.txt"], "files: %s" % os.listdir(d))
        for r in (0, 1):
            check_trace(text, r, "GPSAB", where="shared file")


def case_local():
    """GASNET_TRACELOCAL=0 leaves out the loopback put; the statistics still count it."""
    with tmpdir() as d:
        run({"GASNET_TRACEFILE": d + "/trace.%", "GASNET_TRACEMASK": "P",
             "GASNET_TRACELOCAL": "0", "GASNET_STATSFILE": d + "/stats.%"})
        check_trace(read(d + "/trace.0"), 0, "P", local=False)
        stats = parse_stats(read(d + "/stats.0"), 0, LETTERS)
        check(stats["PUT"]["count"] == 4, "PUT counted %s" % stats["PUT"])


def parse_stats(text, rank, mask):
    stats = {}
    for line in split_headers(text, "statistics", rank, "GASNET_STATSMASK", mask):
        m = re.fullmatch(r"(\d+) ([A-Z_]+) count=(\d+) bytes=(\d+) min=(\d+) avg=(\d+\.\d) "
                         r"max=(\d+)( us_min=(\d+\.\d{3}) us_avg=(\d+\.\d{3}) us_max=(\d+\.\d{3}))?",
                         line)
        check(m, "malformed statistics line %r" % line)
        if int(m.group(1)) != rank:
            continue
        kind = m.group(2)
        s = {k: int(m.group(i)) for i, k in enumerate(("count", "bytes", "min"), 3)}
        s["avg"], s["max"] = float(m.group(6)), int(m.group(7))
        check((m.group(8) is not None) == (kind in TIMED), "%s: latency iff timed: %r" % (
            kind, line))
        if m.group(8):
            lo, avg, hi = (float(m.group(i)) for i in (9, 10, 11))
            check(0 <= lo <= avg <= hi, "%s: latency out of order: %r" % (kind, line))
        stats[kind] = s
    return stats


def expected_stats(rank, mask):
    want = {}
    for kind, _, nbytes, _ in EXPECTED[rank]:
        if category(kind) not in mask:
            continue
        s = want.setdefault(kind, {"count": 0, "bytes": 0, "min": nbytes, "max": nbytes})
        s["count"] += 1
        s["bytes"] += nbytes
        s["min"], s["max"] = min(s["min"], nbytes), max(s["max"], nbytes)
    for s in want.values():
        s["avg"] = round(s["bytes"] / s["count"], 1)
    return want


def check_stats(text, rank, mask):
    stats = parse_stats(text, rank, mask)
    stats.pop("AMPOLL", None)
    want = expected_stats(rank, mask)
    check(stats == want, "statistics of rank %d (mask %s):\n got  %s\n want %s" % (
        rank, mask, stats, want))


def case_stats():
    """Counts, bytes and sizes per kind, exactly; latency for the blocking kinds."""
    with tmpdir() as d:
        run({"GASNET_STATSFILE": d + "/stats.%"})
        check(sorted(os.listdir(d)) == ["stats.0", "stats.1"], "files: %s" % os.listdir(d))
        for r in (0, 1):
            check_stats(read("%s/stats.%d" % (d, r)), r, LETTERS)
        # PUT on rank 0: 3 x 64 B to rank 1 and 16 B to itself.
        check("0 PUT count=4 bytes=208 min=16 avg=52.0 max=64 us_min=" in read(d + "/stats.0"),
              read(d + "/stats.0"))


def case_stats_mask():
    with tmpdir() as d:
        run({"GASNET_STATSFILE": d + "/stats.%", "GASNET_STATSMASK": "PB"})
        for r in (0, 1):
            check_stats(read("%s/stats.%d" % (d, r)), r, "PB")


def case_stats_exit():
    """gasnet_exit prints the statistics too, and a shared name gets both ranks."""
    with tmpdir() as d:
        run({"GASNET_STATSFILE": d + "/stats"}, args=["exit"])
        for r in (0, 1):
            check_stats(read(d + "/stats"), r, LETTERS)


def case_off():
    """With no variable set nothing is written, in the folder or on stderr."""
    with tmpdir() as d:
        p = subprocess.run(
            [os.path.join(ARGS.bin_dir, "gasnetrun"), "-n", "2",
             os.path.join(ARGS.bin_dir, "tests", "integration", "tracecheck")],
            cwd=d, capture_output=True, text=True, timeout=90,
            env={k: v for k, v in os.environ.items()
                 if not k.startswith(("GASNET_TRACE", "GASNET_STATS"))})
        check(p.returncode == 0, "exit %d:\n%s" % (p.returncode, p.stderr))
        check(os.listdir(d) == [], "files appeared: %s" % os.listdir(d))
        check("gexx trace" not in p.stderr and "PUT" not in p.stderr, p.stderr)


def case_bad_mask():
    for var in ("GASNET_TRACEMASK", "GASNET_STATSMASK"):
        with tmpdir() as d:
            _, err = run({"GASNET_TRACEFILE": d + "/t.%", "GASNET_STATSFILE": d + "/s.%",
                          var: "GQ"}, code=1)
            want = (r"fatal error: %s='GQ' is not valid: 'Q' is not a category; use letters "
                    r"from GPRSWBLAXIOCDNHU \(G gets, .*\), or unset %s" % (var, var))
            check(re.search(want, err), "stderr lacks %r:\n%s" % (want, err))


def case_bad_file():
    for var in ("GASNET_TRACEFILE", "GASNET_STATSFILE"):
        _, err = run({var: "/nonexistent-gexx/dir/out.%"}, code=1)
        want = (r"fatal error: %s='/nonexistent-gexx/dir/out.%%': cannot write "
                r"'/nonexistent-gexx/dir/out.[01]' \(No such file or directory\); name a file "
                r"in a folder you can write to \('%%' in the name becomes the rank\), '-' for "
                r"standard error, or unset %s" % (var, var))
        check(re.search(want, err), "stderr lacks %r:\n%s" % (want, err))


def case_user():
    """The tools API's GASNETT_TRACE_PRINTF lines (with the source line the client set) and
    GASNETT_STATS_INIT's callback land in the job's files."""
    with tmpdir() as d:
        run({"GASNET_TRACEFILE": os.path.join(d, "trace.%"), "GASNET_TRACEMASK": "HN",
             "GASNET_STATSFILE": os.path.join(d, "stats.%"), "GASNET_STATSMASK": "P"},
            args=["user"])
        for r in (0, 1):
            lines = split_headers(read(os.path.join(d, "trace.%d" % r)), "trace", r,
                                  "GASNET_TRACEMASK", "HN")
            want = [r"hello from rank %d \[tracecheck_user\.c:%d\]" % (r, 100 + r),
                    r"mask %s \[tracecheck_user\.c:%d\]" % (
                        "".join(c for c in LETTERS if c in "HN"), 100 + r)]
            check(len(lines) == len(want), "rank %d: trace lines %s" % (r, lines))
            for line, w in zip(lines, want):
                check(re.fullmatch(r"\d+\.\d{6} %d USER %s" % (r, w), line),
                      "rank %d: %r does not match %r" % (r, line, w))
            stats = split_headers(read(os.path.join(d, "stats.%d" % r)), "statistics", r,
                                  "GASNET_STATSMASK", "P")
            check(stats and stats[0] == "%d USER callback of rank %d" % (r, r),
                  "rank %d: statistics start %s, expected the callback's line first" % (r, stats))


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    def take_args(args):
        global ARGS
        ARGS = args
    return run_case(CASES, take_args)


if __name__ == "__main__":
    sys.exit(main())
