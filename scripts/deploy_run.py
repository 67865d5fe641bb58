#!/usr/bin/env python3
"""The image run as each of its deployers runs it.

  unshare --mount --pid --net --fork python3 scripts/deploy_run.py BINARY

(as root: scripts/test-deploy.sh runs it so, with the binary the Dockerfile's cargo line builds).

The final stage is laid out from deploy/Dockerfile's own lines in a chroot (image_root.py),
then started there:

- as the image itself (ENTRYPOINT and CMD, uid 3000, the COPY'd config read-only): /readyz
  goes 503 -> 200 with needWaitForService=true, every probe path of the Kubernetes manifests
  answers, a KV put lands in the volume, the embedded page is served with validators and
  compression, every metric the alert rules and the dashboard name is in a live scrape (a
  second daemon is its peer), a broker registered with the peer only is named by /api/peers
  and raises the divergence gauge, on whose scraped labels `promtool test rules` fires
  NameServersDiverge, and SIGTERM exits 0 within the grace the manifests declare;
- as apache's image, compose file, Helm chart and operator start apache's (NODE_ROLE with CMD
  `dummy`; `sh mqnamesrv`; `/bin/sh -c "./mqnamesrv -c …namesrv.p"` with heap options in
  JAVA_OPT; `/bin/bash mqnamesrv` as root), each as uid 3000 and as root, every row of
  deploy/README.md's deployers table run and showing how: each listens on its port, answers a route query,
  keeps a KV put in kvConfig.json and writes namesrv.log under its user's home, owned by that
  user, names ignored JVM
  options in one line, and stops with exit 0 after `sh mqshutdown namesrv` (which exits 0);
- `mqnamesrv -p` shows what JAVA_OPT's -D options set, and the entrypoint refuses a broker.
"""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

import yaml

from deploy_check import (ALERTS, COMPOSE, DASHBOARD, DEPLOY, ROOT, SYNTHETIC, declared_grace, dockerfile_instructions,
                          fail, http, manifest_docs, named_metrics, probe_paths, remoting_call, remoting_request,
                          scraped_names, workload)
from image_root import ImageRoot

# The one hang guard: how long anything may take to happen on a busy machine.
PATIENCE = 120
TCP, HTTP = 9876, 8080


def image(binary):
    root = ImageRoot(dockerfile_instructions()[-1], ROOT, binary)
    try:
        if sorted(root.expose) != sorted([TCP, HTTP]):
            fail(f"the image exposes {root.expose}, not 9876 and 8080")
        own(root)
        apache = apache_scenarios(root)
        table_agrees(apache)
        for scenario in apache + our_scenarios(root):
            deployer(root, **{k: v for k, v in scenario.items() if k not in ("row", "shown")})
        print_config(root)
        refusals(root)
    finally:
        root.close()


def nameserver(root):
    return f"{root.env['ROCKETMQ_HOME']}/bin/nameserver"


# ---------------------------------------------------------------------------- the image as built


