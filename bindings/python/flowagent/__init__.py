"""flowagent: repair failing pre-submit tests. Python bindings over the C API (ctypes, no build step).

The shared library is looked up in $FLOWAGENT_LIBRARY, then next to this package, then by the
system loader (libflowagent_c.so).
"""
from __future__ import annotations

import ctypes
import json
import os
from typing import Any, Optional

__all__ = ["FlowagentError", "Agent", "Job", "version", "validate_request"]

_lib = None


def _load():
    global _lib
    if _lib is not None:
        return _lib
    candidates = []
    if os.environ.get("FLOWAGENT_LIBRARY"):
        candidates.append(os.environ["FLOWAGENT_LIBRARY"])
    here = os.path.dirname(os.path.abspath(__file__))
    candidates += [os.path.join(here, "libflowagent_c.so"), "libflowagent_c.so.0", "libflowagent_c.so"]
    last = None
    for c in candidates:
        if os.path.sep in c and not os.path.exists(c):
            continue
        try:
            lib = ctypes.CDLL(c)
            break
        except OSError as e:  # try the next place
            last = e
    else:
        raise ImportError(f"flowagent: cannot load libflowagent_c ({last})")
    lib.fa_version_string.restype = ctypes.c_char_p
    lib.fa_error_last.restype = ctypes.c_char_p
    lib.fa_error_name.restype = ctypes.c_char_p
    lib.fa_error_name.argtypes = [ctypes.c_int]
    lib.fa_request_validate.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    lib.fa_agent_create.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]
    lib.fa_agent_free.argtypes = [ctypes.c_void_p]
    lib.fa_agent_submit.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
    lib.fa_job_wait.argtypes = [ctypes.c_void_p, ctypes.c_int64]
    lib.fa_job_cancel.argtypes = [ctypes.c_void_p]
    lib.fa_job_poll.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
    lib.fa_job_result_json.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]
    lib.fa_job_free.argtypes = [ctypes.c_void_p]
    lib.fa_string_free.argtypes = [ctypes.c_void_p]
    _lib = lib
    return lib


class FlowagentError(Exception):
    """A flowagent call failed. `code` is the negative fa_error_code, `name` its name."""

    def __init__(self, code: int, message: str):
        self.code = code
        self.name = _load().fa_error_name(code).decode()
        super().__init__(f"{self.name}: {message}")


def _check(rc: int) -> None:
    if rc != 0:
        raise FlowagentError(rc, _load().fa_error_last().decode("utf-8", "replace"))


def version() -> str:
    return _load().fa_version_string().decode()


def _encode(request: Any) -> bytes:
    if isinstance(request, (dict, list)):
        return json.dumps(request).encode("utf-8")
    if isinstance(request, str):
        return request.encode("utf-8")
    if isinstance(request, bytes):
        return request
    raise TypeError("request must be a dict, str or bytes")


def validate_request(request: Any) -> None:
    """Raises FlowagentError (FA_EJSON / FA_ESCHEMA / FA_EUNSUPPORTED) when the request is invalid."""
    data = _encode(request)
    _check(_load().fa_request_validate(data, len(data)))


class Job:
    """One submitted repair. Keeps its Agent alive."""

    def __init__(self, handle: ctypes.c_void_p, agent: "Agent"):
        self._h = handle
        self._agent = agent

    def wait(self, timeout: Optional[float] = None) -> bool:
        ms = -1 if timeout is None else int(timeout * 1000)
        rc = _load().fa_job_wait(self._h, ms)
        if rc == -6:
            return False
        _check(rc)
        return True

    def done(self) -> bool:
        d = ctypes.c_int(0)
        _check(_load().fa_job_poll(self._h, ctypes.byref(d)))
        return bool(d.value)

    def cancel(self) -> None:
        _check(_load().fa_job_cancel(self._h))

    def result(self) -> dict:
        out = ctypes.c_void_p()
        _check(_load().fa_job_result_json(ctypes.byref(out), self._h))
        try:
            return json.loads(ctypes.string_at(out).decode("utf-8"))
        finally:
            _load().fa_string_free(out)

    def close(self) -> None:
        if self._h:
            _load().fa_job_free(self._h)
            self._h = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


class Agent:
    """Runs repairs on its own threads. Use as a context manager or call close()."""

    def __init__(self) -> None:
        h = ctypes.c_void_p()
        _check(_load().fa_agent_create(ctypes.byref(h), None))
        self._h = h

    def submit(self, request: Any) -> Job:
        data = _encode(request)
        out = ctypes.c_void_p()
        _check(_load().fa_agent_submit(ctypes.byref(out), self._h, data, len(data)))
        return Job(out, self)

    def close(self) -> None:
        if self._h:
            _load().fa_agent_free(self._h)
            self._h = None

    def __enter__(self) -> "Agent":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
