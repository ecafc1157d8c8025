"""The exceptions of the flowagent package: one class per fa_error_code of the C API."""
from __future__ import annotations

from typing import Dict, Optional, Type


class FlowagentError(Exception):
    """A flowagent call failed. `code` is the negative fa_error_code, `name` its name."""

    code = -16
    name = "FA_EINTERNAL"

    def __init__(self, message: str, code: Optional[int] = None):
        """Builds the error from the library's message (and its code when it differs from the class's)."""
        if code is not None:
            self.code = code
            self.name = ERROR_NAMES.get(code, "FA_EUNKNOWN")
        super().__init__(f"{self.name}: {message}")


class InvalidArgument(FlowagentError):
    """An argument the library cannot use (NULL, empty, out of range)."""
    code, name = -1, "FA_EINVAL"
class InvalidJson(FlowagentError):
    """Text that is not JSON or not UTF-8 (from the library, or decoded by the bindings)."""
    code, name = -2, "FA_EJSON"
class SchemaError(FlowagentError):
    """JSON that does not match its schema; the message names the field."""
    code, name = -3, "FA_ESCHEMA"
class IoError(FlowagentError):
    """A file system or pipe failure."""
    code, name = -4, "FA_EIO"
class ProcessError(FlowagentError):
    """A child process could not start or failed unexpectedly."""
    code, name = -5, "FA_EPROCESS"
class Timeout(FlowagentError):
    """A deadline inside flowagent passed (not "the job is still running": that is Pending)."""
    code, name = -6, "FA_ETIMEOUT"
class Cancelled(FlowagentError):
    """The operation was cancelled."""
    code, name = -7, "FA_ECANCELLED"
class BudgetExceeded(FlowagentError):
    """A token, cost, tool-call or time budget is spent."""
    code, name = -8, "FA_EBUDGET"
class NotFound(FlowagentError):
    """A file, test, tool or job does not exist."""
    code, name = -9, "FA_ENOTFOUND"
class SandboxError(FlowagentError):
    """A path or action would leave the workspace, or a patch may not be delivered."""
    code, name = -10, "FA_ESANDBOX"
class ToolFailed(FlowagentError):
    """A tool ran but reported failure."""
    code, name = -11, "FA_ETOOL"
class ModelError(FlowagentError):
    """The model endpoint failed or answered unusably."""
    code, name = -12, "FA_EMODEL"
class ProtocolError(FlowagentError):
    """A wire protocol was violated."""
    code, name = -13, "FA_EPROTOCOL"
class Unsupported(FlowagentError):
    """An unknown struct or schema version."""
    code, name = -14, "FA_EUNSUPPORTED"
class Conflict(FlowagentError):
    """A patch does not apply (nothing was written)."""
    code, name = -15, "FA_ECONFLICT"
class InternalError(FlowagentError):
    """A bug in flowagent."""
    code, name = -16, "FA_EINTERNAL"
class CallbackError(FlowagentError):
    """A host callback reported failure."""
    code, name = -17, "FA_EUSER"
class SandboxUnavailable(FlowagentError):
    """Untrusted commands cannot be isolated here."""
    code, name = -18, "FA_ESANDBOXUNAVAIL"
class NotFixed(FlowagentError):
    """publish/apply of a result that is not fixed."""
    code, name = -19, "FA_ENOTFIXED"
class Pending(FlowagentError):
    """The job has not ended within the timeout."""
    code, name = -20, "FA_EPENDING"
class Reentrant(FlowagentError):
    """A blocking call made from inside a flowagent callback."""
    code, name = -21, "FA_EREENTRANT"


ERRORS: Dict[int, Type[FlowagentError]] = {
    c.code: c for c in (InvalidArgument, InvalidJson, SchemaError, IoError, ProcessError, Timeout, Cancelled,
                        BudgetExceeded, NotFound, SandboxError, ToolFailed, ModelError, ProtocolError, Unsupported,
                        Conflict, InternalError, CallbackError, SandboxUnavailable, NotFixed, Pending, Reentrant)}
ERROR_NAMES: Dict[int, str] = {c.code: c.name for c in ERRORS.values()}
