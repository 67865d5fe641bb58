#!/usr/bin/env python3
"""Send one RocketMQ remoting request (JSON header) and print the response.

usage: probe.py HOST:PORT CODE [EXT_FIELDS_JSON] [--omit-serialize-type] [--raw]
  CODE 105 GET_ROUTEINFO_BY_TOPIC (ext {"topic": "T"}), 106 GET_BROKER_CLUSTER_INFO,
       206 GET_ALL_TOPIC_LIST_FROM_NAMESERVER, 101 GET_KV_CONFIG ...
Prints the response header JSON and the body (decoded as UTF-8 when possible).
Exit 0 when a response arrived, 1 on connection close / timeout.
"""
import json
import socket
import struct
import sys


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = {a for a in sys.argv[1:] if a.startswith("--")}
    if len(args) < 2:
        print(__doc__)
        return 2
    host, port = args[0].rsplit(":", 1)
    header = {"code": int(args[1]), "language": "JAVA", "version": 501, "opaque": 1, "flag": 0}
    ext = json.loads(args[2]) if len(args) > 2 else {}
    header["extFields"] = {k: str(v) for k, v in ext.items()}
    if "--omit-serialize-type" not in flags:
        header["serializeTypeCurrentRPC"] = "JSON"
    hb = json.dumps(header, separators=(",", ":")).encode()
    frame = struct.pack(">ii", 4 + len(hb), len(hb)) + hb  # high byte 0 = JSON
    with socket.create_connection((host, int(port)), timeout=5) as s:
        s.sendall(frame)
        buf = b""
        try:
            while len(buf) < 4 or len(buf) < 4 + struct.unpack(">i", buf[:4])[0]:
                chunk = s.recv(65536)
                if not chunk:
                    print("CONNECTION CLOSED without response (%d bytes)" % len(buf))
                    return 1
                buf += chunk
        except socket.timeout:
            print("TIMEOUT waiting for response")
            return 1
    total, mark = struct.unpack(">ii", buf[:8])
    hlen = mark & 0xFFFFFF
    stype = (mark >> 24) & 0xFF
    rh = buf[8:8 + hlen]
    body = buf[8 + hlen:4 + total]
    if "--raw" in flags or stype != 0:
        print("header(serialize=%d): %r" % (stype, rh))
    else:
        print("header:", rh.decode())
    if body:
        try:
            print("body:", body.decode())
        except UnicodeDecodeError:
            print("body(%d bytes): %r" % (len(body), body[:200]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
