"""flowagent: repair failing pre-submit tests. Python bindings over the C API (ctypes, no build step).

The shared library is looked up in $FLOWAGENT_LIBRARY, then next to this package, then by the
system loader (libflowagent_c.so.0).

    import flowagent
    with flowagent.Agent() as agent:
        job = agent.submit(request)          # dict, JSON text or RepairRequest
        for event in job.events():           # or Agent(on_event=callback)
            print(event.phase, event.message)
        result = job.result()                # RepairResult; raises what a callback raised
"""
from __future__ import annotations

import ctypes
import dataclasses
import json
import os
import queue
import threading
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

__all__ = [
    "FlowagentError", "InvalidArgument", "InvalidJson", "SchemaError", "IoError", "ProcessError", "Timeout",
    "Cancelled", "BudgetExceeded", "NotFound", "SandboxError", "ToolFailed", "ModelError", "ProtocolError",
    "Unsupported", "Conflict", "InternalError", "CallbackError", "SandboxUnavailable",
    "NotFixed",
    "Agent", "Job", "Tool", "Event", "RepairRequest", "RepairResult", "Change", "Failure", "Commands", "Limits",
    "Model", "Candidates", "version", "validate_request", "publish", "apply",
]

# ---- errors --------------------------------------------------------------------------------------


class FlowagentError(Exception):
    """A flowagent call failed. `code` is the negative fa_error_code, `name` its name."""

    code = -16
    name = "FA_EINTERNAL"

    def __init__(self, message: str, code: Optional[int] = None):
        if code is not None:
            self.code = code
            self.name = _ERROR_NAMES.get(code, "FA_EUNKNOWN")
        super().__init__(f"{self.name}: {message}")


class InvalidArgument(FlowagentError): code, name = -1, "FA_EINVAL"
class InvalidJson(FlowagentError): code, name = -2, "FA_EJSON"
class SchemaError(FlowagentError): code, name = -3, "FA_ESCHEMA"
class IoError(FlowagentError): code, name = -4, "FA_EIO"
class ProcessError(FlowagentError): code, name = -5, "FA_EPROCESS"
class Timeout(FlowagentError): code, name = -6, "FA_ETIMEOUT"
class Cancelled(FlowagentError): code, name = -7, "FA_ECANCELLED"
class BudgetExceeded(FlowagentError): code, name = -8, "FA_EBUDGET"
class NotFound(FlowagentError): code, name = -9, "FA_ENOTFOUND"
class SandboxError(FlowagentError): code, name = -10, "FA_ESANDBOX"
class ToolFailed(FlowagentError): code, name = -11, "FA_ETOOL"
class ModelError(FlowagentError): code, name = -12, "FA_EMODEL"
class ProtocolError(FlowagentError): code, name = -13, "FA_EPROTOCOL"
class Unsupported(FlowagentError): code, name = -14, "FA_EUNSUPPORTED"
class Conflict(FlowagentError): code, name = -15, "FA_ECONFLICT"
class InternalError(FlowagentError): code, name = -16, "FA_EINTERNAL"
class CallbackError(FlowagentError): code, name = -17, "FA_EUSER"
class SandboxUnavailable(FlowagentError): code, name = -18, "FA_ESANDBOXUNAVAIL"
class NotFixed(FlowagentError): code, name = -19, "FA_ENOTFIXED"  # publish/apply of a result that is not fixed


_ERRORS = {c.code: c for c in (InvalidArgument, InvalidJson, SchemaError, IoError, ProcessError, Timeout, Cancelled,
                               BudgetExceeded, NotFound, SandboxError, ToolFailed, ModelError, ProtocolError,
                               Unsupported, Conflict, InternalError, CallbackError,
                               SandboxUnavailable, NotFixed)}
_ERROR_NAMES = {c.code: c.name for c in _ERRORS.values()}

# ---- the library -----------------------------------------------------------------------------------

_lib = None
_lib_lock = threading.Lock()

EVENT_CB = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
TRACKER_CB = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_int64, ctypes.POINTER(ctypes.c_int64),
                              ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int), ctypes.c_void_p)
TOOL_CB = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p,
                           ctypes.c_void_p)
SEND_CB = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p)


class _Tracker(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint), ("state", TRACKER_CB), ("payload", ctypes.c_void_p)]


