import dataclasses
import inspect
import json
import os
import re
import signal
import subprocess
import tempfile
import threading
import time
import unittest

import flowagent

BOT_REQUEST = {
    "schema": "flowagent.repair_request/v1",
    "repository": "/nonexistent",
    "change": {"id": "py1", "revision": 1, "base_commit": "a", "head_commit": "b",
               "author": {"name": "ci-bot", "kind": "bot"}},
    "failure": {"kind": "test", "failing_tests": ["t"]},
}


HELPERS = "helpers.py"
HELPERS_TEXT = "import calc\n\n\ndef check(got, want):\n    assert got == want\n"


def git(cwd, *args):
    return subprocess.run(["git", "-c", "user.name=a", "-c", "user.email=b", *args], cwd=cwd, check=True,
                          capture_output=True, text=True).stdout.strip()


def make_repo(tmp):
    repo = os.path.join(tmp, "repo")
    os.makedirs(repo)
    git(repo, "init", "-q", "-b", "main")
    with open(os.path.join(repo, "v.txt"), "w") as f:
        f.write("1\n")
    git(repo, "add", "v.txt")
    git(repo, "commit", "-qm", "one")
    base = git(repo, "rev-parse", "HEAD")
    with open(os.path.join(repo, "v.txt"), "w") as f:
        f.write("2\n")
    with open(os.path.join(repo, "w.txt"), "w") as f:
        f.write("a\nb\nc\n")
    git(repo, "add", "w.txt")
    git(repo, "commit", "-qam", "two")
    return repo, base, git(repo, "rev-parse", "HEAD")


