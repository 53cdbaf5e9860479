// `polycodec-loadtest stream`: one large record stream through `POST /transcode?stream=true`
// (DESIGN section 12). The body (NDJSON, or a JSON array) is generated on the fly from the
// data file's records repeated until --size, sent with Transfer-Encoding: chunked on a
// connection that closes after the answer, while the chunked answer is read concurrently:
// its bytes are counted, its last chunk must arrive, and its records are counted (newlines
// for ndjson and csv, the stream reader of the output format for json and msgpack). With
// --server-pid (or the process found listening on the target port) the server's VmRSS is
// sampled every 50 ms and its VmHWM read at the end.
#include "stream_load.hpp"

#include <arpa/inet.h>
#include <dirent.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "dataset.hpp"
#include "polycodec/polycodec.hpp"
#include "polycodec/stream.hpp"

namespace polycodec::loadtest {
namespace {

using clock_type = std::chrono::steady_clock;

struct stream_options {
    std::string host;
    std::string port;
    format_id from = format_id::ndjson;
    format_id to = format_id::msgpack;
    std::uint64_t size = std::uint64_t{1} << 30;
    std::size_t chunk = 64 * 1024;
    long server_pid = 0;  ///< 0: look for the process listening on the port
    double duration_s = 600;
    bool allow_remote = false;
    std::string data;
};

int usage_error(const std::string& msg) {
    std::fprintf(stderr, "polycodec-loadtest stream: %s\n", msg.c_str());
    return 2;
}

// The units parse_size takes (lower case) and their bytes.
constexpr std::pair<std::string_view, double> size_units[] = {
    {"", 1},          {"b", 1},           {"k", 1024.0},       {"kib", 1024.0},
    {"m", 1048576.0}, {"mib", 1048576.0}, {"g", 1073741824.0}, {"gib", 1073741824.0},
    {"kb", 1e3},      {"mb", 1e6},        {"gb", 1e9}};

// "1GiB", "64KiB", "5MB", "100k", "4096": bytes; 0 on a malformed value.
std::uint64_t parse_size(const std::string& s) {
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    std::string unit = end ? end : "";
    for (char& c : unit) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    double m = 0;
    for (const auto& [name, bytes] : size_units) {
        if (unit == name) {
            m = bytes;
        }
    }
    if (m == 0 || !(v > 0)) {
        return 0;
    }
    return static_cast<std::uint64_t>(v * m);
}

bool is_loopback(const sockaddr* sa) {
    if (sa->sa_family == AF_INET) {
        auto a = ntohl(reinterpret_cast<const sockaddr_in*>(sa)->sin_addr.s_addr);
        return (a >> 24) == 127;
    }
    if (sa->sa_family == AF_INET6) {
        const auto& a = reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr;
        return IN6_IS_ADDR_LOOPBACK(&a) || (IN6_IS_ADDR_V4MAPPED(&a) && a.s6_addr[12] == 127);
    }
    return false;
}

// ---- server memory ----

// VmRSS and VmHWM of `pid` in KiB (0 when unreadable).
struct mem_kib {
    long rss = 0;
    long hwm = 0;
};
mem_kib read_mem(long pid) {
    mem_kib m;
    std::ifstream f("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(f, line)) {
        if (line.rfind("VmRSS:", 0) == 0) {
            m.rss = std::atol(line.c_str() + 6);
        } else if (line.rfind("VmHWM:", 0) == 0) {
            m.hwm = std::atol(line.c_str() + 6);
        }
    }
    return m;
}

// The process (of this user) holding the socket that listens on `port`, or 0.
long find_listener(unsigned port) {
    std::vector<std::string> inodes;
    for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
        std::ifstream f(table);
        std::string line;
        std::getline(f, line);  // header
        while (std::getline(f, line)) {
            // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
            char local[128] = {};
            char state[8] = {};
            unsigned long inode = 0;
            if (std::sscanf(line.c_str(), "%*s %127s %*s %7s %*s %*s %*s %*s %*s %lu", local,
                            state, &inode) != 3) {
                continue;
            }
            const char* colon = std::strrchr(local, ':');
            if (colon == nullptr || std::string(state) != "0A") {  // 0A: LISTEN
                continue;
            }
            if (std::strtoul(colon + 1, nullptr, 16) == port) {
                inodes.push_back("socket:[" + std::to_string(inode) + "]");
            }
        }
    }
    if (inodes.empty()) {
        return 0;
    }
    DIR* proc = opendir("/proc");
    if (proc == nullptr) {
        return 0;
    }
    long found = 0;
    while (dirent* e = readdir(proc)) {
        char* end = nullptr;
        long pid = std::strtol(e->d_name, &end, 10);
        if (pid <= 0 || *end != '\0') {
            continue;
        }
        std::string fd_dir = std::string("/proc/") + e->d_name + "/fd";
        DIR* fds = opendir(fd_dir.c_str());
        if (fds == nullptr) {
            continue;
        }
        while (dirent* fd = readdir(fds)) {
            char target[64] = {};
            std::string link = fd_dir + "/" + fd->d_name;
            ssize_t n = readlink(link.c_str(), target, sizeof target - 1);
            if (n > 0 && std::find(inodes.begin(), inodes.end(), std::string(target, n)) !=
                             inodes.end()) {
                found = pid;
                break;
            }
        }
        closedir(fds);
        if (found != 0) {
            break;
        }
    }
    closedir(proc);
    return found;
}

// ---- the body ----

// The records of the data file, each as one compact JSON text; the body repeats them, as
// NDJSON lines or as the elements of one JSON array, until `size` bytes (at a record's end).
class body_generator {
public:
    body_generator(std::vector<std::string> records, format_id f, std::uint64_t size)
        : records_(std::move(records)), json_(f == format_id::json), size_(size) {
        piece_ = json_ ? "[" : "";
    }

