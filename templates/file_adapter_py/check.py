"""Custom check of the file_adapter_py template, run by `hermit spec check` in a child process.

Called as ``check(adapter_path)`` with the candidate's absolute path as a string. Returns a
list of issues, each ``{"path": ..., "problem": ...}`` (an empty list passes).
"""
import os
import re


def check(adapter_path: str) -> list:
    issues = []
    with open(os.path.join(adapter_path, "ADAPTER.md"), encoding="utf-8") as handle:
        context = handle.read()
    if not re.search(r"^# \S", context, re.MULTILINE):
        issues.append({"path": "ADAPTER.md", "problem": "needs a top-level '# ' heading"})
    if "count_words" not in context:
        issues.append({"path": "ADAPTER.md", "problem": "must tell the agent about the count_words tool"})
    return issues
