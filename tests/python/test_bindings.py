import json
import unittest

import flowagent

BOT_REQUEST = {
    "schema": "flowagent.repair_request/v1",
    "repository": "/nonexistent",
    "change": {"id": "py1", "revision": 1, "base_commit": "a", "head_commit": "b",
               "author": {"name": "ci-bot", "kind": "bot"}},
    "failure": {"kind": "test", "failing_tests": ["t"]},
}


class BindingsTest(unittest.TestCase):
    def test_version(self):
        self.assertEqual(flowagent.version(), "0.1.0")

    def test_validate_request_errors_name_the_field(self):
        flowagent.validate_request(BOT_REQUEST)
        bad = json.loads(json.dumps(BOT_REQUEST))
        bad["change"]["revision"] = "one"
        with self.assertRaises(flowagent.FlowagentError) as cm:
            flowagent.validate_request(bad)
        self.assertEqual(cm.exception.name, "FA_ESCHEMA")
        self.assertIn("change.revision", str(cm.exception))
        with self.assertRaises(flowagent.FlowagentError) as cm:
            flowagent.validate_request("{")
        self.assertEqual(cm.exception.name, "FA_EJSON")

    def test_submit_and_wait(self):
        with flowagent.Agent() as agent:
            job = agent.submit(BOT_REQUEST)
            self.assertTrue(job.wait(10))
            self.assertTrue(job.done())
            result = job.result()
            self.assertEqual(result["status"], "abstained")
            self.assertEqual(result["reason"], "automated_author")


if __name__ == "__main__":
    unittest.main()
