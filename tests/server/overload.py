"""The big-scale admission check of DESIGN section 13 (not part of the test suite; run by
scripts/overload on a release build): `polycodec serve --memory-budget 1GiB` on 127.0.0.1, then
CLIENTS concurrent uploads of one SIZE-byte JSON document (JSON -> MessagePack), each sent whole
before its answer is read. Checks: every answer is 200 or 503 with Retry-After: 1; the 200s are
the document (one decoded by an independent MessagePack reader and compared with Python's json,
the others byte-equal to it); the server's peak RSS (VmHWM) stays within idle + 1.25 x budget;
/healthz answers during the storm; polycodec_admission_rejected_total{reason="budget"} equals
the 503s; polycodec_memory_reserved_bytes is back to 0 afterwards. Bounded: one upload per
client, a deadline for the whole storm, loopback only. Prints the figures; exit 0 when all hold.

    POLYCODEC_BIN=build/release/server/polycodec python3 tests/server/overload.py \\
        [--budget 1GiB] [--clients 300] [--size 60000000] [--threads N] [--deadline 600]
        [--attempts 1]
"""
import argparse
import json
import os
import platform
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_common import Server  # noqa: E402
from test_budget import (decode_msgpack, get, metric, post, records_json,  # noqa: E402
                         status_kib)