def reply_tool(name, args):
    return {"choices": [{"finish_reason": "tool_calls", "message": {"role": "assistant", "tool_calls": [
        {"id": "c_" + name, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5}}


def reply_text(text):
    return {"choices": [{"finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5}}


class ScriptedTransport:
    """The model, behind the host transport: no HTTP server needed."""

    def __init__(self, moves):
        self.moves = list(moves)
        self.requests = []

    def __call__(self, request):
        self.requests.append(request)
        body = json.loads(request["body"])
        if "You write the note" in body["messages"][0]["content"]:
            out = reply_text("<b>Root cause:</b> v.txt held 2.")
        elif self.moves:
            out = self.moves.pop(0)
        else:
            out = reply_text("done")
        return {"status": 200, "headers": [["content-type", "application/json"]], "body": json.dumps(out)}


class BindingsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.repo, self.base, self.head = make_repo(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def request(self, change_id="py-1"):
        return flowagent.RepairRequest(
            repository=self.repo,
            change=flowagent.Change(id=change_id, base_commit=self.base, head_commit=self.head),
            failure=flowagent.Failure(failing_tests=["v"]),
            # The check reports its one test as TAP with its plan: the validator wants per-test evidence.
            commands=flowagent.Commands(
                test="if grep -q 1 v.txt; then echo 'ok 1 - v'; else echo 'not ok 1 - v'; echo '1..1'; exit 1; fi; echo '1..1'"),
            model=flowagent.Model(spec="openai:scripted"))

    def test_version_comes_from_the_project_line(self):
        root = os.environ.get("FLOWAGENT_TEST_REPO_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
        with open(os.path.join(root, "CMakeLists.txt")) as f:
            m = re.search(r"project\(flowagent\s+VERSION\s+([0-9.]+)", f.read())
        self.assertEqual(flowagent.version(), m.group(1))

    def test_errors_map_to_exceptions_naming_the_field(self):
        flowagent.validate_request(BOT_REQUEST)
        bad = json.loads(json.dumps(BOT_REQUEST))
        bad["change"]["revision"] = "one"
        with self.assertRaises(flowagent.SchemaError) as cm:
            flowagent.validate_request(bad)
        self.assertIn("change.revision", str(cm.exception))
        self.assertIsInstance(cm.exception, flowagent.FlowagentError)
        with self.assertRaises(flowagent.InvalidJson):
            flowagent.validate_request("{")
        bad["schema"] = "flowagent.repair_request/v7"
        with self.assertRaises(flowagent.Unsupported):
            flowagent.validate_request(bad)
        with self.assertRaises(TypeError):
            flowagent.validate_request(42)

    def test_repair_with_tools_tracker_transport_and_events(self):
        calls = []

        def shout(args, root, cancelled):
            calls.append((args, root))
            return args["text"].upper()

        transport = ScriptedTransport([
            reply_tool("shout", {"text": "hi"}),
            reply_tool("edit_file", {"path": "v.txt", "old_text": "2", "new_text": "1"}),
            reply_text("v.txt must hold 1."),
        ])
        seen = []
        tracker_calls = []
        with flowagent.Agent(tools=[flowagent.Tool("shout", "Shouts.", {"type": "object", "properties": {
                "text": {"type": "string"}}, "required": ["text"]}, shout)],
                change_tracker=lambda cid, rev: tracker_calls.append(cid) or (rev, False, False),
                transport=transport, on_event=seen.append) as agent:
            job = agent.submit(self.request())
            kinds = [e.kind for e in job.events(timeout=60)]
            result = job.result(timeout=60)
        self.assertEqual(result.status, "fixed", result.message)
        self.assertTrue(result.fixed)
        self.assertIn("-2\n+1", result.patch)
        self.assertIn("v.txt held 2", result.summary)
        self.assertEqual(calls[0][0], {"text": "hi"})
        self.assertTrue(os.path.isabs(calls[0][1]))
        self.assertIn("tool_call", kinds)
        self.assertEqual(kinds[-1], "result")
        self.assertTrue(any(e.kind == "phase" for e in seen))
        self.assertGreaterEqual(len(tracker_calls), 2)
        # delivery and apply
        sarif = json.loads(flowagent.publish(result, "sarif"))
        self.assertEqual(sarif["version"], "2.1.0")
        with self.assertRaises(flowagent.InvalidArgument):
            flowagent.publish(result, "docx")
        report = flowagent.apply(self.repo, result)
        self.assertIn("v.txt", report["files"])
        with open(os.path.join(self.repo, "v.txt")) as f:
            self.assertEqual(f.read(), "1\n")
        # Only a fixed result is delivered: the same document marked rejected is refused.
        rejected = dict(result.raw, status="rejected", reason="integrity_skip_added")
        self.assertEqual(flowagent.RepairResult.from_dict(rejected).patch, "")
        for call in (lambda: flowagent.publish(rejected, "diff"), lambda: flowagent.apply(self.repo, rejected)):
            with self.assertRaises(flowagent.NotFixed) as ctx:
                call()
            self.assertIn("not fixed", str(ctx.exception))

    def test_several_candidates_share_the_job_and_one_is_delivered(self):
        # Candidate 1 (temperature 0.1) makes the fix; candidate 2 (0.4) changes nothing useful.
        by_temperature = {10: [reply_tool("edit_file", {"path": "v.txt", "old_text": "2", "new_text": "1"}),
                               reply_text("v.txt must hold 1.")],
                          40: [reply_text("I give up.")] * 3}
        lock = threading.Lock()

        def transport(request):
            body = json.loads(request["body"])
            if "You write the note" in body["messages"][0]["content"]:
                out = reply_text("<b>Root cause:</b> v.txt held 2.")
            else:
                with lock:
                    moves = by_temperature.setdefault(round(body["temperature"] * 100), [])
                    out = moves.pop(0) if moves else reply_text("done")
            return {"status": 200, "headers": [["content-type", "application/json"]], "body": json.dumps(out)}

        seen = []
        req = self.request("py-cands")
        req.candidates = flowagent.Candidates(count=2, concurrency=1)
        self.assertEqual(req.to_dict()["candidates"], {"count": 2, "concurrency": 1})  # unset fields are not sent
        with flowagent.Agent(transport=transport, on_event=seen.append) as agent:
            result = agent.run(req, timeout=120)
        self.assertEqual(result.status, "fixed", result.message)
        self.assertEqual(result.chosen_candidate, 1)
        self.assertEqual([c["outcome"] for c in result.candidates], ["accepted", "no_fix"])
        self.assertEqual({e.candidate for e in seen if e.kind == "tool_call"}, {1})
        self.assertTrue({1, 2} <= {e.candidate for e in seen})
        self.assertEqual({s.get("candidate", 0) for s in result.trajectory}, {0, 1, 2})

    def test_a_symlink_patch_is_never_applied(self):
        evil = {"schema": "flowagent.repair_result/v1", "status": "fixed", "head_commit": self.head,
                "patch": "diff --git a/etc b/etc\nnew file mode 120000\nindex 0000000000000000000000000000000000000000.."
                         "c4f7e0e6ac2f1a9cdee5b5e4d1f3f2a6b7c8d9e0\n--- /dev/null\n+++ b/etc\n@@ -0,0 +1 @@\n+/etc\n"
                         "\\ No newline at end of file\n"}
        with self.assertRaises(flowagent.SandboxError) as ctx:
            flowagent.apply(self.repo, evil)
        self.assertIn("patch_symlink", str(ctx.exception))
        with self.assertRaises(flowagent.SandboxError):
            flowagent.publish(evil, "diff")
        self.assertFalse(os.path.lexists(os.path.join(self.repo, "etc")))

    def test_exception_in_a_callback_is_reraised(self):
        class Boom(RuntimeError):
            pass

        def broken(args, root, cancelled):
            raise Boom("tool exploded")

        transport = ScriptedTransport([reply_tool("broken", {}), reply_text("gave up")])
        with flowagent.Agent(tools=[flowagent.Tool("broken", "Fails.", {"type": "object"}, broken)],
                             transport=transport) as agent:
            job = agent.submit(self.request("py-2"))
            with self.assertRaises(Boom):
                job.wait(60)

    def test_cancel_during_a_tool_call(self):
        started = threading.Event()

        def slow(args, root, cancelled):
            started.set()
            for _ in range(1000):
                if cancelled():
                    return "stopped"
                time.sleep(0.01)
            return "finished"

        transport = ScriptedTransport([reply_tool("slow", {})])
        with flowagent.Agent(tools=[flowagent.Tool("slow", "Slow.", {"type": "object"}, slow)],
                             transport=transport) as agent:
            job = agent.submit(self.request("py-3"))
            self.assertTrue(started.wait(30))
            t0 = time.time()
            job.cancel()
            result = job.result(timeout=20)
            self.assertLess(time.time() - t0, 5)
        self.assertEqual(result.reason, "cancelled")

    def test_callback_exceptions_and_events_belong_to_their_job(self):
        class Boom(RuntimeError):
            pass

        def broken(args, root, cancelled):
            raise Boom("tool exploded")

        transport = ScriptedTransport([reply_tool("broken", {}), reply_text("gave up")])
        with flowagent.Agent(worker_threads=1, tools=[flowagent.Tool("broken", "Fails.", {"type": "object"}, broken)],
                             transport=transport) as agent:
            a = agent.submit(self.request("py-a"))
            b = agent.submit(BOT_REQUEST)          # runs after a, on the same worker
            c = agent.submit(BOT_REQUEST)          # same change and revision as b: its own events
            self.assertTrue(b.wait(60))            # a's exception is not b's
            self.assertEqual(b.result().reason, "automated_author")
            with self.assertRaises(Boom):
                a.wait(60)
            self.assertTrue(c.wait(60))
            ev_b, ev_c = list(b.events(timeout=5)), list(c.events(timeout=5))
            self.assertEqual({e.job_id for e in ev_b}, {b.id})
            self.assertEqual({e.job_id for e in ev_c}, {c.id})
            self.assertEqual(ev_b[-1].kind, "result")
            for j in (a, b, c):
                j.close()
            self.assertEqual(agent._jobs, {})     # nothing kept per job once it ended and was closed

    def test_ctrl_c_interrupts_result(self):
        started = threading.Event()

        def slow(args, root, cancelled):
            started.set()
            while not cancelled():
                time.sleep(0.01)
            return "stopped"

        transport = ScriptedTransport([reply_tool("slow", {})])
        with flowagent.Agent(tools=[flowagent.Tool("slow", "Slow.", {"type": "object"}, slow)],
                             transport=transport) as agent:
            job = agent.submit(self.request("py-int"))
            self.assertTrue(started.wait(30))
            timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
            timer.start()
            t0 = time.time()
            with self.assertRaises(KeyboardInterrupt):
                job.result()
            self.assertLess(time.time() - t0, 2.0)
            job.cancel()
            self.assertEqual(job.result(timeout=20).reason, "cancelled")

    def test_malformed_json_raises_the_packages_exception(self):
        with self.assertRaises(flowagent.InvalidJson):
            flowagent.RepairResult.from_json("{")
        with self.assertRaises(flowagent.InvalidJson):
            flowagent.publish("{", "diff")
        with flowagent.Agent() as agent:
            with self.assertRaises(flowagent.InvalidJson):
                agent.submit("{not json")

    def test_dataclasses_send_only_what_the_user_set(self):
        doc = flowagent.RepairRequest(repository="/r", change=flowagent.Change(id="c", base_commit="a", head_commit="b"),
                                      failure=flowagent.Failure(failing_tests=["t"]),
                                      limits=flowagent.Limits(max_tool_calls=7)).to_dict()
        self.assertEqual(doc, {"schema": "flowagent.repair_request/v1", "repository": "/r",
                               "change": {"id": "c", "base_commit": "a", "head_commit": "b"},
                               "failure": {"failing_tests": ["t"]}, "limits": {"max_tool_calls": 7}})
        flowagent.validate_request(doc)

    def test_typed_and_documented(self):
        pkg = os.path.dirname(flowagent.__file__)
        self.assertTrue(os.path.isfile(os.path.join(pkg, "py.typed")))
        missing = []
        for name in flowagent.__all__:
            obj = getattr(flowagent, name)
            if not (obj.__doc__ or "").strip():
                missing.append(name)
            if inspect.isclass(obj) and not issubclass(obj, BaseException):
                for attr, member in vars(obj).items():
                    generated = attr == "__init__" and dataclasses.is_dataclass(obj)
                    if (inspect.isfunction(member) or isinstance(member, (classmethod, property))) and not generated and \
                            (not attr.startswith("_") or attr in ("__init__", "__enter__", "__exit__")):
                        fn = member.__func__ if isinstance(member, classmethod) else member
                        if not (fn.__doc__ or "").strip():
                            missing.append(f"{name}.{attr}")
        self.assertEqual(missing, [])

    def test_integrity_check_is_bound(self):
        files = [flowagent.FileVersions("tests/test_a.py", "def test_a():\n    assert f() == 3\n",
                                        "def test_a():\n    assert f() > 2\n")]
        findings = flowagent.integrity_check(files, failing_tests=["test_a"])
        self.assertIn("assertion_weakened", [f.rule for f in findings])
        honest = [flowagent.FileVersions("src/a.py", "x = 1\n", "x = 2\n")]
        self.assertEqual(flowagent.integrity_check(honest), [])
        # With the repository, the failing test's helper module is test code: a stand-in there is found.
        repo = os.path.join(self.tmp.name, "guard-repo")
        os.makedirs(os.path.join(repo, "tests"))
        for path, text in (("calc.py", "def add(a, b):\n    return a + b\n"), (HELPERS, HELPERS_TEXT),
                           ("tests/test_calc.py", "from calc import add\nfrom helpers import check\n\n\ndef test_add():\n    check(add(2, 2), 4)\n")):
            with open(os.path.join(repo, path), "w") as f:
                f.write(text)
        git(repo, "init", "-q", "-b", "main")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "one")
        stand_in = [flowagent.FileVersions(HELPERS, HELPERS_TEXT, HELPERS_TEXT.replace("import calc\n", "import calc\ncalc.add = lambda a, b: 4\n"))]
        self.assertEqual(flowagent.integrity_check(stand_in, failing_tests=["tests/test_calc.py::test_add"]), [])
        found = flowagent.integrity_check(stand_in, failing_tests=["tests/test_calc.py::test_add"], repo=repo, head="HEAD")
        self.assertIn("mocked_code_under_test", [f.rule for f in found])
        with self.assertRaises(flowagent.NotFound):
            flowagent.integrity_check(stand_in, repo=self.tmp.name)

    def test_agent_config_is_strict(self):
        with self.assertRaises(flowagent.SchemaError) as cm:
            flowagent.Agent(config={"workspaces": {}})
        self.assertIn("workspaces", str(cm.exception))
        with self.assertRaises(flowagent.SchemaError):
            flowagent.Agent(sandbox={"max_processes": "many"})
        # The retrieval's semantic tier: the whole-index mode is "candidates": 0; the keys are checked.
        with self.assertRaises(flowagent.SchemaError) as cm:
            flowagent.Agent(config={"embeddings": {"model": "ollama:e", "candidates": "all"}})
        self.assertIn("embeddings.candidates", str(cm.exception))
        with self.assertRaises(flowagent.SchemaError) as cm:
            flowagent.Agent(config={"embeddings": {"model": "ollama:e", "weight": 2}})
        self.assertIn("embeddings.weight", str(cm.exception))
        flowagent.Agent(config={"embeddings": {"model": "ollama:e", "candidates": 0, "weight": 0.7}}).close()
        ws = os.path.join(self.tmp.name, "ws")
        with flowagent.Agent(config={"workspace": {"root": ws}, "validator": {"accept_exit_code_evidence": True}}) as agent:
            self.assertEqual(agent.run(BOT_REQUEST, timeout=10).reason, "automated_author")

    def test_closing_the_agent_from_its_own_callback(self):
        box = {}

        def on_event(ev):
            if ev.kind == "phase" and "agent" in box:
                box.pop("agent").close()   # from a worker thread of that agent: supported, returns at once

        agent = flowagent.Agent(worker_threads=1, on_event=on_event)
        box["agent"] = agent
        job = agent.submit(BOT_REQUEST)
        self.assertTrue(job.wait(30))
        job.close()

    def test_abstain_without_model(self):
        with flowagent.Agent() as agent:
            result = agent.run(BOT_REQUEST, timeout=10)
        self.assertEqual(result.status, "abstained")
        self.assertEqual(result.reason, "automated_author")


if __name__ == "__main__":
    unittest.main()
