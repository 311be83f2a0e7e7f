"""Whole-process timing for bench/lib.ts: Node cannot read a finished child's resource usage.

Reads one JSON request per line on stdin, {"argv": [...], "cwd": "...", "env": {...}}, runs
the command (stdin empty, its output discarded), and answers one JSON line per request:
{"wall": s, "user": s, "system": s, "maxrss_kb": n, "status": n}. Wall time is a monotonic
clock read just before the start and just after the child is reaped; user and system time
are the kernel's own accounting of the finished child and the children it waited for
(wait4's rusage, microsecond resolution).
"""
import json
import os
import subprocess
import sys
import time


def run(request):
    start = time.monotonic()
    child = subprocess.Popen(
        request["argv"],
        cwd=request.get("cwd"),
        env=request.get("env"),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - start
    child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
    return {
        "wall": wall,
        "user": usage.ru_utime,
        "system": usage.ru_stime,
        "maxrss_kb": usage.ru_maxrss,
        "status": child.returncode,
    }


for line in sys.stdin:
    try:
        answer = run(json.loads(line))
    except Exception as error:  # a command that cannot start is the caller's error to report
        answer = {"error": str(error)}
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