def size_arg(text):
    units = {"GiB": 1 << 30, "MiB": 1 << 20, "KiB": 1 << 10, "GB": 10**9, "MB": 10**6}
    for u, m in units.items():
        if text.endswith(u):
            return int(text[:-len(u)]) * m
    return int(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget", default="1GiB")
    ap.add_argument("--clients", type=int, default=300)
    ap.add_argument("--size", type=size_arg, default=60_000_000)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--deadline", type=float, default=600, help="seconds for the whole storm")
    ap.add_argument("--attempts", type=int, default=1,
                    help="uploads per client: a 503 is retried after its Retry-After, up to this")
    a = ap.parse_args()
    if a.clients > 1000 or a.size > 512 * 10**6 or not 1 <= a.attempts <= 5:
        sys.exit("overload: at most 1000 clients, 512 MB per upload and 5 attempts")
    budget = size_arg(a.budget)
    print("overload: generating a %d-byte JSON document" % a.size, flush=True)
    doc = records_json(a.size, 13)
    expected = json.loads(doc)
    max_body = "%dMiB" % ((len(doc) >> 20) + 8)
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)
            print("FAILED: " + what, flush=True)

    with Server("--threads", str(a.threads), "--memory-budget", str(budget), "--max-body",
                max_body, "--body-timeout", "120s", "--max-connections", "2000",
                "--log-level", "warn") as server:
        port = server.http_port
        pid = server.proc.pid
        for _ in range(a.threads):
            check(post(port, b'[{"a":1}]').status == 200, "warm-up request")
        idle_kib = status_kib(pid, "VmRSS")
        answers = []
        errors = []
        lock = threading.Lock()
        start = threading.Barrier(a.clients + 1)

        def upload():
            start.wait()
            for attempt in range(a.attempts):
                try:
                    r = post(port, doc, timeout=a.deadline)
                except Exception as e:  # noqa: BLE001 - counted and reported
                    with lock:
                        errors.append(repr(e))
                    return
                with lock:
                    answers.append(r)
                if r.status != 503 or attempt + 1 == a.attempts:
                    return
                time.sleep(float(r.headers.get("retry-after", "1")))

        storm_on = threading.Event()
        storm_on.set()
        health = []
        rss_samples = []

        def probe():
            while storm_on.is_set():
                t0 = time.monotonic()
                try:
                    s = get(port, "/healthz", timeout=10).status
                except Exception as e:  # noqa: BLE001
                    s = repr(e)
                health.append((s, time.monotonic() - t0))
                rss_samples.append(status_kib(pid, "VmRSS"))
                time.sleep(0.1)

        threads = [threading.Thread(target=upload, daemon=True) for _ in range(a.clients)]
        for t in threads:
            t.start()
        prober = threading.Thread(target=probe, daemon=True)
        prober.start()
        t0 = time.monotonic()
        start.wait()
        for t in threads:
            t.join(max(0.0, a.deadline - (time.monotonic() - t0)))
        storm_s = time.monotonic() - t0
        storm_on.clear()
        prober.join(15)
        check(all(not t.is_alive() for t in threads), "uploads still running at the deadline")
        check(not errors, "client errors: %r" % errors[:5])
        ok = [r for r in answers if r.status == 200]
        busy = [r for r in answers if r.status == 503]
        other = [r for r in answers if r.status not in (200, 503)]
        check(not other, "answers other than 200/503: %r" % other[:3])
        check(all(r.headers.get("retry-after") == "1" for r in busy), "a 503 without Retry-After")
        check(len(ok) >= 1, "no upload succeeded")
        if ok:
            first = ok[0].body
            n = len(expected)
            head_ok = (first[0] == 0xdd and struct.unpack(">I", first[1:5])[0] == n) or (
                first[0] == 0xdc and struct.unpack(">H", first[1:3])[0] == n)
            check(head_ok, "MessagePack array header does not carry the %d records" % n)
            check(decode_msgpack(first) == expected, "the 200 answer differs from the document")
            check(all(r.body == first for r in ok), "200 answers differ from each other")
        check(bool(health) and all(s == 200 for s, _ in health),
              "/healthz failed during the storm: %r" % [h for h in health if h[0] != 200][:3])
        rejected = metric(port, "polycodec_admission_rejected_total",
                          {"transport": "http", "reason": "budget"})
        check(rejected == len(busy), "rejected_total{reason=budget} %d != %d 503s"
              % (rejected, len(busy)))
        deadline = time.monotonic() + 30
        while metric(port, "polycodec_memory_reserved_bytes") != 0 and \
                time.monotonic() < deadline:
            time.sleep(0.1)
        reserved = metric(port, "polycodec_memory_reserved_bytes")
        check(reserved == 0, "reserved bytes stayed at %d" % reserved)
        hwm_kib = status_kib(pid, "VmHWM")
        limit_kib = idle_kib + budget * 5 // 4 // 1024
        check(hwm_kib <= limit_kib, "peak RSS %d KiB over idle + 1.25 x budget = %d KiB"
              % (hwm_kib, limit_kib))
        latencies = sorted(d for _, d in health)
        print("overload: machine %s, %d CPUs, %s; server threads %d" % (
            platform.node(), os.cpu_count() or 0, platform.platform(), a.threads))
        print("overload: budget %d bytes, %d clients (up to %d attempts each) x %d-byte uploads, "
              "%d answers in %.1f s: %d x 200, %d x 503 (rejected_total{reason=budget} %d), "
              "%d errors" % (budget, a.clients, a.attempts, len(doc), len(answers), storm_s,
                             len(ok), len(busy), rejected, len(errors)))
        print("overload: RSS idle %d KiB, peak (VmHWM) %d KiB = idle + %.2f x budget "
              "(limit idle + 1.25 x budget = %d KiB), highest sampled %d KiB" % (
                  idle_kib, hwm_kib, (hwm_kib - idle_kib) * 1024 / budget, limit_kib,
                  max(rss_samples or [0])))
        if latencies:
            print("overload: /healthz %d probes during the storm, all 200: %s; latency median "
                  "%.1f ms, max %.1f ms" % (len(latencies), all(s == 200 for s, _ in health),
                                            latencies[len(latencies) // 2] * 1000,
                                            latencies[-1] * 1000))
        check(server.stop() == 0, "the server did not exit cleanly")
    print("overload: %s" % ("FAILED: " + "; ".join(failures) if failures else "all checks hold"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
