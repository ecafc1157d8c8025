"""Typed views of the JSON documents (docs/SCHEMA.md): requests, results and events.

The request dataclasses hold only what the caller set: every optional field defaults to None and
is left out of the document, so the library's own defaults apply (they are not copied here).
"""
from __future__ import annotations

import dataclasses
import json
from typing import Any, Dict, List, Optional, Union

from ._lib import loads


def _drop_unset(value: Any) -> Any:
    """The value with None members removed, recursively (unset fields are not sent)."""
    if isinstance(value, dict):
        return {k: _drop_unset(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_unset(v) for v in value]
    return value


@dataclasses.dataclass
class Change:
    """The change under review: base..head, and optional metadata."""
    id: str
    base_commit: str
    head_commit: str
    revision: Optional[int] = None
    description: Optional[str] = None
    author: Optional[Dict[str, str]] = None
    files: Optional[List[Dict[str, Any]]] = None


@dataclasses.dataclass
class Failure:
    """What failed: test ids, and the reports and logs CI wrote."""
    failing_tests: Optional[List[str]] = None
    kind: Optional[str] = None
    reports: Optional[List[str]] = None
    logs: Optional[List[str]] = None


@dataclasses.dataclass
class Commands:
    """How to build and test the repository."""
    test: Optional[str] = None
    build: Optional[str] = None
    wider_test: Optional[str] = None
    report_globs: Optional[List[str]] = None
    timeout_seconds: Optional[int] = None


@dataclasses.dataclass
class Limits:
    """Caps of one repair; an unset one keeps the library's default (docs/SCHEMA.md)."""
    max_tool_calls: Optional[int] = None
    max_wall_seconds: Optional[int] = None
    max_tokens: Optional[int] = None
    max_cost_usd: Optional[float] = None
    max_files: Optional[int] = None
    max_changed_lines: Optional[int] = None
    context_tokens: Optional[int] = None


@dataclasses.dataclass
class Model:
    """Which model to use and how to sample it."""
    spec: Optional[str] = None
    base_url: Optional[str] = None
    api_key_env: Optional[str] = None
    temperature: Optional[float] = None
    top_p: Optional[float] = None
    max_output_tokens: Optional[int] = None


@dataclasses.dataclass
class Candidates:
    """Several candidate loops per job, sharing its budgets (docs/SCHEMA.md, "candidates")."""
    count: Optional[int] = None
    concurrency: Optional[int] = None
    early_stop: Optional[bool] = None


@dataclasses.dataclass
class RepairRequest:
    """A flowagent.repair_request/v1 document."""
    repository: str
    change: Change
    failure: Failure
    commands: Optional[Commands] = None
    limits: Optional[Limits] = None
    model: Optional[Model] = None
    candidates: Optional[Candidates] = None

    def to_dict(self) -> Dict[str, Any]:
        """The document as a dict, with only the fields that were set."""
        return {"schema": "flowagent.repair_request/v1", **_drop_unset(dataclasses.asdict(self))}


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
        """True when the result holds a validated fix."""
        return self.status == "fixed"

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "RepairResult":
        """A result from its parsed document."""
        # Only a fixed result carries a patch (the library drops it from any other status too).
        patch = d.get("patch", "") if d.get("status") == "fixed" else ""
        return cls(d.get("status", ""), d.get("reason", ""), d.get("message", ""), patch,
                   d.get("summary", ""), d.get("change_id", ""), d.get("revision", 0), d.get("evidence", {}),
                   d.get("metrics", {}), d.get("trajectory", []), d)

    @classmethod
    def from_json(cls, text: Union[str, bytes]) -> "RepairResult":
        """A result from its JSON text; InvalidJson when the text is not JSON."""
        return cls.from_dict(loads(text, "result"))

    @property
    def candidates(self) -> List[Dict[str, Any]]:
        """One report per candidate when the job ran several (index, outcome, reason, agreement, chosen, ...)."""
        return self.raw.get("candidates", [])

    @property
    def chosen_candidate(self) -> int:
        """1-based index of the delivered candidate; 0 when none or a single one ran."""
        return self.raw.get("chosen_candidate", 0)

    def to_json(self) -> str:
        """The document's JSON text."""
        return json.dumps(self.raw)


@dataclasses.dataclass
class Event:
    """A flowagent.event/v1 document: progress of one job."""
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
    job_id: int = 0
    candidate: int = 0  # 1-based candidate of a job with several; 0: the job

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "Event":
        """An event from its parsed document."""
        return cls(d.get("kind", ""), d.get("phase", ""), d.get("message", ""), d.get("change_id", ""),
                   d.get("revision", 0), d.get("index", 0), d.get("max", 0), d.get("tokens", 0),
                   d.get("eta_ms", -1), d.get("elapsed_ms", 0), d.get("job_id", 0),
                   d.get("candidate", 0))


RequestLike = Union[RepairRequest, Dict[str, Any], str, bytes]
ResultLike = Union[RepairResult, Dict[str, Any], str, bytes]


def encode_request(request: RequestLike) -> bytes:
    """A request as the bytes the library reads."""
    if isinstance(request, RepairRequest):
        request = request.to_dict()
    if isinstance(request, dict):
        return json.dumps(request).encode("utf-8")
    if isinstance(request, str):
        return request.encode("utf-8")
    if isinstance(request, bytes):
        return request
    raise TypeError("request must be a RepairRequest, dict, str or bytes")


def encode_result(result: ResultLike) -> bytes:
    """A result as the bytes the library reads."""
    if isinstance(result, RepairResult):
        return result.to_json().encode()
    if isinstance(result, dict):
        return json.dumps(result).encode()
    if isinstance(result, bytes):
        return result
    if isinstance(result, str):
        return result.encode()
    raise TypeError("result must be a RepairResult, dict, str or bytes")
