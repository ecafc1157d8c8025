"""Loading libflowagent_c and calling it: signatures, option structs, strings and errors."""
from __future__ import annotations

import ctypes
import json
import os
import threading
from typing import Any, Optional

from ._errors import ERRORS, FlowagentError, InvalidJson

_lib: Optional[ctypes.CDLL] = None
_lib_lock = threading.Lock()

EVENT_CB = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
TRACKER_CB = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_int64, ctypes.POINTER(ctypes.c_int64),
                              ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int), ctypes.c_void_p)
TOOL_CB = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p,
                           ctypes.c_void_p)
SEND_CB = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p)

OPTIONS_VERSION = 4  # fa_agent_options version these bindings fill


class Tracker(ctypes.Structure):
    """fa_change_tracker (version 1)."""
    _fields_ = [("version", ctypes.c_uint), ("state", TRACKER_CB), ("payload", ctypes.c_void_p)]


class ToolStruct(ctypes.Structure):
    """fa_tool (version 2: parameters_json is (pointer, length))."""
    _fields_ = [("version", ctypes.c_uint), ("name", ctypes.c_char_p), ("description", ctypes.c_char_p),
                ("parameters_json", ctypes.c_char_p), ("mutates", ctypes.c_int), ("invoke", TOOL_CB),
                ("payload", ctypes.c_void_p), ("parameters_json_len", ctypes.c_size_t)]


TOOL_VERSION = 2  # fa_tool version these bindings fill


class Transport(ctypes.Structure):
    """fa_transport (version 1)."""
    _fields_ = [("version", ctypes.c_uint), ("send", SEND_CB), ("payload", ctypes.c_void_p)]


class Options(ctypes.Structure):
    """fa_agent_options (version 4)."""
    _fields_ = [("version", ctypes.c_uint), ("worker_threads", ctypes.c_int), ("on_event", EVENT_CB),
                ("event_payload", ctypes.c_void_p), ("change_tracker", ctypes.POINTER(Tracker)),
                ("tools", ctypes.POINTER(ToolStruct)), ("tool_count", ctypes.c_size_t),
                ("transport", ctypes.POINTER(Transport)), ("trajectory_dir", ctypes.c_char_p),
                ("sandbox_json", ctypes.c_char_p), ("config_json", ctypes.c_char_p),
                ("config_json_len", ctypes.c_size_t)]


def load() -> ctypes.CDLL:
    """The C library: $FLOWAGENT_LIBRARY, then the one next to this package, then the system loader's."""
    global _lib
    with _lib_lock:
        if _lib is not None:
            return _lib
        here = os.path.dirname(os.path.abspath(__file__))
        candidates = [os.environ.get("FLOWAGENT_LIBRARY", ""), os.path.join(here, "libflowagent_c.so"),
                      "libflowagent_c.so.0", "libflowagent_c.so"]
        last: Optional[OSError] = None
        for c in candidates:
            if not c or (os.path.sep in c and not os.path.exists(c)):
                continue
            try:
                lib = ctypes.CDLL(c)
                break
            except OSError as e:  # try the next place
                last = e
        else:
            raise ImportError(f"flowagent: cannot load libflowagent_c ({last}); set FLOWAGENT_LIBRARY")
        p, cp, vp, sz, i64, u64 = ctypes.POINTER, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int64, ctypes.c_uint64
        sigs = {
            "fa_version_string": (cp, []), "fa_error_last": (cp, []), "fa_error_name": (cp, [ctypes.c_int]),
            "fa_request_validate": (ctypes.c_int, [cp, sz]),
            "fa_agent_create": (ctypes.c_int, [p(vp), p(Options)]), "fa_agent_free": (None, [vp]),
            "fa_agent_submit": (ctypes.c_int, [p(vp), vp, cp, sz]),
            "fa_job_wait": (ctypes.c_int, [vp, i64]), "fa_job_cancel": (ctypes.c_int, [vp]),
            "fa_job_poll": (ctypes.c_int, [vp, p(ctypes.c_int)]), "fa_job_result_json": (ctypes.c_int, [p(vp), vp]),
            "fa_job_free": (None, [vp]), "fa_job_id": (u64, [vp]), "fa_current_job_id": (u64, []),
            "fa_string_free": (None, [vp]),
            "fa_buffer_set": (ctypes.c_int, [vp, cp, sz]), "fa_tool_context_cancelled": (ctypes.c_int, [vp]),
            "fa_result_publish": (ctypes.c_int, [p(vp), cp, sz, cp, cp, sz]),
            "fa_result_apply": (ctypes.c_int, [p(vp), cp, cp, sz]),
            "fa_integrity_check": (ctypes.c_int, [p(vp), cp, sz, cp, sz]),
        }
        for name, (res, args) in sigs.items():
            fn = getattr(lib, name)
            fn.restype = res
            fn.argtypes = args
        _lib = lib
        return lib


def raise_for(rc: int) -> None:
    """Raises the package's exception for a non-zero return code, with the library's message."""
    if rc != 0:
        msg = load().fa_error_last().decode("utf-8", "replace")
        raise ERRORS.get(rc, FlowagentError)(msg, rc)


def take_string(ptr: ctypes.c_void_p) -> str:
    """A string the library allocated, decoded and freed."""
    try:
        return ctypes.string_at(ptr).decode("utf-8")
    finally:
        load().fa_string_free(ptr)


def set_buffer(buf: Any, text: str) -> None:
    """Fills an fa_buffer a callback received."""
    data = text.encode("utf-8", "replace")
    load().fa_buffer_set(buf, data, len(data))


def loads(text: Any, what: str) -> Any:
    """json.loads that raises InvalidJson (the package's exception), naming `what` was malformed."""
    try:
        if isinstance(text, (bytes, bytearray)):
            text = text.decode("utf-8")
        return json.loads(text)
    except (ValueError, UnicodeDecodeError) as e:
        raise InvalidJson(f"{what}: {e}") from e
