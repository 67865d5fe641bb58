#!/usr/bin/env python3
"""Checks of deploy/ that need no container engine (run by scripts/test-deploy.sh).

  deploy_check.py cargo-line              the Dockerfile's cargo build command, one word a line
  deploy_check.py consistency             drain times agree across config, unit, compose, manifests
  deploy_check.py runtime BINARY          runs BINARY as the image would and checks it over TCP/HTTP
  deploy_check.py metrics-named FILE...   metric names used by alert rules / dashboards (one a line)

`runtime` lays out a fake image root (the Dockerfile's ENTRYPOINT, CMD, ENV, USER, WORKDIR,
VOLUME and COPY'd config), runs BINARY as the image's user with a read-only config directory,
and checks: /readyz goes 503 -> 200 with needWaitForService=true; every probe path of the
Kubernetes manifests answers; a KV put lands in the volume; the embedded page is served with
validators and compression; every metric the alert rules and the dashboard name is in a live
scrape (a second daemon runs as its peer, NAMESERVER_HTTP_PEERS, so that the peer series have
samples); SIGTERM exits 0 within the declared grace.
"""

import json
import os
import re
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
DOCKERFILE = DEPLOY / "Dockerfile"
MANIFESTS = sorted((DEPLOY / "kubernetes").glob("*.yaml"))
ALERTS = DEPLOY / "prometheus" / "alerts.yaml"
DASHBOARD = DEPLOY / "grafana" / "nameserver.json"
UNIT = DEPLOY / "systemd" / "nameserver.service"
COMPOSE = DEPLOY / "compose.yaml"
# Series Prometheus makes itself, not the daemon.
SYNTHETIC = {"up"}


def fail(message):
    print(f"deploy check FAILED: {message}", file=sys.stderr)
    sys.exit(1)


# ---------------------------------------------------------------------------- Dockerfile


def dockerfile_instructions():
    """(instruction, argument) of the final stage, continuation lines joined."""
    text = DOCKERFILE.read_text()
    text = re.sub(r"\\\n", " ", text)
    stages, current = [], []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        if word.upper() == "FROM":
            current = []
            stages.append(current)
        current.append((word.upper(), rest.strip()))
    return stages


def cargo_line():
    for stage in dockerfile_instructions():
        for word, rest in stage:
            if word == "RUN":
                match = re.search(r"cargo build [^&;|]*", rest)
                if match:
                    return shlex.split(match.group(0))
    fail("no `RUN ... cargo build ...` in deploy/Dockerfile")


def image():
    """What the runtime stage sets up."""
    final = dockerfile_instructions()[-1]
    spec = {"env": {}, "entrypoint": [], "cmd": [], "user": None, "workdir": "/", "volumes": [], "copies": [], "expose": []}
    for word, rest in final:
        if word == "ENV":
            for item in shlex.split(rest):
                key, _, value = item.partition("=")
                spec["env"][key] = value
        elif word in ("ENTRYPOINT", "CMD"):
            spec[word.lower()] = json.loads(rest)
        elif word == "USER":
            spec["user"] = rest
        elif word == "WORKDIR":
            spec["workdir"] = rest
        elif word == "VOLUME":
            spec["volumes"] = json.loads(rest) if rest.startswith("[") else rest.split()
        elif word == "COPY" and "--from" not in rest:
            source, target = rest.split()
            spec["copies"].append((ROOT / source, target))
        elif word == "EXPOSE":
            spec["expose"] = [int(p) for p in rest.split()]
    return spec


# ---------------------------------------------------------------------------- manifests


def manifest_docs():
    docs = []
    for path in MANIFESTS:
        docs.extend(doc for doc in yaml.safe_load_all(path.read_text()) if doc)
    return docs


def workload():
    for doc in manifest_docs():
        if doc["kind"] in ("StatefulSet", "Deployment"):
            return doc
    fail("no StatefulSet or Deployment in deploy/kubernetes")