    /// Fills up to `cap` bytes; 0 at the end.
    std::size_t fill(char* dst, std::size_t cap) {
        std::size_t n = 0;
        while (n < cap) {
            if (pos_ == piece_.size()) {
                if (!next_piece()) {
                    break;
                }
            }
            std::size_t take = std::min(cap - n, piece_.size() - pos_);
            std::memcpy(dst + n, piece_.data() + pos_, take);
            pos_ += take;
            n += take;
        }
        produced_ += n;
        return n;
    }
    std::uint64_t records() const { return count_; }
    std::uint64_t produced() const { return produced_; }

private:
    bool next_piece() {
        pos_ = 0;
        if (done_) {
            piece_ = {};
            return false;
        }
        if (produced_pieces_ >= size_ && count_ > 0) {
            done_ = true;
            piece_ = json_ ? std::string_view("]") : std::string_view();
            return !piece_.empty();
        }
        const std::string& r = records_[count_ % records_.size()];
        if (json_ && count_ > 0) {
            // The separator goes with the record that follows it.
            sep_.assign(",");
            sep_ += r;
            piece_ = sep_;
        } else {
            piece_ = r;
        }
        ++count_;
        produced_pieces_ += piece_.size();
        return true;
    }

    std::vector<std::string> records_;
    bool json_;
    std::uint64_t size_;
    std::string_view piece_;
    std::size_t pos_ = 0;
    std::string sep_;
    std::uint64_t count_ = 0;
    std::uint64_t produced_ = 0;
    std::uint64_t produced_pieces_ = 0;
    bool done_ = false;
};

// The data file's records as compact JSON texts (ndjson lines, with their '\n' for ndjson).
// For CSV answers the list is rotated so that the record with the most columns comes first:
// CSV stream mode takes its header from the first record.
bool load_records(const stream_options& opt, std::vector<std::string>& out, std::string& err) {
    std::string path = opt.data.empty() ? fixtures_dir() + "/records.json"
                                        : opt.data;
    bool ok = false;
    std::string json = read_file(path, ok);
    if (!ok) {
        err = "cannot read " + path;
        return false;
    }
    document doc;
    if (auto r = decode(format_id::json, json, doc); !r) {
        err = path + ": " + describe(r.error());
        return false;
    }
    if (doc.root().kind() != kind::array || doc.root().size() == 0) {
        err = path + ": the data must be a non-empty JSON array of records";
        return false;
    }
    std::size_t best = 0;
    std::size_t best_columns = 0;
    for (value v : doc.root().items()) {
        document one;
        {
            builder b(one);
            b.begin_array();
            b.add_copy(v);
            b.end_array();
        }
        output_buffer line;
        if (auto r = encode(format_id::ndjson, one, line); !r) {
            err = path + ": " + describe(r.error());
            return false;
        }
        std::string text = line.str();
        if (opt.from == format_id::json && !text.empty() && text.back() == '\n') {
            text.pop_back();
        }
        if (opt.to == format_id::csv) {
            output_buffer csv;
            if (encode(format_id::csv, one, csv)) {
                std::string_view head = csv.view().substr(0, csv.view().find('\n'));
                std::size_t columns = 1 + static_cast<std::size_t>(
                                              std::count(head.begin(), head.end(), ','));
                if (columns > best_columns) {
                    best_columns = columns;
                    best = out.size();
                }
            }
        }
        out.push_back(std::move(text));
    }
    std::rotate(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(best), out.end());
    return true;
}

// ---- the answer ----

// Incremental Transfer-Encoding: chunked decoder; hands each piece of payload to `sink`.
class chunked_decoder {
public:
    enum class state { size_line, data, data_crlf, trailers, done, bad };

