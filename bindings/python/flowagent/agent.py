"""The Agent (threads running repairs) and its Jobs, with host callbacks in Python.

Every callback runs on a flowagent worker thread for one job: what it raises, and the events of a
job, belong to that job alone (routed by the job id the library reports, fa_current_job_id) and
are dropped with it.
"""
from __future__ import annotations

import ctypes
import dataclasses
import json
import queue
import threading
import time
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from . import _lib
from ._errors import CallbackError, FlowagentError, Pending
from ._lib import load, loads, raise_for, set_buffer, take_string
from .documents import Event, RepairResult, RequestLike, encode_request

# How long one blocking wait in C lasts before Python gets the chance to handle Ctrl-C.
_WAIT_SLICE_S = 0.1


@dataclasses.dataclass
class Tool:
    """An extra tool for the model. `func(arguments: dict, workspace_root: str, cancelled: Callable[[], bool])`
    returns the text the model sees, or (ok, text)."""
    name: str
    description: str
    parameters: Dict[str, Any]
    func: Callable[..., Union[str, Tuple[bool, str]]]
    mutates: bool = False


class _JobState:
    """What callbacks record for one job: its events and the exceptions they raised."""

    def __init__(self) -> None:
        self.events: "queue.Queue[Event]" = queue.Queue()
        self.errors: List[BaseException] = []
        self.lock = threading.Lock()
        self.claimed = False   # a Job object holds this state
        self.finished = False  # the job's result event was seen


class Job:
    """One submitted repair. Keeps its Agent alive. Thread-safe like the C handle."""

    def __init__(self, handle: ctypes.c_void_p, agent: "Agent", state: _JobState, job_id: int):
        """Made by Agent.submit()."""
        self._h: Optional[ctypes.c_void_p] = handle
        self._agent = agent
        self._state = state
        self.id = job_id
        self._result: Optional[RepairResult] = None

    def _reraise(self) -> None:
        with self._state.lock:
            if self._state.errors:
                raise self._state.errors.pop(0)

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Waits until the job ends (None: no limit); True when it did. Ctrl-C interrupts the wait
        (KeyboardInterrupt; the job keeps running: cancel() it). Re-raises an exception a Python
        callback raised for this job."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = _WAIT_SLICE_S if deadline is None else min(_WAIT_SLICE_S, max(0.0, deadline - time.monotonic()))
            rc = load().fa_job_wait(self._handle(), int(left * 1000))
            if rc == 0:
                break
            if rc != Pending.code:
                raise_for(rc)
            if deadline is not None and time.monotonic() >= deadline:
                return False
        self._reraise()
        return True

    def done(self) -> bool:
        """True once the job has ended."""
        d = ctypes.c_int(0)
        raise_for(load().fa_job_poll(self._handle(), ctypes.byref(d)))
        return bool(d.value)

    def cancel(self) -> None:
        """Requests cancellation; the job ends soon after (status error, reason cancelled)."""
        raise_for(load().fa_job_cancel(self._handle()))

    def result(self, timeout: Optional[float] = None) -> RepairResult:
        """Waits for and returns the result. Raises Pending when `timeout` passes first, and what a
        Python callback raised for this job."""
        if self._result is None:
            if not self.wait(timeout):
                raise Pending("the job is still running", Pending.code)
            out = ctypes.c_void_p()
            raise_for(load().fa_job_result_json(ctypes.byref(out), self._handle()))
            self._result = RepairResult.from_json(take_string(out))
        return self._result

    def events(self, timeout: Optional[float] = None) -> Iterator[Event]:
        """Yields this job's events in order until its result event; stops early when no event comes
        within `timeout` seconds (None: no limit)."""
        while True:
            try:
                ev = self._state.events.get(timeout=timeout)
            except queue.Empty:
                return
            yield ev
            if ev.kind == "result":
                return

    def _handle(self) -> ctypes.c_void_p:
        if not self._h:
            raise FlowagentError("the job was closed", -1)
        return self._h

    def close(self) -> None:
        """Frees the handle (the job itself goes on until it ends or its agent is closed)."""
        if self._h:
            load().fa_job_free(self._h)
            self._h = None
            self._agent._forget(self.id)

    def __enter__(self) -> "Job":
        """The job, closed at the end of the block."""
        return self

    def __exit__(self, *exc: Any) -> None:
        """Closes the job."""
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


