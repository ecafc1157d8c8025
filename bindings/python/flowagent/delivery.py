"""Delivering a fix (publish, apply) and the deterministic test-integrity check."""
from __future__ import annotations

import ctypes
import dataclasses
import json
from typing import Any, Dict, List, Optional, Sequence

from ._lib import load, loads, raise_for, take_string
from .documents import RequestLike, ResultLike, encode_request, encode_result


def validate_request(request: RequestLike) -> None:
    """Checks a request without running anything. Raises InvalidJson, SchemaError or Unsupported
    (the message names the field) when it is invalid."""
    data = encode_request(request)
    raise_for(load().fa_request_validate(data, len(data)))


def publish(result: ResultLike, format: str, change_diff: Optional[str] = None, uri_base: Optional[str] = None,
            lsp_utf8: Optional[bool] = None) -> str:
    """The fix as diff, sarif, gerrit, github, gitlab, rdjsonl or lsp (docs/DELIVERY.md). github and gitlab
    need `change_diff` (base..head of the change); lsp needs `uri_base` (the repository's absolute path or
    file:// URI). Raises NotFixed for a result that is not fixed, SandboxError for a patch that is not
    regular text files inside the tree, InvalidArgument for an unknown format or a missing uri_base."""
    data = encode_result(result)
    opts: Dict[str, Any] = {}
    if change_diff is not None:
        opts["change_diff"] = change_diff
    if uri_base is not None:
        opts["uri_base"] = uri_base
    if lsp_utf8 is not None:
        opts["lsp_utf8"] = lsp_utf8
    text = json.dumps(opts).encode()
    out = ctypes.c_void_p()
    raise_for(load().fa_result_publish(ctypes.byref(out), data, len(data), format.encode(), text, len(text)))
    return take_string(out)


def apply(repo: str, result: ResultLike) -> Dict[str, Any]:
    """Applies the fix to the working tree of `repo` and returns {"three_way", "files", "message"}.
    Raises Conflict (and writes nothing) on a conflict, NotFixed for a result that is not fixed,
    SandboxError for a patch that may not be delivered."""
    data = encode_result(result)
    out = ctypes.c_void_p()
    raise_for(load().fa_result_apply(ctypes.byref(out), repo.encode(), data, len(data)))
    return loads(take_string(out), "apply report")


@dataclasses.dataclass
class Finding:
    """One way a candidate patch cheats on the tests (docs/INTEGRITY.md)."""
    rule: str
    path: str
    line: int
    message: str


@dataclasses.dataclass
class FileVersions:
    """A file before and after a candidate patch; None means absent (added or deleted)."""
    path: str
    before: Optional[str]
    after: Optional[str]


def integrity_check(files: Sequence[FileVersions], failing_tests: Optional[Sequence[str]] = None, *,
                    repo: Optional[str] = None, head: Optional[str] = None, base: Optional[str] = None) -> List[Finding]:
    """Checks a candidate patch for test cheating, deterministically (fa_integrity_check). An empty list
    means no cheating was found. `failing_tests` are the request's failing tests (skips on them are
    never honest). With `repo` (a git repository, only read) the guard reads the project at `head`
    (default HEAD) as a repair's post-filter does: it follows the tests' imports to their helper
    modules, and with `base` it knows the change base..head (names it defines are code under test).
    Raises NotFound when `repo` is not a repository or a revision names no commit."""
    doc = json.dumps([{"path": f.path, "before": f.before, "after": f.after} for f in files]).encode()
    options = {}
    if failing_tests is not None:
        options["failing_tests"] = list(failing_tests)
    for key, value in (("repo", repo), ("head", head), ("base", base)):
        if value is not None:
            options[key] = str(value)
    opts = json.dumps(options).encode() if options else None
    out = ctypes.c_void_p()
    raise_for(load().fa_integrity_check(ctypes.byref(out), doc, len(doc), opts, len(opts) if opts else 0))
    return [Finding(f["rule"], f["path"], int(f["line"]), f["message"]) for f in loads(take_string(out), "findings")]