    template <class Sink>
    void feed(const char* p, std::size_t n, Sink&& sink) {
        while (n > 0 && st_ != state::done && st_ != state::bad) {
            switch (st_) {
            case state::size_line:
            case state::data_crlf:
            case state::trailers: {
                const char* nl = static_cast<const char*>(std::memchr(p, '\n', n));
                std::size_t take = nl ? static_cast<std::size_t>(nl - p) + 1 : n;
                line_.append(p, take);
                p += take;
                n -= take;
                if (line_.size() > 4096) {
                    st_ = state::bad;
                    break;
                }
                if (nl != nullptr) {
                    line_done();
                }
                break;
            }
            case state::data: {
                std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(left_, n));
                sink(p, take);
                p += take;
                n -= take;
                left_ -= take;
                if (left_ == 0) {
                    st_ = state::data_crlf;
                }
                break;
            }
            default:
                break;
            }
        }
    }
    state current() const { return st_; }
    std::uint64_t chunks() const { return chunks_; }

private:
    void line_done() {
        std::string l = line_;
        line_.clear();
        while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) {
            l.pop_back();
        }
        if (st_ == state::data_crlf) {
            st_ = l.empty() ? state::size_line : state::bad;
            return;
        }
        if (st_ == state::trailers) {
            if (l.empty()) {
                st_ = state::done;
            }
            return;
        }
        char* end = nullptr;
        std::uint64_t size = std::strtoull(l.c_str(), &end, 16);
        if (end == l.c_str() || (*end != '\0' && *end != ';' && *end != ' ')) {
            st_ = state::bad;
            return;
        }
        if (size == 0) {
            st_ = state::trailers;
            return;
        }
        ++chunks_;
        left_ = size;
        st_ = state::data;
    }

    state st_ = state::size_line;
    std::string line_;
    std::uint64_t left_ = 0;
    std::uint64_t chunks_ = 0;
};

bool send_all(int fd, const char* p, std::size_t n, const std::atomic<bool>& stop) {
    while (n > 0) {
        if (stop.load(std::memory_order_relaxed)) {
            return false;
        }
        ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
        if (k < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) {
                continue;  // the send timeout lets the stop flag be seen
            }
            return false;
        }
        p += k;
        n -= static_cast<std::size_t>(k);
    }
    return true;
}

std::string lower(std::string s) {
    for (char& c : s) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return s;
}

double mib(std::uint64_t b) { return static_cast<double>(b) / (1024.0 * 1024.0); }

const std::pair<std::string_view, std::string stream_options::*> stream_texts[] = {
    {"--data", &stream_options::data}};
const std::pair<std::string_view, bool stream_options::*> stream_flags[] = {
    {"--allow-remote", &stream_options::allow_remote}};

}  // namespace