def probe_paths(pod_spec):
    """(probe, path, container port) of every HTTP probe."""
    found = []
    for container in pod_spec["containers"]:
        ports = {p.get("name"): p["containerPort"] for p in container.get("ports", [])}
        for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
            http = container.get(probe, {}).get("httpGet")
            if http:
                port = http["port"]
                found.append((probe, http["path"], ports.get(port, port)))
    return found


def properties(text):
    values = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "!")):
            match = re.match(r"([^=:\s]+)\s*[=:\s]?\s*(.*)", line)
            values[match.group(1)] = match.group(2).strip()
    return values


def declared_grace():
    """Seconds the manifests give the daemon to drain after SIGTERM (grace minus preStop)."""
    pod = workload()["spec"]["template"]["spec"]
    grace = pod.get("terminationGracePeriodSeconds", 30)
    pre_stop = 0
    for container in pod["containers"]:
        sleep = container.get("lifecycle", {}).get("preStop", {}).get("sleep")
        if sleep:
            pre_stop = max(pre_stop, sleep["seconds"])
    return grace, pre_stop


def drain_seconds(config):
    """The longest a SIGTERM may take: the GO_AWAY window if on, then the 5 s drain."""
    if config.get("enableShutdownGracefully", "false").lower() == "true":
        return int(config.get("shutdownWaitTimeSeconds", "30")) + 5
    return 5


def consistency():
    """The drain time each service manager allows covers the daemon's drain."""
    image_drain = drain_seconds(properties((DEPLOY / "namesrv.properties").read_text()))
    config_maps = [d for d in manifest_docs() if d["kind"] == "ConfigMap" and "namesrv.properties" in d.get("data", {})]
    if not config_maps:
        fail("no ConfigMap with namesrv.properties")
    k8s_drain = drain_seconds(properties(config_maps[0]["data"]["namesrv.properties"]))
    grace, pre_stop = declared_grace()
    if pre_stop + k8s_drain >= grace:
        fail(f"terminationGracePeriodSeconds {grace} does not cover preStop {pre_stop} s + drain {k8s_drain} s")
    container = workload()["spec"]["template"]["spec"]["containers"][0]
    if "-c" not in container.get("args", []):
        fail("the container is not given its ConfigMap with -c")
    # A misspelt variable would be ignored without a word: each must be one the daemon reads.
    known = set(re.findall(r'env = "(NAMESERVER_[A-Z_]+)"', (ROOT / "native-server/src/args.rs").read_text()))
    for var in container.get("env", []):
        if var["name"].startswith("NAMESERVER_") and var["name"] not in known:
            fail(f"the container sets {var['name']}, which the daemon does not read")
    unit = UNIT.read_text()
    for needed in ["Type=exec", "StateDirectory=", "Environment=HOME=", "LimitNOFILE=65536", "TimeoutStopSec="]:
        if needed not in unit:
            fail(f"{UNIT.name} lacks {needed}")
    stop = int(re.search(r"TimeoutStopSec=(\d+)", unit).group(1))
    if stop <= image_drain:
        fail(f"TimeoutStopSec={stop} does not cover the {image_drain} s drain")
    compose = yaml.safe_load(COMPOSE.read_text())
    period = compose["services"]["namesrv"].get("stop_grace_period", "10s")
    if int(period.rstrip("s")) <= image_drain:
        fail(f"compose stop_grace_period {period} does not cover the {image_drain} s drain")
    if not any("rocketmq" in s.get("image", "") for s in compose["services"].values()):
        fail("compose.yaml runs no Apache RocketMQ broker")
    print(f"drain: image {image_drain} s, systemd stop {stop} s, compose {period}, "
          f"Kubernetes {k8s_drain} s + preStop {pre_stop} s < grace {grace} s")


# ---------------------------------------------------------------------------- metric names

KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless", "offset"}


