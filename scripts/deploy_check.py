#!/usr/bin/env python3
"""Checks of deploy/ that need no container engine (run by scripts/test-deploy.sh).

  deploy_check.py cargo-line              the Dockerfile's cargo build command, one word a line
  deploy_check.py consistency             drain times agree across config, unit, compose, manifests
  deploy_check.py metrics-named FILE...   metric names used by alert rules / dashboards (one a line)

The image itself, run as built and as apache's deployers run it, is checked by deploy_run.py.
"""

import json
import re
import shlex
import socket
import struct
import sys
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
    """One RocketMQ request with a JSON header on a connection of its own; returns the reply header."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        return remoting_request(s, code, fields, opaque)


def remoting_request(s, code, fields, opaque=1, body=b""):
    """One RocketMQ request on the connection `s`; returns the reply header."""
    header = json.dumps({"code": code, "extFields": fields, "flag": 0, "language": "JAVA", "opaque": opaque,
                         "serializeTypeCurrentRPC": "JSON", "version": 479}).encode()
    s.sendall(struct.pack(">ii", 4 + len(header) + len(body), len(header)) + header + body)
    data = b""
    while len(data) < 4 or len(data) < 4 + struct.unpack(">i", data[:4])[0]:
        chunk = s.recv(65536)
        if not chunk:
            fail("the NameServer closed the connection without a reply")
        data += chunk
    header_len = struct.unpack(">i", data[4:8])[0] & 0xFFFFFF
    return json.loads(data[8:8 + header_len])


def main():
    if len(sys.argv) < 2:
        fail(__doc__)
    command = sys.argv[1]
    if command == "cargo-line":
        print("\n".join(cargo_line()))
    elif command == "consistency":
        consistency()
    elif command == "metrics-named":
        for path in sys.argv[2:]:
            print("\n".join(sorted(named_metrics(path))))
    else:
        fail(f"unknown command {command}")


if __name__ == "__main__":
    main()
