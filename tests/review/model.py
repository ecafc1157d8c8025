#!/usr/bin/env python3
"""A scripted OpenAI-compatible model on loopback: the first request with tools gets one reply
writing every file under PATCH_DIR (and deleting those listed in PATCH_DIR/../rm), every later
request a final text. Usage: model.py PORT PATCH_DIR"""
import json, os, sys
from http.server import BaseHTTPRequestHandler, HTTPServer

port, patch_dir = int(sys.argv[1]), sys.argv[2]
rm_file = os.path.join(os.path.dirname(patch_dir.rstrip('/')), 'rm')

def calls():
    out = []
    for dp, _, fs in os.walk(patch_dir):
        for f in sorted(fs):
            full = os.path.join(dp, f)
            rel = os.path.relpath(full, patch_dir)
            out.append({"id": "c%d" % len(out), "type": "function",
                        "function": {"name": "write_file", "arguments": json.dumps({"path": rel, "content": open(full).read()})}})
    if os.path.exists(rm_file):
        for line in open(rm_file).read().split():
            out.append({"id": "c%d" % len(out), "type": "function",
                        "function": {"name": "delete_file", "arguments": json.dumps({"path": line})}})
    return out

class H(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get('Content-Length', 0))) or b'{}')
        msgs = body.get('messages', [])
        used = any(m.get('role') == 'tool' for m in msgs)
        if body.get('tools') and not used:
            msg = {"role": "assistant", "content": None, "tool_calls": calls()}
            fr = "tool_calls"
        else:
            msg = {"role": "assistant", "content": "Done: the root cause was fixed."}
            fr = "stop"
        out = json.dumps({"id": "x", "object": "chat.completion", "model": "m",
                          "choices": [{"index": 0, "message": msg, "finish_reason": fr}],
                          "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}}).encode()
        self.send_response(200); self.send_header('Content-Type', 'application/json'); self.send_header('Content-Length', str(len(out))); self.end_headers(); self.wfile.write(out)

HTTPServer(('127.0.0.1', port), H).serve_forever()
