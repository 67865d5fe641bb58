#!/usr/bin/env python3
"""Logging TCP proxy for the RocketMQ remoting protocol (loopback only).

usage: wiretap.py LISTEN_PORT UPSTREAM_HOST:PORT [--body N]
Point a broker/client at 127.0.0.1:LISTEN_PORT instead of the NameServer and
every frame in both directions is printed as one JSON line:
  {"t": secs, "conn": n, "dir": ">" (to upstream) or "<", "len": total,
   "ser": "JSON"|"ROCKETMQ", "header": {...} or hex, "body": first N chars}
--body N  how many body characters to show (default 400, 0 = none).
"""
import asyncio
import json
import struct
import sys
import time

BODY = 400
T0 = time.time()
conn_seq = 0


def describe(frame):
    total = len(frame) - 4
    mark = struct.unpack(">i", frame[4:8])[0]
    ser = (mark >> 24) & 0xFF
    hlen = mark & 0xFFFFFF
    header = frame[8:8 + hlen]
    body = frame[8 + hlen:]
    out = {"len": total, "ser": "JSON" if ser == 0 else "ROCKETMQ"}
    if ser == 0:
        try:
            out["header"] = json.loads(header)
        except ValueError:
            out["header_raw"] = header.decode("utf-8", "replace")
    else:
        out["header_hex"] = header[:64].hex()
    if body and BODY:
        out["body_len"] = len(body)
        out["body"] = body[:BODY].decode("utf-8", "replace")
    elif body:
        out["body_len"] = len(body)
    return out


async def pump(reader, writer, conn, direction):
    buf = b""
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            writer.write(data)
            await writer.drain()
            buf += data
            while len(buf) >= 4:
                need = 4 + struct.unpack(">i", buf[:4])[0]
                if len(buf) < need:
                    break
                frame, buf = buf[:need], buf[need:]
                rec = {"t": round(time.time() - T0, 3), "conn": conn, "dir": direction}
                rec.update(describe(frame))
                print(json.dumps(rec, ensure_ascii=False), flush=True)
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        if buf:
            print(json.dumps({"conn": conn, "dir": direction, "partial_bytes": len(buf)}), flush=True)
        try:
            writer.close()
        except Exception:
            pass


async def handle(cr, cw, up_host, up_port):
    global conn_seq
    conn_seq += 1
    conn = conn_seq
    peer = cw.get_extra_info("peername")
    print(json.dumps({"t": round(time.time() - T0, 3), "conn": conn, "open": "%s:%s" % peer[:2]}), flush=True)
    try:
        ur, uw = await asyncio.open_connection(up_host, up_port)
    except OSError as e:
        print(json.dumps({"conn": conn, "upstream_error": str(e)}), flush=True)
        cw.close()
        return
    await asyncio.gather(pump(cr, uw, conn, ">"), pump(ur, cw, conn, "<"))
    print(json.dumps({"t": round(time.time() - T0, 3), "conn": conn, "closed": True}), flush=True)


async def main():
    global BODY
    args = [a for a in sys.argv[1:]]
    if "--body" in args:
        i = args.index("--body")
        BODY = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        print(__doc__)
        sys.exit(2)
    listen = int(args[0])
    host, port = args[1].rsplit(":", 1)
    server = await asyncio.start_server(lambda r, w: handle(r, w, host, int(port)), "127.0.0.1", listen)
    print(json.dumps({"listening": "127.0.0.1:%d" % listen, "upstream": args[1]}), flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