def own(root):
    uid, _, home = root.ids()
    # This run: wait for service (so /readyz starts at 503) and a 1 s GO_AWAY window (its
    # configured length is checked by `consistency`).
    config = root.path("/etc/nameserver/namesrv.properties")
    config.chmod(0o644)
    config.write_text(config.read_text() + "\nneedWaitForService=true\nwaitSecondsForService=3\nshutdownWaitTimeSeconds=1\n")
    config.chmod(0o444)
    config.parent.chmod(0o555)
    peer_http = 8070
    peer = root.spawn([nameserver(root), "--listen-port", str(PEER_TCP), "--http-port", str(peer_http), "-Duser.home=/tmp/peer"],
                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    argv = root.entrypoint + root.cmd
    print("running the image:", " ".join(argv), f"as {root.user} in {root.workdir}")
    log_path = root.path("/tmp/own.log")
    try:
        with open(log_path, "w") as log:
            daemon = root.spawn(argv, env={"NAMESERVER_HTTP_PEERS": f"http://127.0.0.1:{peer_http}"},
                                stdout=log, stderr=subprocess.STDOUT)
        try:
            check_running(daemon, root.path(home), uid, peer_http)
        finally:
            if daemon.poll() is None:
                daemon.kill()
                daemon.wait()
            print("---- daemon log ----\n" + log_path.read_text() + "--------------------")
    finally:
        peer.kill()
        peer.wait()


def check_running(daemon, home, uid, peer_http):
    # 1. /readyz: 503 while needWaitForService holds routes back, then 200; /healthz alive throughout.
    seen, started = [], time.monotonic()
    while time.monotonic() - started < PATIENCE:
        if daemon.poll() is not None:
            fail(f"the daemon exited with {daemon.returncode}")
        status, _, body = http(HTTP, "/readyz")
        if status and (not seen or seen[-1] != status):
            seen.append(status)
            print(f"/readyz {status} {body.decode(errors='replace')} after {time.monotonic() - started:.1f} s")
        if status == 200:
            break
        time.sleep(0.1)
    if seen != [503, 200]:
        fail(f"/readyz went {seen}, not 503 then 200")
    if http(HTTP, "/healthz")[0] != 200:
        fail("/healthz is not 200")

    # 2. Every probe path the manifests name, on the container's console port.
    for probe, path, port in probe_paths(workload()["spec"]["template"]["spec"]):
        if port != HTTP:
            fail(f"{probe} uses port {port}, not the console's {HTTP}")
        status = http(HTTP, path)[0]
        print(f"{probe} {path}: {status}")
        if status != 200:
            fail(f"{probe} {path} answers {status}")

    # 3. A KV put (PUT_KV_CONFIG) lands in the volume, written by the image's user.
    reply = remoting_call(TCP, 100, {"namespace": "deploy", "key": "checked", "value": "yes"})
    if reply["code"] != 0:
        fail(f"PUT_KV_CONFIG answered {reply}")
    # An answered change is in the journal beside kvConfig.json (a clean stop folds it in, step 7).
    kv = home / "namesrv" / "kvConfig.json"
    journal = kv.with_name(kv.name + ".journal")
    if not journal.is_file() or b"checked" not in journal.read_bytes():
        fail(f"the KV put is not in {journal}")
    if journal.stat().st_uid != uid:
        fail(f"{journal} is owned by uid {journal.stat().st_uid}, not the image's user {uid}")
    print(f"KV put written to the volume (uid {journal.stat().st_uid})")

    # 4. The embedded page, with validators and compression.
    status, headers, body = http(HTTP, "/www/")
    if status != 200 or b"<html" not in body.lower():
        fail(f"/www/ answers {status}: the page is not embedded")
    etag = headers.get("ETag")
    if not etag or http(HTTP, "/www/", {"If-None-Match": etag})[0] != 304:
        fail("/www/ has no ETag, or revalidating it does not give 304")
    status, headers, _ = http(HTTP, "/pkg/nameserver_wasm_bg.wasm", {"Accept-Encoding": "br"})
    if status != 200 or headers.get("Content-Encoding") != "br" or headers.get("Content-Type") != "application/wasm":
        fail(f"the wasm module: {status} {dict(headers)}")
    print("page: embedded, ETag revalidates with 304, wasm sent brotli-compressed")

    # 5. Every metric the alert rules and the dashboard name is in a live scrape.
    remoting_call(TCP, 105, {"topic": "NoSuchTopic"})
    peer_up = f'nameserver_peer_up{{peer="http://127.0.0.1:{peer_http}"}} 1'
    started = time.monotonic()
    while True:
        status, _, body = http(HTTP, "/metrics")
        if peer_up in body.decode().splitlines():
            break
        if time.monotonic() - started > PATIENCE:
            fail(f"no `{peer_up}` in the scrape: the peer's console is not read")
        time.sleep(0.2)
    print(f"peer: {peer_up}")
    scraped = scraped_names(body.decode())
    for source in (ALERTS, DASHBOARD):
        missing = sorted(named_metrics(source) - scraped - SYNTHETIC)
        if missing:
            fail(f"{source.relative_to(ROOT)} names metrics the daemon does not export: {missing}")
        print(f"{source.relative_to(ROOT)}: all {len(named_metrics(source))} metrics named are scraped")

    # 6. A broker registered with the peer only: /api/peers names it, the divergence gauge
    #    rises, and the alert rule fires on that very series (promtool test rules).
    diverge(peer_http)

    # 7. SIGTERM: exit 0 within the drain the manifests allow.
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
    if kv.stat().st_uid != uid:
        fail(f"{kv} is owned by uid {kv.stat().st_uid}, not the image's user {uid}")
    print(f"SIGTERM: exit 0 after {took:.2f} s (grace {grace} s - preStop {pre_stop} s)")


PEER_TCP = 9870
BROKER = "127.0.0.1:10911"


def diverge(peer_http):
    peer_url = f"http://127.0.0.1:{peer_http}"
    body = json.dumps({"filterServerList": [], "topicConfigSerializeWrapper": {
        "dataVersion": {"counter": 1, "stateVersion": 0, "timestamp": 1764000000000},
        "topicConfigTable": {}}}).encode()
    fields = {"brokerAddr": BROKER, "brokerId": "0", "brokerName": "broker-only-there", "clusterName": "DefaultCluster",
              "haServerAddr": BROKER, "compressed": "false", "bodyCrc32": str(zlib.crc32(body) & 0x7FFFFFFF)}
    # The broker stays registered while its connection is open, as with Java.
    with socket.create_connection(("127.0.0.1", PEER_TCP), timeout=10) as broker:
        reply = remoting_request(broker, 103, fields, body=body)
        if reply["code"] != 0:
            fail(f"REGISTER_BROKER with the peer answered {reply}")
        series = f'nameserver_peer_divergence_seconds{{peer="{peer_url}"}}'
        started = time.monotonic()
        while True:
            peers = json.loads(http(HTTP, "/api/peers")[2] or b"{}")
            named = BROKER in json.dumps(peers)
            lines = [line for line in http(HTTP, "/metrics")[2].decode().splitlines() if line.startswith(series + " ")]
            if named and lines and float(lines[0].split()[-1]) > 0:
                break
            if time.monotonic() - started > PATIENCE:
                fail(f"/api/peers does not name {BROKER}, or {series} stays 0: {peers} {lines}")
            time.sleep(0.2)
    print(f"divergence: /api/peers names {BROKER}; {lines[0]}")
    alert_fires(peer_url)


def alert_fires(peer_url):
    """NameServersDiverge, from deploy/prometheus/alerts.yaml, fires on the scraped series once
    it passes 90 s (promtool test rules, with the labels Prometheus adds to a scrape)."""
    rule = next(r for g in yaml.safe_load(ALERTS.read_text())["groups"] for r in g["rules"]
                if r.get("alert") == "NameServersDiverge")
    labels = {"instance": "nameserver-0:8080", "job": "nameserver", "peer": peer_url}

    def render(template, value):
        text = re.sub(r"\{\{\s*\$labels\.(\w+)\s*\}\}", lambda m: labels[m.group(1)], template)
        return re.sub(r"\{\{\s*\$value \| humanizeDuration\s*\}\}", value, text)

    selector = ",".join(f'{k}="{v}"' for k, v in labels.items())
    test = {
        "rule_files": [str(ALERTS)],
        "evaluation_interval": "1m",
        "tests": [{
            "interval": "1m",
            # The gauge as the daemon exports it, growing 60 s a minute.
            "input_series": [{"series": f"nameserver_peer_divergence_seconds{{{selector}}}", "values": "0+60x5"}],
            "alert_rule_test": [
                {"eval_time": "1m", "alertname": "NameServersDiverge", "exp_alerts": []},
                {"eval_time": "3m", "alertname": "NameServersDiverge", "exp_alerts": [{
                    "exp_labels": {**labels, **rule["labels"]},
                    # At 3m the gauge is 180 s, which humanizeDuration writes "3m 0s".
                    "exp_annotations": {k: render(v, "3m 0s") for k, v in rule["annotations"].items()},
                }]},
            ],
        }],
    }
    path = Path(tempfile.mkdtemp()) / "diverge.test.yaml"
    path.write_text(yaml.safe_dump(test))
    run = subprocess.run([os.environ["PROMTOOL"], "test", "rules", str(path)], capture_output=True, text=True)
    if run.returncode != 0:
        fail(f"promtool test rules: NameServersDiverge does not fire on the daemon's series:\n{run.stdout}{run.stderr}")
    print("promtool test rules: NameServersDiverge fires on the scraped series after 90 s")


# ---------------------------------------------------------------------------- apache's deployers

HEAP = "-Xms512m -Xmx512m -Xmn256m -XX:+UseG1GC"


def apache_scenarios(root):
    """How apache's image, compose file, Helm chart and operator start a NameServer: each as
    uid 3000 (apache's user) and as root, except the operator, which runs as root only. `row`
    is the deployer's row in deploy/README.md's table, whose second cell must show `shown`."""
    chart_config = root.path("/home/rocketmq/config/namesrv.p")
    chart_config.parent.mkdir(parents=True, exist_ok=True)
    chart_config.write_text("listenPort=9877\n")
    image, compose, chart = "apache's image (`docker run`)", "apache's compose templates", "the rocketmq-k8s-helm chart"
    as_apache = [
        # rocketmq-docker: `docker run -e NODE_ROLE=nameserver` keeps the image's CMD, `dummy` in apache's.
        dict(name="apache's image (NODE_ROLE=nameserver, CMD dummy)", argv=root.entrypoint + ["dummy"],
             env={"NODE_ROLE": "nameserver"}, row=image, shown=["NODE_ROLE=nameserver", "`dummy`"]),
        dict(name="apache's image (CMD nameserver)", argv=root.entrypoint + ["nameserver"], row=image,
             shown=["./docker-entrypoint.sh", "CMD `nameserver`"]),
        # rocketmq-docker's compose templates: `command: sh mqnamesrv`, the entrypoint kept.
        dict(name="compose (command: sh mqnamesrv)", argv=root.entrypoint + ["sh", "mqnamesrv"], row=compose,
             shown=["`command: sh mqnamesrv`"]),
        # rocketmq-k8s-helm: the container's command replaces the entrypoint.
        dict(name="Helm chart (/bin/sh -c ./mqnamesrv -c namesrv.p, heap in JAVA_OPT)",
             argv=["/bin/sh", "-c", "./mqnamesrv -c /home/rocketmq/config/namesrv.p"],
             env={"JAVA_OPT": HEAP, "JAVA_HEAP_SIZE": "512m"}, port=9877, ignored=HEAP.split() + ["JAVA_HEAP_SIZE=512m"],
             row=chart, shown=['`/bin/sh -c "./mqnamesrv -c /home/rocketmq/config/namesrv.p"`', "`JAVA_HEAP_SIZE`"]),
    ]
    as_root = [dict(s, name=f"{s['name']} as root", user="0") for s in as_apache]
    # rocketmq-operator: `/bin/bash mqnamesrv` as root, heap settings in JAVA_OPT_EXT.
    operator = dict(name="operator (/bin/bash mqnamesrv as root)", argv=["/bin/bash", "mqnamesrv"], user="0",
                    env={"JAVA_OPT_EXT": "-Xms1g -Xmx1g"}, ignored=["-Xms1g", "-Xmx1g"], row="rocketmq-operator",
                    shown=["`/bin/bash mqnamesrv` as root"])
    return as_apache + as_root + [operator]


# The table's row that every deployer run shows: each one is stopped by `sh mqshutdown namesrv`.
EVERY_RUN = "`mqshutdown namesrv` (any of them)"


def deployers_table():
    """deploy/README.md's "Apache's deployers" table: {first cell: second cell}."""
    text = (DEPLOY / "README.md").read_text()
    section = text.split("\n## Apache's deployers\n", 1)[1].split("\n## ", 1)[0]
    rows = [line.strip("|").split(" | ") for line in section.splitlines() if line.startswith("| ")]
    return {cells[0].strip(): cells[1].strip() for cells in rows[1:]}


def table_agrees(scenarios):
    """Each row of the table is run, and says how its runs start the NameServer."""
    table = deployers_table()
    run = {s["row"] for s in scenarios} | {EVERY_RUN}
    for row in table.keys() - run:
        fail(f"deploy/README.md's deployers table has a row no run checks: {row}")
    for row in run - table.keys():
        fail(f"a deployer run has no row in deploy/README.md's deployers table: {row}")
    for s in scenarios:
        for words in s["shown"]:
            if words not in table[s["row"]]:
                fail(f"deploy/README.md's row {s['row']!r} does not say {words!r}, as the run {s['name']!r} does")
    print(f"-- deploy/README.md's deployers table: {len(table)} rows, each run")


CONFIG = "/etc/nameserver/namesrv.properties"
# The GO_AWAY window shortened for the test; its configured length is checked by `consistency`.
QUICK = "\nshutdownWaitTimeSeconds=1\n"


def our_scenarios(root):
    """Our compose file and Kubernetes manifest, each with its own config mounted at CONFIG."""
    compose = yaml.safe_load(COMPOSE.read_text())["services"]["namesrv"]
    pod = workload()["spec"]["template"]["spec"]
    container = pod["containers"][0]
    config_map = next(d for d in manifest_docs() if d["kind"] == "ConfigMap")["data"]["namesrv.properties"]
    return [
        dict(name="our compose file", argv=root.entrypoint + compose["command"],
             config=(DEPLOY / "namesrv.properties").read_text() + QUICK),
        dict(name="our Kubernetes manifest", argv=root.entrypoint + container["args"],
             user=f"{pod['securityContext']['runAsUser']}:{pod['securityContext']['runAsGroup']}",
             env={v["name"]: v["value"] for v in container.get("env", [])}, config=config_map + QUICK),
    ]


def deployer(root, name, argv, env=None, user=None, port=TCP, ignored=(), config=None):
    uid, _, home = root.ids(user)
    if config is not None:
        root.path(CONFIG).write_text(config)
    key = f"key{port}-{uid}-{len(name)}"
    print(f"-- {name}: {' '.join(argv)} as uid {uid}")
    log_path = root.path(f"/tmp/{key}.log")
    with open(log_path, "w") as log:
        daemon = root.spawn(argv, user=user, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for_port(daemon, port, log_path)
        reply = remoting_call(port, 105, {"topic": "TBW102"})
        print(f"   route query on {port}: code {reply['code']}")
        reply = remoting_call(port, 100, {"namespace": "deploy", "key": key, "value": "kept"})
        if reply["code"] != 0:
            fail(f"{name}: PUT_KV_CONFIG answered {reply}")
        shutdown = root.spawn(["sh", "mqshutdown", "namesrv"], user=user, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        said = shutdown.communicate(timeout=PATIENCE)[0]
        # The pid is the daemon's own, or its child's where a shell did not exec it (the chart's sh -c).
        if shutdown.returncode != 0 or not re.search(r"^Send shutdown request to mqnamesrv\(\d+\) OK$", said, re.M):
            fail(f"{name}: `sh mqshutdown namesrv` exited {shutdown.returncode} saying {said!r}")
        code = daemon.wait(timeout=PATIENCE)
        if code != 0:
            fail(f"{name}: the daemon exited {code} after mqshutdown")
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait()
    log = log_path.read_text()
    kv = root.path(home) / "namesrv" / "kvConfig.json"
    if not kv.is_file() or f'"{key}"' not in kv.read_text():
        fail(f"{name}: the KV put is not in {home}/namesrv/kvConfig.json\n{log}")
    if kv.stat().st_uid != uid:
        fail(f"{name}: {home}/namesrv/kvConfig.json is owned by uid {kv.stat().st_uid}, not {uid}")
    namesrv_log = root.path(home) / "logs" / "rocketmqlogs" / "namesrv.log"
    if not namesrv_log.is_file() or "The Name Server boot success" not in namesrv_log.read_text():
        fail(f"{name}: no boot line in {home}/logs/rocketmqlogs/namesrv.log\n{log}")
    if namesrv_log.stat().st_uid != uid:
        fail(f"{name}: {home}/logs/rocketmqlogs/namesrv.log is owned by uid {namesrv_log.stat().st_uid}, not {uid}")
    named = [line for line in log.splitlines() if "JVM options ignored" in line]
    if ignored and (len(named) != 1 or not all(f" {option}" in named[0] for option in ignored)):
        fail(f"{name}: ignored options {ignored} not named in one line:\n{log}")
    if not ignored and named:
        fail(f"{name}: JVM options named though none were given:\n{log}")
    print(f"   kvConfig.json in {home}/namesrv, namesrv.log in {home}/logs/rocketmqlogs (uid {uid}); "
          "stopped by mqshutdown, exit 0")


def wait_for_port(daemon, port, log_path):
    started = time.monotonic()
    while time.monotonic() - started < PATIENCE:
        if daemon.poll() is not None:
            fail(f"the daemon exited with {daemon.returncode}:\n{log_path.read_text()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
            return
        except OSError:
            time.sleep(0.1)
    fail(f"nothing listens on {port}:\n{log_path.read_text()}")


def print_config(root):
    """`mqnamesrv -p` shows what JAVA_OPT's -D options set."""
    run = root.spawn(["./mqnamesrv", "-p"], env={"JAVA_OPT": "-Xmx1g -Duser.home=/opt/rmq -Dtls.enable=true"},
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = run.communicate(timeout=PATIENCE)
    for wanted in ("kvConfigPath=/opt/rmq/namesrv/kvConfig.json", "useTLS=true"):
        if run.returncode != 0 or wanted not in out.splitlines():
            fail(f"`mqnamesrv -p` with JAVA_OPT -D options: exit {run.returncode}, no {wanted}:\n{out}{err}")
    print("mqnamesrv -p: -Duser.home and -Dtls.enable from JAVA_OPT shown")


def refusals(root):
    run = root.spawn(root.entrypoint + ["broker"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = run.communicate(timeout=PATIENCE)
    if run.returncode != 64 or "NameServer only" not in err:
        fail(f"the entrypoint with `broker`: exit {run.returncode}, {out}{err}")
    run = root.spawn(["sh", "mqshutdown", "namesrv"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = run.communicate(timeout=PATIENCE)[0]
    if run.returncode != 1 or out.strip() != "No mqnamesrv running.":
        fail(f"mqshutdown with nothing running: exit {run.returncode}, {out!r}")
    print("entrypoint refuses a broker (64); mqshutdown with nothing running: 1, as Java's")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        fail(__doc__)
    image(sys.argv[1])