def promql_metrics(expr):
    """Metric names in a PromQL expression: identifiers that are not functions, keywords,
    label names, label values or durations."""
    expr = re.sub(r'"(?:\\.|[^"\\])*"', '""', expr)
    expr = re.sub(r"\{[^}]*\}", "", expr)
    expr = re.sub(r"\[[^\]]*\]", "", expr)
    expr = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", expr)
    names = set()
    for match in re.finditer(r"(?<![\w$.])[A-Za-z_:][A-Za-z0-9_:]*", expr):
        rest = expr[match.end():].lstrip()
        if rest.startswith("(") or match.group(0) in KEYWORDS:
            continue
        names.add(match.group(0))
    return names


def named_metrics(path):
    path = Path(path)
    exprs = []
    if path.suffix == ".json":
        def walk(node):
            if isinstance(node, dict):
                if isinstance(node.get("expr"), str):
                    exprs.append(node["expr"])
                for value in node.values():
                    walk(value)
            elif isinstance(node, list):
                for value in node:
                    walk(value)
        walk(json.loads(path.read_text()))
    else:
        for group in yaml.safe_load(path.read_text())["groups"]:
            exprs.extend(rule["expr"] for rule in group["rules"])
    if not exprs:
        fail(f"{path} names no expression")
    names = set()
    for expr in exprs:
        names |= promql_metrics(expr)
    return names


def scraped_names(text):
    names = set()
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            names.add(line.split()[2])
        elif line and not line.startswith("#"):
            names.add(re.match(r"[A-Za-z_:][A-Za-z0-9_:]*", line).group(0))
    return names


# ---------------------------------------------------------------------------- runtime


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(port, path, headers=None):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()
    except (urllib.error.URLError, ConnectionError):
        return None, {}, b""


def remoting_call(port, code, fields, opaque=1):
    """One RocketMQ request with a JSON header; returns the reply header."""
    header = json.dumps({"code": code, "extFields": fields, "flag": 0, "language": "JAVA", "opaque": opaque,
                         "serializeTypeCurrentRPC": "JSON", "version": 479}).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(struct.pack(">ii", 4 + len(header), len(header)) + header)
        data = b""
        while len(data) < 4 or len(data) < 4 + struct.unpack(">i", data[:4])[0]:
            chunk = s.recv(65536)
            if not chunk:
                fail("the NameServer closed the connection without a reply")
            data += chunk
    header_len = struct.unpack(">i", data[4:8])[0] & 0xFFFFFF
    return json.loads(data[8:8 + header_len])