class _Tool(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint), ("name", ctypes.c_char_p), ("description", ctypes.c_char_p),
                ("parameters_json", ctypes.c_char_p), ("mutates", ctypes.c_int), ("invoke", TOOL_CB),
                ("payload", ctypes.c_void_p)]


class _Transport(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint), ("send", SEND_CB), ("payload", ctypes.c_void_p)]


class _Options(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint), ("worker_threads", ctypes.c_int), ("on_event", EVENT_CB),
                ("event_payload", ctypes.c_void_p), ("change_tracker", ctypes.POINTER(_Tracker)),
                ("tools", ctypes.POINTER(_Tool)), ("tool_count", ctypes.c_size_t),
                ("transport", ctypes.POINTER(_Transport)), ("trajectory_dir", ctypes.c_char_p),
                ("sandbox_json", ctypes.c_char_p)]


def _load():
    global _lib
    with _lib_lock:
        if _lib is not None:
            return _lib
        here = os.path.dirname(os.path.abspath(__file__))
        candidates = [os.environ.get("FLOWAGENT_LIBRARY", ""), os.path.join(here, "libflowagent_c.so"),
                      "libflowagent_c.so.0", "libflowagent_c.so"]
        last = None
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
        p, cp, vp, sz = ctypes.POINTER, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t
        sigs = {
            "fa_version_string": (cp, []), "fa_error_last": (cp, []), "fa_error_name": (cp, [ctypes.c_int]),
            "fa_request_validate": (ctypes.c_int, [cp, sz]),
            "fa_agent_create": (ctypes.c_int, [p(vp), p(_Options)]), "fa_agent_free": (None, [vp]),
            "fa_agent_submit": (ctypes.c_int, [p(vp), vp, cp, sz]),
            "fa_job_wait": (ctypes.c_int, [vp, ctypes.c_int64]), "fa_job_cancel": (ctypes.c_int, [vp]),
            "fa_job_poll": (ctypes.c_int, [vp, p(ctypes.c_int)]), "fa_job_result_json": (ctypes.c_int, [p(vp), vp]),
            "fa_job_free": (None, [vp]), "fa_string_free": (None, [vp]),
            "fa_buffer_set": (ctypes.c_int, [vp, cp, sz]), "fa_tool_context_cancelled": (ctypes.c_int, [vp]),
            "fa_result_publish": (ctypes.c_int, [p(vp), cp, sz, cp, cp]),
            "fa_result_apply": (ctypes.c_int, [p(vp), cp, cp, sz]),
        }
        for name, (res, args) in sigs.items():
            fn = getattr(lib, name)
            fn.restype = res
            fn.argtypes = args
        _lib = lib
        return lib


def _raise_for(rc: int) -> None:
    if rc != 0:
        msg = _load().fa_error_last().decode("utf-8", "replace")
        raise _ERRORS.get(rc, FlowagentError)(msg, rc)


def _take_string(ptr: ctypes.c_void_p) -> str:
    try:
        return ctypes.string_at(ptr).decode("utf-8")
    finally:
        _load().fa_string_free(ptr)


def _set_buffer(buf, text: str) -> None:
    data = text.encode("utf-8", "replace")
    _load().fa_buffer_set(buf, data, len(data))


def version() -> str:
    return _load().fa_version_string().decode()

# ---- typed documents ---------------------------------------------------------------------------------


