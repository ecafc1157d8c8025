"""flowagent: repair failing pre-submit tests. Python bindings over the C API (ctypes, no build step).

The shared library is looked up in $FLOWAGENT_LIBRARY, then next to this package, then by the
system loader (libflowagent_c.so.0).

    import flowagent
    with flowagent.Agent() as agent:
        job = agent.submit(request)          # dict, JSON text or RepairRequest
        for event in job.events():           # or Agent(on_event=callback)
            print(event.phase, event.message)
        result = job.result()                # RepairResult; raises what this job's callbacks raised

Modules: documents (request/result/event types), agent (Agent, Job, Tool), delivery (publish,
apply, integrity_check, validate_request), _errors (exceptions), _lib (the C library).
"""
from __future__ import annotations

from ._errors import (BudgetExceeded, CallbackError, Cancelled, Conflict, FlowagentError, InternalError,
                      InvalidArgument, InvalidJson, IoError, ModelError, NotFixed, NotFound, Pending, ProcessError,
                      ProtocolError, Reentrant, SandboxError, SandboxUnavailable, SchemaError, Timeout, ToolFailed,
                      Unsupported)
from ._lib import load as _load
from .agent import Agent, Job, Tool
from .delivery import FileVersions, Finding, apply, integrity_check, publish, validate_request
from .documents import (Candidates, Change, Commands, Event, Failure, Limits, Model, RepairRequest,
                        RepairResult)

__all__ = [
    "FlowagentError", "InvalidArgument", "InvalidJson", "SchemaError", "IoError", "ProcessError", "Timeout",
    "Cancelled", "BudgetExceeded", "NotFound", "SandboxError", "ToolFailed", "ModelError", "ProtocolError",
    "Unsupported", "Conflict", "InternalError", "CallbackError", "SandboxUnavailable", "NotFixed", "Pending",
    "Reentrant",
    "Agent", "Job", "Tool", "Event", "RepairRequest", "RepairResult", "Change", "Failure", "Commands", "Limits",
    "Model", "Candidates", "FileVersions", "Finding", "version", "validate_request", "publish", "apply", "integrity_check",
]


def version() -> str:
    """The version of the loaded C library ("0.1.0")."""
    return _load().fa_version_string().decode()