int run_stream_load(int argc, char** argv) {
    stream_options opt;
    std::string target;
    for (int i = 0; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&] { return option_value(argc, argv, i, "polycodec-loadtest stream"); };
        if (a == "--target") {
            target = value();
        } else if (a == "--format" || a == "--to") {
            std::string name = value();
            const format_info* f = find_format_by_name(name);
            bool in = a == "--format";
            if (f == nullptr ||
                (in ? (f->id != format_id::ndjson && f->id != format_id::json)
                    : (f->id != format_id::ndjson && f->id != format_id::json &&
                       f->id != format_id::csv && f->id != format_id::msgpack))) {
                return usage_error(a + " " + name + ": expected " +
                                   (in ? "ndjson or json" : "csv, msgpack, ndjson or json"));
            }
            (in ? opt.from : opt.to) = f->id;
        } else if (a == "--size") {
            opt.size = parse_size(value());
            if (opt.size == 0) {
                return usage_error("--size: expected a size such as 1GiB, 64MiB or 5000000");
            }
        } else if (a == "--chunk") {
            opt.chunk = static_cast<std::size_t>(parse_size(value()));
            if (opt.chunk == 0 || opt.chunk > (std::size_t{64} << 20)) {
                return usage_error("--chunk: expected a size between 1 byte and 64MiB");
            }
        } else if (a == "--server-pid") {
            opt.server_pid = std::atol(value().c_str());
            if (opt.server_pid <= 0) {
                return usage_error("--server-pid: expected a process id");
            }
        } else if (a == "--duration") {
            opt.duration_s = parse_duration(value());
        } else if (!set_listed_option(opt, a, value, stream_texts, stream_flags)) {
            return usage_error("unknown argument " + a);
        }
    }
    if (std::string bad = check_target_and_duration(target, opt.host, opt.port, opt.duration_s);
        !bad.empty()) {
        return usage_error(bad);
    }

    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    if (int rc = getaddrinfo(opt.host.c_str(), opt.port.c_str(), &hints, &res); rc != 0) {
        return usage_error("cannot resolve " + target + ": " + gai_strerror(rc));
    }
    struct ai_free {
        addrinfo* p;
        ~ai_free() { freeaddrinfo(p); }
    } res_guard{res};
    for (addrinfo* a = res; a != nullptr; a = a->ai_next) {
        if (!opt.allow_remote && !is_loopback(a->ai_addr)) {
            return usage_error(target + " is not a loopback address (127.0.0.0/8 or ::1); "
                               "pass --allow-remote to load another host");
        }
    }

    std::vector<std::string> records;
    std::string err;
    if (!load_records(opt, records, err)) {
        return usage_error(err);
    }
    if (opt.server_pid == 0) {
        opt.server_pid = find_listener(static_cast<unsigned>(std::atoi(opt.port.c_str())));
    }

    int fd = -1;
    for (addrinfo* a = res; a != nullptr && fd < 0; a = a->ai_next) {
        fd = ::socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if (fd < 0) {
            continue;
        }
        if (::connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
            ::close(fd);
            fd = -1;
        }
    }
    if (fd < 0) {
        std::fprintf(stderr, "polycodec-loadtest stream: cannot connect to %s: %s\n",
                     target.c_str(), std::strerror(errno));
        return 1;
    }
    timeval tv{1, 0};  // blocking calls wake every second to see the deadline
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);

    const format_info& from = *find_format(opt.from);
    const format_info& to = *find_format(opt.to);
    std::printf("# polycodec-loadtest stream --target %s --format %s --to %s --size %llu "
                "--chunk %zu --duration %.0fs\n",
                target.c_str(), std::string(from.name).c_str(), std::string(to.name).c_str(),
                static_cast<unsigned long long>(opt.size), opt.chunk, opt.duration_s);
    std::printf("# data: %s (%zu records repeated)\n",
                opt.data.empty() ? "fixtures/records.json" : opt.data.c_str(), records.size());
    if (opt.server_pid != 0) {
        std::printf("# server pid: %ld\n", opt.server_pid);
    } else {
        std::printf("# server pid: unknown (no RSS figures)\n");
    }
    std::fflush(stdout);

    std::atomic<bool> stop{false};
    std::atomic<std::uint64_t> sent{0};
    std::atomic<std::uint64_t> received{0};
    std::atomic<bool> send_ok{false};
    body_generator gen(std::move(records), opt.from, opt.size);
    auto start = clock_type::now();
    auto deadline = start + std::chrono::duration_cast<clock_type::duration>(
                                std::chrono::duration<double>(opt.duration_s));

    // Server memory: VmRSS every 50 ms.
    mem_kib first_mem;
    std::atomic<long> peak_rss{0};
    std::atomic<std::uint64_t> samples{0};
    std::atomic<bool> sampling{true};
    if (opt.server_pid != 0) {
        first_mem = read_mem(opt.server_pid);
        peak_rss = first_mem.rss;
    }
    std::thread sampler([&] {
        while (opt.server_pid != 0 && sampling.load()) {
            long rss = read_mem(opt.server_pid).rss;
            if (rss > peak_rss.load()) {
                peak_rss = rss;
            }
            ++samples;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    });

    std::thread writer([&] {
        std::string head = "POST /transcode?stream=true HTTP/1.1\r\nHost: " + opt.host +
                           "\r\nContent-Type: " + std::string(from.media_types[0]) +
                           "\r\nAccept: " + std::string(to.media_types[0]) +
                           "\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
        if (!send_all(fd, head.data(), head.size(), stop)) {
            return;
        }
        std::vector<char> buf(opt.chunk + 32);
        for (;;) {
            if (clock_type::now() >= deadline) {
                return;
            }
            // Chunk-size line, payload, CRLF in one send.
            char* payload = buf.data() + 24;
            std::size_t n = gen.fill(payload, opt.chunk);
            if (n == 0) {
                break;
            }
            char line[24];
            int l = std::snprintf(line, sizeof line, "%zx\r\n", n);
            char* p = payload - l;
            std::memcpy(p, line, static_cast<std::size_t>(l));
            payload[n] = '\r';
            payload[n + 1] = '\n';
            if (!send_all(fd, p, n + static_cast<std::size_t>(l) + 2, stop)) {
                return;
            }
            sent.fetch_add(n, std::memory_order_relaxed);
        }
        static const char last[] = "0\r\n\r\n";
        if (send_all(fd, last, sizeof last - 1, stop)) {
            send_ok = true;
        }
    });

    // The answer: head, then the chunked payload.
    std::string head;
    bool head_done = false;
    int status = 0;
    bool chunked = false;
    bool concatenated = false;
    std::string error_body;
    chunked_decoder dec;
    std::uint64_t newlines = 0;
    std::optional<record_reader> counter;
    document rec;
    std::string count_error;
    // Reads the records the counter holds, up to its next need of input (or an error).
    auto read_records = [&] {
        while (count_error.empty()) {
            auto s = counter->next(rec);
            if (!s) {
                count_error = describe(s.error());
            } else if (*s != record_reader::step::record) {
                break;
            }
        }
    };
    auto count_records = [&](const char* p, std::size_t n) {
        received.fetch_add(n, std::memory_order_relaxed);
        if (status != 200) {
            if (error_body.size() < 2000) {
                error_body.append(p, std::min<std::size_t>(n, 2000));
            }
            return;
        }
        if (!counter) {
            newlines += static_cast<std::uint64_t>(std::count(p, p + n, '\n'));
            return;
        }
        counter->feed({p, n});
        read_records();
    };
    std::vector<char> in(256 * 1024);
    bool timed_out = false;
    std::string read_error;
    auto last_progress = clock_type::now();
    for (;;) {
        auto now = clock_type::now();
        if (now >= deadline) {
            timed_out = true;
            break;
        }
        if (now - last_progress >= std::chrono::milliseconds(500)) {
            last_progress = now;
            double s = std::chrono::duration<double>(now - start).count();
            std::fprintf(stderr, "\rstream %s>%s  sent %8.1f MiB (%6.1f MB/s)  received %8.1f MiB"
                                 "  server rss %6.1f MiB",
                         std::string(from.name).c_str(), std::string(to.name).c_str(),
                         mib(sent.load()), static_cast<double>(sent.load()) / s / 1e6,
                         mib(received.load()), static_cast<double>(peak_rss.load()) / 1024.0);
        }
        ssize_t k = ::recv(fd, in.data(), in.size(), 0);
        if (k < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) {
                continue;
            }
            read_error = std::strerror(errno);
            break;
        }
        if (k == 0) {
            break;  // the server closed the connection
        }
        const char* p = in.data();
        std::size_t n = static_cast<std::size_t>(k);
        if (!head_done) {
            head.append(p, n);
            auto end = head.find("\r\n\r\n");
            if (end == std::string::npos) {
                if (head.size() > 65536) {
                    read_error = "answer head over 64 KiB";
                    break;
                }
                continue;
            }
            head_done = true;
            std::string rest = head.substr(end + 4);
            head.resize(end);
            if (head.size() >= 12 && head.rfind("HTTP/1.", 0) == 0) {
                status = std::atoi(head.c_str() + 9);
            }
            std::string lh = lower(head);
            chunked = lh.find("\r\ntransfer-encoding: chunked") != std::string::npos;
            concatenated = lh.find("\r\npolycodec-stream: concatenated") != std::string::npos;
            if (status == 200 && (opt.to == format_id::msgpack || opt.to == format_id::json)) {
                counter.emplace(opt.to, decode_options{});
            }
            if (!rest.empty()) {
                if (chunked) {
                    dec.feed(rest.data(), rest.size(), count_records);
                } else {
                    count_records(rest.data(), rest.size());
                }
            }
            if (status != 200) {
                stop = true;  // the body will not be read any further
            }
            continue;
        }
        if (chunked) {
            dec.feed(p, n, count_records);
            if (dec.current() == chunked_decoder::state::done ||
                dec.current() == chunked_decoder::state::bad) {
                break;
            }
        } else {
            count_records(p, n);
        }
    }
    auto end = clock_type::now();
    stop = true;
    ::shutdown(fd, SHUT_RDWR);
    writer.join();
    ::close(fd);
    sampling = false;
    sampler.join();
    mem_kib last_mem = opt.server_pid != 0 ? read_mem(opt.server_pid) : mem_kib{};
    if (last_mem.rss > peak_rss.load()) {
        peak_rss = last_mem.rss;
    }
    std::fprintf(stderr, "\r%110s\r", "");

    bool complete = status == 200 && chunked && dec.current() == chunked_decoder::state::done;
    if (counter && complete) {
        counter->finish();
        read_records();
    }
    std::uint64_t records_out = 0;
    if (counter) {
        records_out = counter->records();
    } else if (opt.to == format_id::csv) {
        records_out = newlines > 0 ? newlines - 1 : 0;  // the header line
    } else {
        records_out = newlines;
    }
    double secs = std::chrono::duration<double>(end - start).count();
    std::uint64_t in_bytes = sent.load();
    std::uint64_t out_bytes = received.load();
    std::printf("from,to,in_bytes,out_bytes,records_in,records_out,seconds,in_MBps,out_MBps,"
                "server_rss_start_kib,server_rss_peak_kib,server_hwm_kib,rss_samples,complete\n");
    std::printf("%s,%s,%llu,%llu,%llu,%llu,%.6f,%.1f,%.1f,%ld,%ld,%ld,%llu,%s\n",
                std::string(from.name).c_str(), std::string(to.name).c_str(),
                static_cast<unsigned long long>(in_bytes),
                static_cast<unsigned long long>(out_bytes),
                static_cast<unsigned long long>(gen.records()),
                static_cast<unsigned long long>(records_out), secs,
                static_cast<double>(in_bytes) / secs / 1e6,
                static_cast<double>(out_bytes) / secs / 1e6, first_mem.rss, peak_rss.load(),
                last_mem.hwm, static_cast<unsigned long long>(samples.load()),
                complete ? "yes" : "no");
    int rc = 0;
    if (status != 200) {
        std::printf("# error: answer status %d: %s\n", status, error_body.substr(0, 500).c_str());
        rc = 1;
    }
    if (timed_out) {
        std::printf("# error: --duration %.0fs reached before the answer was complete\n",
                    opt.duration_s);
        rc = 1;
    }
    if (!read_error.empty()) {
        std::printf("# error: read: %s\n", read_error.c_str());
        rc = 1;
    }
    if (status == 200 && !complete) {
        std::printf("# error: the answer ended without its last chunk (%s)\n",
                    chunked ? "a cut transfer" : "not chunked");
        rc = 1;
    }
    if (!send_ok.load() && rc == 0) {
        std::printf("# error: the body was not sent whole\n");
        rc = 1;
    }
    if (!count_error.empty()) {
        std::printf("# error: answer record %llu: %s\n",
                    static_cast<unsigned long long>(records_out), count_error.c_str());
        rc = 1;
    }
    if (rc == 0 && records_out != gen.records()) {
        std::printf("# error: %llu records sent, %llu in the answer\n",
                    static_cast<unsigned long long>(gen.records()),
                    static_cast<unsigned long long>(records_out));
        rc = 1;
    }
    if (concatenated) {
        std::printf("# answer: Polycodec-Stream: concatenated (MessagePack values, no array)\n");
    }
    std::printf("# %s\n", rc == 0 ? "ok" : "FAILED");
    std::fflush(stdout);
    return rc;
}

}  // namespace polycodec::loadtest