@dataclasses.dataclass
class Change:
    id: str
    base_commit: str
    head_commit: str
    revision: int = 1
    description: str = ""
    author: Dict[str, str] = dataclasses.field(default_factory=dict)
    files: List[Dict[str, Any]] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Failure:
    failing_tests: List[str] = dataclasses.field(default_factory=list)
    kind: str = "test"
    reports: List[str] = dataclasses.field(default_factory=list)
    logs: List[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Commands:
    test: str = ""
    build: str = ""
    wider_test: str = ""
    report_globs: List[str] = dataclasses.field(default_factory=list)
    timeout_seconds: int = 600


@dataclasses.dataclass
class Limits:
    max_tool_calls: int = 100
    max_wall_seconds: int = 1800
    max_tokens: int = 2_000_000
    max_cost_usd: float = 10.0
    max_files: int = 100
    max_changed_lines: int = 1000
    context_tokens: int = 16_000


@dataclasses.dataclass
class Model:
    spec: str = ""
    base_url: str = ""
    api_key_env: str = ""
    temperature: float = 0.1
    top_p: float = 0.95
    max_output_tokens: int = 4096


@dataclasses.dataclass
class Candidates:
    """Several candidate loops per job, sharing its budgets (docs/SCHEMA.md, "candidates")."""
    count: int = 1
    concurrency: int = 2
    early_stop: bool = False


@dataclasses.dataclass
class RepairRequest:
    """A flowagent.repair_request/v1 document."""
    repository: str
    change: Change
    failure: Failure = dataclasses.field(default_factory=Failure)
    commands: Commands = dataclasses.field(default_factory=Commands)
    limits: Limits = dataclasses.field(default_factory=Limits)
    model: Model = dataclasses.field(default_factory=Model)
    candidates: Candidates = dataclasses.field(default_factory=Candidates)

    def to_dict(self) -> Dict[str, Any]:
        d = dataclasses.asdict(self)
        d = {"schema": "flowagent.repair_request/v1", **d}
        if not d["change"]["author"]:
            del d["change"]["author"]
        return d


@dataclasses.dataclass
class RepairResult:
    """A flowagent.repair_result/v1 document; `raw` keeps everything."""
    status: str
    reason: str
    message: str
    patch: str
    summary: str
    change_id: str
    revision: int
    evidence: Dict[str, Any]
    metrics: Dict[str, Any]
    trajectory: List[Dict[str, Any]]
    raw: Dict[str, Any]

    @property
    def fixed(self) -> bool:
        return self.status == "fixed"

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "RepairResult":
        # Only a fixed result carries a patch (the library drops it from any other status too).
        patch = d.get("patch", "") if d.get("status") == "fixed" else ""
        return cls(d.get("status", ""), d.get("reason", ""), d.get("message", ""), patch,
                   d.get("summary", ""), d.get("change_id", ""), d.get("revision", 0), d.get("evidence", {}),
                   d.get("metrics", {}), d.get("trajectory", []), d)

    @property
    def candidates(self) -> List[Dict[str, Any]]:
        """One report per candidate when the job ran several (index, outcome, reason, agreement, chosen, ...)."""
        return self.raw.get("candidates", [])

    @property
    def chosen_candidate(self) -> int:
        """1-based index of the delivered candidate; 0 when none or a single one ran."""
        return self.raw.get("chosen_candidate", 0)

    def to_json(self) -> str:
        return json.dumps(self.raw)


@dataclasses.dataclass
class Event:
    kind: str
    phase: str
    message: str
    change_id: str
    revision: int
    index: int
    max: int
    tokens: int
    eta_ms: int
    elapsed_ms: int
    candidate: int = 0  # 1-based candidate of a job with several; 0: the job

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "Event":
        return cls(d.get("kind", ""), d.get("phase", ""), d.get("message", ""), d.get("change_id", ""),
                   d.get("revision", 0), d.get("index", 0), d.get("max", 0), d.get("tokens", 0),
                   d.get("eta_ms", -1), d.get("elapsed_ms", 0), d.get("candidate", 0))


def _encode(request: Any) -> bytes:
    if isinstance(request, RepairRequest):
        request = request.to_dict()
    if isinstance(request, dict):
        return json.dumps(request).encode("utf-8")
    if isinstance(request, str):
        return request.encode("utf-8")
    if isinstance(request, bytes):
        return request
    raise TypeError("request must be a RepairRequest, dict, str or bytes")


def validate_request(request: Any) -> None:
    """Raises InvalidJson, SchemaError or Unsupported (the message names the field) when invalid."""
    data = _encode(request)
    _raise_for(_load().fa_request_validate(data, len(data)))


def _result_bytes(result: Union[RepairResult, Dict[str, Any], str]) -> bytes:
    if isinstance(result, RepairResult):
        return result.to_json().encode()
    if isinstance(result, dict):
        return json.dumps(result).encode()
    return result.encode()


def publish(result: Union[RepairResult, Dict[str, Any], str], format: str, change_diff: str = "",
            uri_base: str = "", lsp_utf8: bool = False) -> str:
    """The fix as diff, sarif, gerrit, github, rdjsonl or lsp. Raises NotFixed for a result that is not
    fixed and SandboxError for a patch that is not regular text files inside the tree."""
    data = _result_bytes(result)
    opts = json.dumps({"change_diff": change_diff, "uri_base": uri_base, "lsp_utf8": lsp_utf8}).encode()
    out = ctypes.c_void_p()
    _raise_for(_load().fa_result_publish(ctypes.byref(out), data, len(data), format.encode(), opts))
    return _take_string(out)


def apply(repo: str, result: Union[RepairResult, Dict[str, Any], str]) -> Dict[str, Any]:
    """Applies the fix to the working tree of `repo`; raises Conflict (and writes nothing) on conflict,
    NotFixed for a result that is not fixed, SandboxError for a patch that may not be delivered."""
    data = _result_bytes(result)
    out = ctypes.c_void_p()
    _raise_for(_load().fa_result_apply(ctypes.byref(out), repo.encode(), data, len(data)))
    return json.loads(_take_string(out))

# ---- agent ----------------------------------------------------------------------------------------------


@dataclasses.dataclass
class Tool:
    """An extra tool for the model. `func(arguments: dict, workspace_root: str, cancelled: Callable[[], bool])`
    returns the text the model sees, or (ok, text)."""
    name: str
    description: str
    parameters: Dict[str, Any]
    func: Callable[..., Union[str, Tuple[bool, str]]]
    mutates: bool = False


class Job:
    """One submitted repair. Keeps its Agent alive. Thread-safe like the C handle."""

    def __init__(self, handle: ctypes.c_void_p, agent: "Agent"):
        self._h = handle
        self._agent = agent
        self._result: Optional[RepairResult] = None

    def wait(self, timeout: Optional[float] = None) -> bool:
        """True when done; re-raises an exception a Python callback raised during the job."""
        ms = -1 if timeout is None else int(timeout * 1000)
        rc = _load().fa_job_wait(self._h, ms)
        if rc == Timeout.code:
            return False
        _raise_for(rc)
        self._agent._reraise()
        return True

    def done(self) -> bool:
        d = ctypes.c_int(0)
        _raise_for(_load().fa_job_poll(self._h, ctypes.byref(d)))
        return bool(d.value)

    def cancel(self) -> None:
        _raise_for(_load().fa_job_cancel(self._h))

    def result(self, timeout: Optional[float] = None) -> RepairResult:
        if self._result is None:
            if not self.wait(timeout):
                raise Timeout("the job is still running", Timeout.code)
            out = ctypes.c_void_p()
            _raise_for(_load().fa_job_result_json(ctypes.byref(out), self._h))
            self._result = RepairResult.from_dict(json.loads(_take_string(out)))
        return self._result

    def events(self, timeout: Optional[float] = None) -> Iterator[Event]:
        """Yields this job's events until its result event (Agent(events=True) keeps them)."""
        yield from self._agent._events_for(self, timeout)

    def close(self) -> None:
        if self._h:
            _load().fa_job_free(self._h)
            self._h = None

    def __enter__(self) -> "Job":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


class Agent:
    """Runs repairs on its own threads. Use as a context manager or call close().

    on_event: called with each Event on a worker thread. change_tracker(change_id, revision) returns
    (current_revision, submitted, abandoned). transport(request: dict) returns {"status", "headers",
    "body"} for each model HTTP call. An exception raised by any of them is re-raised by Job.wait().
    sandbox: how build/test commands are confined (docs/SECURITY.md), e.g.
    {"allow_unsandboxed_commands": True} or {"read_only_paths": ["/opt/sdk"], "max_processes": 512}."""

    def __init__(self, worker_threads: int = 2, on_event: Optional[Callable[[Event], None]] = None,
                 tools: Sequence[Tool] = (), change_tracker: Optional[Callable[[str, int], Tuple[int, bool, bool]]] = None,
                 transport: Optional[Callable[[Dict[str, Any]], Dict[str, Any]]] = None,
                 trajectory_dir: Optional[str] = None, sandbox: Optional[Dict[str, Any]] = None):
        lib = _load()
        self._errors: List[BaseException] = []
        self._errors_lock = threading.Lock()
        self._on_event = on_event
        self._queues: Dict[Tuple[str, int], "queue.Queue[Event]"] = {}
        self._queues_lock = threading.Lock()
        self._keep: List[Any] = []  # ctypes objects that must outlive the C agent
        opts = _Options()
        opts.version = 3
        opts.worker_threads = worker_threads
        opts.on_event = EVENT_CB(self._event_cb)
        self._keep.append(opts.on_event)
        if change_tracker is not None:
            tr = _Tracker(1, TRACKER_CB(self._wrap_tracker(change_tracker)), None)
            self._keep += [tr, tr.state]
            opts.change_tracker = ctypes.pointer(tr)
        if tools:
            arr = (_Tool * len(tools))()
            for i, t in enumerate(tools):
                cb = TOOL_CB(self._wrap_tool(t))
                name, desc, params = t.name.encode(), t.description.encode(), json.dumps(t.parameters).encode()
                self._keep += [cb, name, desc, params]
                arr[i] = _Tool(1, name, desc, params, 1 if t.mutates else 0, cb, None)
            self._keep.append(arr)
            opts.tools = arr
            opts.tool_count = len(tools)
        if transport is not None:
            tp = _Transport(1, SEND_CB(self._wrap_transport(transport)), None)
            self._keep += [tp, tp.send]
            opts.transport = ctypes.pointer(tp)
        if trajectory_dir:
            td = trajectory_dir.encode()
            self._keep.append(td)
            opts.trajectory_dir = td
        if sandbox is not None:
            sj = json.dumps(sandbox).encode()
            self._keep.append(sj)
            opts.sandbox_json = sj
        self._keep.append(opts)
        h = ctypes.c_void_p()
        _raise_for(lib.fa_agent_create(ctypes.byref(h), ctypes.byref(opts)))
        self._h = h

    # callbacks: never let an exception cross into C; keep it for the caller
    def _remember(self, e: BaseException) -> None:
        with self._errors_lock:
            self._errors.append(e)

    def _reraise(self) -> None:
        with self._errors_lock:
            if self._errors:
                e = self._errors.pop(0)
                raise e

    def _event_cb(self, text: bytes, _payload) -> int:
        try:
            ev = Event.from_dict(json.loads(text.decode("utf-8")))
            with self._queues_lock:
                q = self._queues.setdefault((ev.change_id, ev.revision), queue.Queue())
            q.put(ev)
            if self._on_event is not None:
                self._on_event(ev)
            return 0
        except BaseException as e:  # noqa: BLE001 - re-raised by Job.wait()
            self._remember(e)
            return CallbackError.code

    def _wrap_tracker(self, fn):
        def cb(change_id, revision, current, submitted, abandoned, _payload):
            try:
                cur, sub, ab = fn(change_id.decode(), revision)
                current[0], submitted[0], abandoned[0] = int(cur), int(bool(sub)), int(bool(ab))
                return 0
            except BaseException as e:  # noqa: BLE001
                self._remember(e)
                return CallbackError.code
        return cb

    def _wrap_tool(self, tool: Tool):
        lib = _load()

        def cb(args, root, ctx, out, _payload):
            try:
                res = tool.func(json.loads(args.decode()), root.decode(), lambda: bool(lib.fa_tool_context_cancelled(ctx)))
                ok, text = (res if isinstance(res, tuple) else (True, res))
                _set_buffer(out, str(text))
                return 0 if ok else 1
            except BaseException as e:  # noqa: BLE001
                self._remember(e)
                _set_buffer(out, f"{type(e).__name__}: {e}")
                return CallbackError.code
        return cb

    def _wrap_transport(self, fn):
        def cb(request, out, _payload):
            try:
                resp = fn(json.loads(request.decode()))
                _set_buffer(out, json.dumps({"status": int(resp.get("status", 200)),
                                             "headers": [list(h) for h in resp.get("headers", [])],
                                             "body": resp.get("body", "")}))
                return 0
            except BaseException as e:  # noqa: BLE001
                self._remember(e)
                return CallbackError.code
        return cb

    def _events_for(self, job: Job, timeout: Optional[float]) -> Iterator[Event]:
        # The job's key is known once submitted; events are queued per (change, revision).
        key = job._key
        with self._queues_lock:
            q = self._queues.setdefault(key, queue.Queue())
        while True:
            try:
                ev = q.get(timeout=timeout)
            except queue.Empty:
                return
            yield ev
            if ev.kind == "result":
                return

    def submit(self, request: Any) -> Job:
        data = _encode(request)
        doc = json.loads(data)
        out = ctypes.c_void_p()
        _raise_for(_load().fa_agent_submit(ctypes.byref(out), self._h, data, len(data)))
        job = Job(out, self)
        job._key = (doc.get("change", {}).get("id", ""), doc.get("change", {}).get("revision", 1))
        return job

    def run(self, request: Any, timeout: Optional[float] = None) -> RepairResult:
        """submit() and wait for the result."""
        with self.submit(request) as job:
            return job.result(timeout)

    def close(self) -> None:
        if getattr(self, "_h", None):
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