class Agent:
    """Runs repairs on its own threads. Use as a context manager or call close().

    on_event: called with each Event on a worker thread. change_tracker(change_id, revision) returns
    (current_revision, submitted, abandoned). transport(request: dict) returns {"status", "headers",
    "body"} for each model HTTP call. tools: extra Tools for the model. An exception raised by any of
    them is re-raised by the Job it ran for (wait()/result()). config: a
    "flowagent.agent_config/v1" document as a dict (the "schema" member may be left out):
    workspace {root, keep_dir, pool_per_repo, init_submodules}, validator {flaky_reruns,
    accept_exit_code_evidence, accept_output_evidence, check_assertion_execution, check_fail_to_pass}, sandbox {...}, trajectory_dir, record, known_flaky_tests,
    run_baseline, embeddings {model, base_url, api_key_env, candidates (0: search the whole index), weight}
    (docs/SCHEMA.md). sandbox and trajectory_dir are shortcuts for those members."""

    def __init__(self, worker_threads: Optional[int] = None, on_event: Optional[Callable[[Event], None]] = None,
                 tools: Sequence[Tool] = (), change_tracker: Optional[Callable[[str, int], Tuple[int, bool, bool]]] = None,
                 transport: Optional[Callable[[Dict[str, Any]], Dict[str, Any]]] = None,
                 trajectory_dir: Optional[str] = None, sandbox: Optional[Dict[str, Any]] = None,
                 config: Optional[Dict[str, Any]] = None):
        """Creates the agent; raises SchemaError for a config with unknown members or wrong types."""
        lib = load()
        self._h: Optional[ctypes.c_void_p] = None
        self._on_event = on_event
        self._jobs: Dict[int, _JobState] = {}
        self._jobs_lock = threading.Lock()
        self._orphan_errors: List[BaseException] = []  # raised outside any job
        self._keep: List[Any] = []  # ctypes objects that must outlive the C agent
        opts = _lib.Options()
        opts.version = _lib.OPTIONS_VERSION
        if worker_threads is not None:
            opts.worker_threads = worker_threads
        opts.on_event = _lib.EVENT_CB(self._event_cb)
        self._keep.append(opts.on_event)
        if change_tracker is not None:
            tr = _lib.Tracker(1, _lib.TRACKER_CB(self._wrap_tracker(change_tracker)), None)
            self._keep += [tr, tr.state]
            opts.change_tracker = ctypes.pointer(tr)
        if tools:
            arr = (_lib.ToolStruct * len(tools))()
            for i, t in enumerate(tools):
                cb = _lib.TOOL_CB(self._wrap_tool(t))
                name, desc, params = t.name.encode(), t.description.encode(), json.dumps(t.parameters).encode()
                self._keep += [cb, name, desc, params]
                arr[i] = _lib.ToolStruct(_lib.TOOL_VERSION, name, desc, params, 1 if t.mutates else 0, cb, None,
                                         len(params))
            self._keep.append(arr)
            opts.tools = arr
            opts.tool_count = len(tools)
        if transport is not None:
            tp = _lib.Transport(1, _lib.SEND_CB(self._wrap_transport(transport)), None)
            self._keep += [tp, tp.send]
            opts.transport = ctypes.pointer(tp)
        doc: Dict[str, Any] = {"schema": "flowagent.agent_config/v1", **(config or {})}
        if trajectory_dir is not None:
            doc["trajectory_dir"] = trajectory_dir
        if sandbox is not None:
            doc["sandbox"] = sandbox
        if len(doc) > 1:
            cj = json.dumps(doc).encode()
            self._keep.append(cj)
            opts.config_json = cj
            opts.config_json_len = len(cj)
        self._keep.append(opts)
        h = ctypes.c_void_p()
        raise_for(lib.fa_agent_create(ctypes.byref(h), ctypes.byref(opts)))
        self._h = h

    # ---- per-job state -------------------------------------------------------------------------

    def _state(self, job_id: int) -> _JobState:
        with self._jobs_lock:
            return self._jobs.setdefault(job_id, _JobState())

    def _release_if_done(self, job_id: int, st: _JobState) -> None:
        # The agent's table forgets a job once a Job object holds its state and its last event came.
        with self._jobs_lock:
            if st.claimed and st.finished and self._jobs.get(job_id) is st:
                del self._jobs[job_id]

    def _forget(self, job_id: int) -> None:
        with self._jobs_lock:
            self._jobs.pop(job_id, None)

    def _remember(self, e: BaseException) -> None:
        """Keeps what a callback raised for the job it ran for (never let it cross into C)."""
        job_id = load().fa_current_job_id()
        if not job_id:
            self._orphan_errors.append(e)
            return
        st = self._state(job_id)
        with st.lock:
            st.errors.append(e)

    # ---- callbacks ----------------------------------------------------------------------------

    def _event_cb(self, text: bytes, _payload: Any) -> int:
        try:
            ev = Event.from_dict(loads(text, "event"))
            st = self._state(ev.job_id)
            st.events.put(ev)
            if ev.kind == "result":
                st.finished = True
                self._release_if_done(ev.job_id, st)
            if self._on_event is not None:
                self._on_event(ev)
            return 0
        except BaseException as e:  # noqa: BLE001 - re-raised by the job's wait()
            self._remember(e)
            return CallbackError.code

    def _wrap_tracker(self, fn: Callable[[str, int], Tuple[int, bool, bool]]) -> Callable[..., int]:
        def cb(change_id: bytes, revision: int, current: Any, submitted: Any, abandoned: Any, _payload: Any) -> int:
            try:
                cur, sub, ab = fn(change_id.decode(), revision)
                current[0], submitted[0], abandoned[0] = int(cur), int(bool(sub)), int(bool(ab))
                return 0
            except BaseException as e:  # noqa: BLE001
                self._remember(e)
                return CallbackError.code
        return cb

    def _wrap_tool(self, tool: Tool) -> Callable[..., int]:
        lib = load()

        def cb(args: bytes, root: bytes, ctx: Any, out: Any, _payload: Any) -> int:
            try:
                res = tool.func(loads(args, f"arguments of {tool.name}"), root.decode(),
                                lambda: bool(lib.fa_tool_context_cancelled(ctx)))
                ok, text = (res if isinstance(res, tuple) else (True, res))
                set_buffer(out, str(text))
                return 0 if ok else 1
            except BaseException as e:  # noqa: BLE001
                self._remember(e)
                set_buffer(out, f"{type(e).__name__}: {e}")
                return CallbackError.code
        return cb

    def _wrap_transport(self, fn: Callable[[Dict[str, Any]], Dict[str, Any]]) -> Callable[..., int]:
        def cb(request: bytes, out: Any, _payload: Any) -> int:
            try:
                resp = fn(loads(request, "transport request"))
                set_buffer(out, json.dumps({"status": int(resp.get("status", 200)),
                                            "headers": [list(h) for h in resp.get("headers", [])],
                                            "body": resp.get("body", "")}))
                return 0
            except BaseException as e:  # noqa: BLE001
                self._remember(e)
                return CallbackError.code
        return cb

    # ---- the API ------------------------------------------------------------------------------

    def submit(self, request: RequestLike) -> Job:
        """Queues a repair and returns its Job. Raises InvalidJson, SchemaError or Unsupported for a
        request the library refuses."""
        if not self._h:
            raise FlowagentError("the agent was closed", -1)
        data = encode_request(request)
        out = ctypes.c_void_p()
        raise_for(load().fa_agent_submit(ctypes.byref(out), self._h, data, len(data)))
        job_id = int(load().fa_job_id(out))
        st = self._state(job_id)
        st.claimed = True
        self._release_if_done(job_id, st)
        return Job(out, self, st, job_id)

    def run(self, request: RequestLike, timeout: Optional[float] = None) -> RepairResult:
        """submit() and wait for the result."""
        with self.submit(request) as job:
            return job.result(timeout)

    def close(self) -> None:
        """Cancels every job, waits for them to end and frees the agent. Raises what a callback raised
        outside any job."""
        if getattr(self, "_h", None):
            load().fa_agent_free(self._h)
            self._h = None
        if self._orphan_errors:
            raise self._orphan_errors.pop(0)

    def __enter__(self) -> "Agent":
        """The agent, closed at the end of the block."""
        return self

    def __exit__(self, *exc: Any) -> None:
        """Closes the agent."""
        self.close()

    def __del__(self) -> None:
        try:
            if getattr(self, "_h", None):
                load().fa_agent_free(self._h)
                self._h = None
        except Exception:
            pass
