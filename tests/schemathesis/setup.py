"""Prepares a fresh server for tests/schemathesis/run.sh (standard library only).

Waits for /readyz, then creates: an organiser account and its access token; table A, 2 seats
(the organiser and a built-in random bot), started; table B, 3 seats, open; gathering G with a
player account `st-player` registered. Writes the Schemathesis config (argv[2]) from its
template (argv[1]) with the ids and tokens filled in.
"""

import json
import os
import sys
import time
import urllib.error
import urllib.request

BASE = os.environ["BASE"]


def call(method, path, body=None, token=None, headers=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(BASE + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        sys.exit(f"setup: {method} {path} answered {e.code}: {e.read().decode(errors='replace')}")


deadline = time.time() + 60
while True:
    try:
        with urllib.request.urlopen(BASE + "/readyz", timeout=5) as r:
            if r.status == 200:
                break
    except OSError:
        pass
    if time.time() > deadline:
        sys.exit("setup: the server did not become ready within 60 s")
    time.sleep(0.1)

name, password = "st-organiser", "schemathesis password"
call("POST", "/api/v1/accounts", {"name": name, "password": password, "role": "organiser"},
     headers={"X-Organiser-Key": os.environ["ORGANISER_KEY"]})
token = call("POST", "/api/v1/auth/token", {"name": name, "password": password})["access_token"]

table_a = call("POST", "/api/v1/tables", {"players": 2}, token)["table"]["table_id"]
call("POST", f"/api/v1/tables/{table_a}/seats", {"seat": 0}, token)
call("POST", f"/api/v1/tables/{table_a}/seats", {"seat": 1, "bot": "random"}, token)
call("POST", f"/api/v1/tables/{table_a}/start", None, token)
table_b = call("POST", "/api/v1/tables", {"players": 3}, token)["table"]["table_id"]
gathering = call("POST", "/api/v1/gatherings", {"name": "schemathesis"}, token)["gathering_id"]
call("POST", "/api/v1/accounts", {"name": "st-player", "password": password})
call("POST", f"/api/v1/gatherings/{gathering}/registrations", {"name": "st-player"}, token)

with open(sys.argv[1]) as f:
    config = f.read()
config = (config.replace("@TABLE_A@", table_a).replace("@TABLE_B@", table_b)
          .replace("@GATHERING@", gathering).replace("@TOKEN@", token)
          .replace("@METRICS_TOKEN@", os.environ["METRICS_TOKEN"])
          .replace("@HOOKS@", os.path.join(os.path.dirname(os.path.abspath(__file__)), "hooks.py")))
with open(sys.argv[2], "w") as f:
    f.write(config)
