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


def call(addr, code, ext=None, serialize_type=True, timeout=5):
    """One request with a JSON header; returns (serialize type, header bytes, body bytes), or
    raises OSError when the connection closes or times out first."""
    host, port = addr.rsplit(":", 1)
    header = {"code": int(code), "language": "JAVA", "version": 501, "opaque": 1, "flag": 0}
    header["extFields"] = {k: str(v) for k, v in (ext or {}).items()}
    if serialize_type:
        header["serializeTypeCurrentRPC"] = "JSON"
    hb = json.dumps(header, separators=(",", ":")).encode()
    frame = struct.pack(">ii", 4 + len(hb), len(hb)) + hb  # high byte 0 = JSON
    with socket.create_connection((host, int(port)), timeout=timeout) as s:
        s.sendall(frame)
        buf = b""
        while len(buf) < 4 or len(buf) < 4 + struct.unpack(">i", buf[:4])[0]:
            chunk = s.recv(65536)
            if not chunk:
                raise OSError("CONNECTION CLOSED without response (%d bytes)" % len(buf))
            buf += chunk
    total, mark = struct.unpack(">ii", buf[:8])
    hlen = mark & 0xFFFFFF
    return (mark >> 24) & 0xFF, buf[8:8 + hlen], buf[8 + hlen:4 + total]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = {a for a in sys.argv[1:] if a.startswith("--")}
    if len(args) < 2:
        print(__doc__)
        return 2
    ext = json.loads(args[2]) if len(args) > 2 else {}
    try:
        stype, rh, body = call(args[0], args[1], ext, "--omit-serialize-type" not in flags)
    except socket.timeout:
        print("TIMEOUT waiting for response")
        return 1
    except OSError as e:
        print(e)
        return 1
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
