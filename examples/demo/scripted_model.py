#!/usr/bin/env python3
"""A scripted OpenAI-compatible endpoint on loopback, used only to (re)record the demo session.

It plays an engineer's moves in order: read the failing code, fix it, run the tests, explain; and
answers the summary request. Usage: scripted_model.py PORT_FILE (writes the chosen port there).
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

MOVES = [
    [("read_file", {"path": "inventory/cart.py"})],
    [("edit_file", {"path": "inventory/cart.py",
                    "old_text": "        runing += price * qty\n",
                    "new_text": "        running += price * qty\n"})],
    [("run_tests", {})],
]
FINAL = ("The running-sum rewrite of total() misspelt the accumulator (runing), so every call "
         "raised NameError; I corrected the name.")
SUMMARY = ("<b>Root cause:</b> the new running-sum loop in <code>total()</code> adds to a misspelt "
           "variable <code>runing</code>, so <code>total()</code> raises <code>NameError</code>. "
           "The fix uses <code>running</code>; <code>test_total</code> passes again.")


class Handler(BaseHTTPRequestHandler):
    step = 0

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        system = body["messages"][0]["content"]
        if "You write the note a code reviewer sees" in system:
            message = {"role": "assistant", "content": SUMMARY}
            finish = "stop"
        elif Handler.step < len(MOVES):
            calls = [{"id": f"call_{Handler.step}_{i}", "type": "function",
                      "function": {"name": n, "arguments": json.dumps(a)}}
                     for i, (n, a) in enumerate(MOVES[Handler.step])]
            Handler.step += 1
            message = {"role": "assistant", "content": None, "tool_calls": calls}
            finish = "tool_calls"
        else:
            message = {"role": "assistant", "content": FINAL}
            finish = "stop"
        out = json.dumps({"choices": [{"index": 0, "finish_reason": finish, "message": message}],
                          "usage": {"prompt_tokens": len(json.dumps(body)) // 4, "completion_tokens": 60}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


if __name__ == "__main__":
    server = HTTPServer(("127.0.0.1", 0), Handler)
    with open(sys.argv[1], "w") as f:
        f.write(str(server.server_address[1]))
    server.serve_forever()