def runtime(binary):
    spec = image()
    uid, gid = (int(x) for x in spec["user"].split(":"))
    container_http, container_tcp = 8080, 9876
    if sorted(spec["expose"]) != [container_http, container_tcp]:
        fail(f"the image exposes {spec['expose']}, not 9876 and 8080")
    root = Path(tempfile.mkdtemp(prefix="nameserver-image-"))
    os.chmod(root, 0o755)
    as_root = os.geteuid() == 0
    try:
        # The image: the binary, the COPY'd config (root-owned, read-only), the user's home and volume.
        exe = root / "usr/local/bin/nameserver"
        exe.parent.mkdir(parents=True)
        shutil.copy(binary, exe)
        os.chmod(exe, 0o755)
        tcp_port, http_port = free_port(), free_port()
        for source, target in spec["copies"]:
            dest = root / target.lstrip("/")
            dest.parent.mkdir(parents=True, exist_ok=True)
            text = source.read_text()
            # This run: wait for service (so /readyz starts at 503), a free port for 9876, and a
            # 1 s GO_AWAY window (its configured length is checked by `consistency`).
            text += f"\nneedWaitForService=true\nwaitSecondsForService=3\nlistenPort={tcp_port}\nshutdownWaitTimeSeconds=1\n"
            dest.write_text(text)
            os.chmod(dest, 0o444)
            os.chmod(dest.parent, 0o555)
        home = root / spec["env"]["HOME"].lstrip("/")
        for path in [home] + [root / v.lstrip("/") for v in spec["volumes"]]:
            path.mkdir(parents=True, exist_ok=True)
            if as_root:
                os.chown(path, uid, gid)

        def in_image(value):
            for prefix in ("/etc/", "/home/", "/usr/local/"):
                if value.startswith(prefix):
                    return str(root / value.lstrip("/"))
            return value

        # A peer NameServer (the same binary, plainly run) for the nameserver_peer_* series.
        peer_home = root / "peer-home"
        peer_home.mkdir()
        peer_http = free_port()
        peer_argv = [str(exe), "--bind-address", "127.0.0.1", "--listen-port", str(free_port()), "--http-port", str(peer_http)]
        argv = [in_image(a) for a in spec["entrypoint"] + spec["cmd"]]
        # `docker run -p`: the container's console port to a free one here.
        argv = [str(http_port) if a == str(container_http) and argv[i - 1] == "--http-port" else a for i, a in enumerate(argv)]
        env = {"PATH": "/usr/bin:/bin"}
        env.update({k: in_image(v) for k, v in spec["env"].items()})
        env["NAMESERVER_HTTP_PEERS"] = f"http://127.0.0.1:{peer_http}"
        if as_root:
            argv = ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--"] + argv
        log_path = root / "daemon.log"
        peer = subprocess.Popen(peer_argv, env={"PATH": "/usr/bin:/bin", "HOME": str(peer_home)},
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        print("running:", " ".join(shlex.quote(a) for a in argv))
        print(f"  with NAMESERVER_HTTP_PEERS={env['NAMESERVER_HTTP_PEERS']} (a second daemon)")
        try:
            with open(log_path, "w") as log:
                daemon = subprocess.Popen(argv, env=env, cwd=in_image(spec["workdir"]), stdout=log, stderr=subprocess.STDOUT)
            try:
                check_running(daemon, spec, root, home, tcp_port, http_port, container_http, uid, as_root, peer_http)
            finally:
                if daemon.poll() is None:
                    daemon.kill()
                    daemon.wait()
                print("---- daemon log ----\n" + log_path.read_text() + "--------------------")
        finally:
            peer.kill()
            peer.wait()
    finally:
        for path in root.rglob("*"):
            if path.is_dir():
                os.chmod(path, 0o755)
        shutil.rmtree(root, ignore_errors=True)


def check_running(daemon, spec, root, home, tcp_port, http_port, container_http, uid, as_root, peer_http):
    # 1. /readyz: 503 while needWaitForService holds routes back, then 200; /healthz alive throughout.
    seen, started = [], time.monotonic()
    while time.monotonic() - started < 20:
        if daemon.poll() is not None:
            fail(f"the daemon exited with {daemon.returncode}")
        status, _, body = http(http_port, "/readyz")
        if status and (not seen or seen[-1] != status):
            seen.append(status)
            print(f"/readyz {status} {body.decode(errors='replace')} after {time.monotonic() - started:.1f} s")
        if status == 200:
            break
        time.sleep(0.1)
    if seen != [503, 200]:
        fail(f"/readyz went {seen}, not 503 then 200")
    if http(http_port, "/healthz")[0] != 200:
        fail("/healthz is not 200")

    # 2. Every probe path the manifests name, on the container's console port.
    for probe, path, port in probe_paths(workload()["spec"]["template"]["spec"]):
        if port != container_http:
            fail(f"{probe} uses port {port}, not the console's {container_http}")
        status = http(http_port, path)[0]
        print(f"{probe} {path}: {status}")
        if status != 200:
            fail(f"{probe} {path} answers {status}")

    # 3. A KV put (PUT_KV_CONFIG) lands in the volume, written by the image's user.
    reply = remoting_call(tcp_port, 100, {"namespace": "deploy", "key": "checked", "value": "yes"})
    if reply["code"] != 0:
        fail(f"PUT_KV_CONFIG answered {reply}")
    # An answered change is in the journal beside kvConfig.json (a clean stop folds it in, step 6).
    kv = home / "namesrv" / "kvConfig.json"
    journal = kv.with_name(kv.name + ".journal")
    if not journal.is_file() or b"checked" not in journal.read_bytes():
        fail(f"the KV put is not in {journal}")
    if as_root and journal.stat().st_uid != uid:
        fail(f"{journal} is owned by uid {journal.stat().st_uid}, not the image's user {uid}")
    print(f"KV put written to {journal.relative_to(root)} (uid {journal.stat().st_uid})")

    # 4. The embedded page, with validators and compression.
    status, headers, body = http(http_port, "/www/")
    if status != 200 or b"<html" not in body.lower():
        fail(f"/www/ answers {status}: the page is not embedded")
    etag = headers.get("ETag")
    if not etag or http(http_port, "/www/", {"If-None-Match": etag})[0] != 304:
        fail("/www/ has no ETag, or revalidating it does not give 304")
    status, headers, _ = http(http_port, "/pkg/nameserver_wasm_bg.wasm", {"Accept-Encoding": "br"})
    if status != 200 or headers.get("Content-Encoding") != "br" or headers.get("Content-Type") != "application/wasm":
        fail(f"the wasm module: {status} {dict(headers)}")
    print("page: embedded, ETag revalidates with 304, wasm sent brotli-compressed")

    # 5. Every metric the alert rules and the dashboard name is in a live scrape.
    remoting_call(tcp_port, 105, {"topic": "NoSuchTopic"})
    peer_up = f'nameserver_peer_up{{peer="http://127.0.0.1:{peer_http}"}} 1'
    started = time.monotonic()
    while True:
        status, _, body = http(http_port, "/metrics")
        if peer_up in body.decode().splitlines():
            break
        if time.monotonic() - started > 10:
            fail(f"no `{peer_up}` in the scrape: the peer's console is not read")
        time.sleep(0.2)
    print(f"peer: {peer_up}")
    scraped = scraped_names(body.decode())
    for source in (ALERTS, DASHBOARD):
        missing = sorted(named_metrics(source) - scraped - SYNTHETIC)
        if missing:
            fail(f"{source.relative_to(ROOT)} names metrics the daemon does not export: {missing}")
        print(f"{source.relative_to(ROOT)}: all {len(named_metrics(source))} metrics named are scraped")

    # 6. SIGTERM: exit 0 within the drain the manifests allow.
    grace, pre_stop = declared_grace()
    started = time.monotonic()
    daemon.send_signal(signal.SIGTERM)
    try:
        code = daemon.wait(timeout=grace - pre_stop)
    except subprocess.TimeoutExpired:
        fail(f"no exit within {grace - pre_stop} s of SIGTERM")
    took = time.monotonic() - started
    if code != 0:
        fail(f"exit status {code} after SIGTERM")
    if not kv.is_file() or '"checked"' not in kv.read_text():
        fail(f"the KV entry is not in {kv} after the shutdown")
    if journal.exists():
        fail(f"{journal} is left after a clean stop")
    if as_root and kv.stat().st_uid != uid:
        fail(f"{kv} is owned by uid {kv.stat().st_uid}, not the image's user {uid}")
    print(f"SIGTERM: exit 0 after {took:.2f} s (grace {grace} s - preStop {pre_stop} s)")


def main():
    if len(sys.argv) < 2:
        fail(__doc__)
    command = sys.argv[1]
    if command == "cargo-line":
        print("\n".join(cargo_line()))
    elif command == "consistency":
        consistency()
    elif command == "runtime":
        runtime(sys.argv[2])
    elif command == "metrics-named":
        for path in sys.argv[2:]:
            print("\n".join(sorted(named_metrics(path))))
    else:
        fail(f"unknown command {command}")


if __name__ == "__main__":
    main()
