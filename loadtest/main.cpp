// polycodec-loadtest: bench (in-process codec table), http and tcp (load against a running
// server), stream (one large record stream through HTTP stream mode), peers (the codec next to
// the specialised C++ libraries).
#include <cstdio>
#include <string_view>

#include "bench.hpp"
#include "load.hpp"
#include "peers.hpp"
#include "stream_load.hpp"

namespace {
const char* usage =
    "usage:\n"
    "  polycodec-loadtest bench [--data FILE.json]... [--ms 2000] [--stats] [--pin CPU]\n"
    "                           [--formats all|json,cbor,...,stream] [--no-stream]\n"
    "      one row per format, then the conversion rows ndjson>msgpack and json>ndjson, each\n"
    "      /document (whole document) and /stream (record_reader/record_writer, 64 KiB chunks)\n"
    "  polycodec-loadtest http|tcp --target HOST:PORT [--concurrency 64] [--duration 10s]\n"
    "                           [--requests N] [--pipeline 8] [--formats all|json,cbor,...]\n"
    "                           [--data FILE.json] [--schema NAME [--schema-file F]]\n"
    "                           [--allow-remote] [--tls [--cacert PEM | --insecure]]\n"
    "                           [--new-connections]\n"
    "      --tls: HTTPS / TLS on the TCP port, verified against --cacert (else the system's\n"
    "      CAs) and the target's name; --new-connections (http): one connection and TLS\n"
    "      handshake per request, so ops/s is connections/s\n"
    "  polycodec-loadtest stream --target HOST:PORT [--format ndjson|json]\n"
    "                           [--to csv|msgpack|ndjson|json] [--size 1GiB] [--chunk 64KiB]\n"
    "                           [--server-pid PID] [--duration 600s] [--data FILE.json]\n"
    "                           [--allow-remote]\n"
    "      one record stream of --size bytes (the data's records repeated, generated on the\n"
    "      fly) sent chunked to POST /transcode?stream=true; checks the answer is complete\n"
    "      and holds every record; MB/s in and out, and the server's peak RSS (VmRSS every\n"
    "      50 ms, VmHWM) of --server-pid or of the process listening on the port\n"
    "  polycodec-loadtest peers [--data FILE.json]... [--ms 1000]\n";
}

int main(int argc, char** argv) {
    std::string_view cmd = argc > 1 ? argv[1] : "";
    if (cmd == "bench") {
        return polycodec::loadtest::run_bench(argc - 2, argv + 2);
    }
    if (cmd == "http" || cmd == "tcp") {
        return polycodec::loadtest::run_load(cmd == "http", argc - 2, argv + 2);
    }
    if (cmd == "stream") {
        return polycodec::loadtest::run_stream_load(argc - 2, argv + 2);
    }
    if (cmd == "peers") {
#ifdef POLYCODEC_HAVE_PEERS
        return polycodec::loadtest::run_peers(argc - 2, argv + 2);
#else
        std::fputs("polycodec-loadtest: peers was not built (its libraries were missing at "
                   "configure time; scripts/deps.sh installs them)\n",
                   stderr);
        return 2;
#endif
    }
    if (cmd == "--help" || cmd == "help") {
        std::fputs(usage, stdout);
        return 0;
    }
    std::fputs(usage, stderr);
    return 2;
}
