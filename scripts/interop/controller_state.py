#!/usr/bin/env python3
"""What a controller and a NameServer say of one broker group, one line each, for
migrate-controller.sh (its checks compare these lines).

usage: controller_state.py replicas CONTROLLER BROKER_NAME
         CONTROLLER_GET_REPLICA_INFO (1004): `master=ID addr=ADDR masterEpoch=E setEpoch=S
         inSync=1,2`, or `code=N REMARK` when the controller answers otherwise (2008: it does
         not know the group; 2007: it does not lead)
       controller_state.py apply CONTROLLER CLUSTER BROKER_NAME ID ADDR
         CONTROLLER_APPLY_BROKER_ID (1013) on the broker's behalf, `registerCheckCode`
         `ADDR;millis`: `code=0`, or `code=N REMARK` (2014: the id is taken, or is not 1 in a
         group the controller does not know)
       controller_state.py route NAMESRV TOPIC BROKER_NAME
         GET_ROUTEINFO_BY_TOPIC (105): the group's addresses by id, `0=ADDR 1=ADDR`, or
         `code=N` (17: no route)
Exit 0 when an answer arrived, 1 when the connection failed or closed.
"""
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe import call  # noqa: E402


def fastjson(body):
    """fastjson writes a Map<Long, …>'s keys unquoted ({0:"a"}); JSON wants them quoted."""
    return json.loads(re.sub(r'([{,])(-?\d+):', r'\1"\2":', body.decode()))


def replicas(controller, name):
    _, header, body = call(controller, 1004, {"brokerName": name})
    h = json.loads(header)
    ext = h.get("extFields", {})
    if h.get("code") != 0:
        return "code=%s %s" % (h.get("code"), h.get("remark", ""))
    sync = fastjson(body) if body else {}
    in_sync = sorted(sync.get("syncStateSet", []))
    return "master=%s addr=%s masterEpoch=%s setEpoch=%s inSync=%s" % (
        ext.get("masterBrokerId", "none"),
        ext.get("masterAddress", "none"),
        ext.get("masterEpoch", "none"),
        sync.get("syncStateSetEpoch", "none"),
        ",".join(str(i) for i in in_sync),
    )


def apply(controller, cluster, name, broker_id, addr):
    ext = {
        "clusterName": cluster,
        "brokerName": name,
        "appliedBrokerId": broker_id,
        "registerCheckCode": "%s;%d" % (addr, time.time() * 1000),
    }
    _, header, _ = call(controller, 1013, ext)
    h = json.loads(header)
    return "code=%s%s" % (h.get("code"), " " + h["remark"] if h.get("remark") else "")


def route(namesrv, topic, name):
    _, header, body = call(namesrv, 105, {"topic": topic})
    h = json.loads(header)
    if h.get("code") != 0:
        return "code=%s" % h.get("code")
    groups = [b for b in fastjson(body).get("brokerDatas", []) if b.get("brokerName") == name]
    addrs = groups[0].get("brokerAddrs", {}) if groups else {}
    return " ".join("%s=%s" % (i, addrs[i]) for i in sorted(addrs, key=int))


def main():
    args = sys.argv[1:]
    try:
        if len(args) == 3 and args[0] == "replicas":
            print(replicas(args[1], args[2]))
        elif len(args) == 6 and args[0] == "apply":
            print(apply(*args[1:]))
        elif len(args) == 4 and args[0] == "route":
            print(route(args[1], args[2], args[3]))
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except OSError as e:
        print("unreachable %s" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
