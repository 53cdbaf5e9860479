// Record framers of the binary formats: cbor (the elements of a top-level array, definite or
// indefinite, or an RFC 8742 sequence), msgpack (the elements of a top-level array, or
// concatenated values) and bson (concatenated documents, as mongodump writes them). Each finds
// where one item ends from its headers alone, resumably, without decoding it.
#include <cstring>
#include <vector>

#include "stream/framer.hpp"

namespace polycodec::stream_detail {
namespace {

std::uint64_t be(const unsigned char* p, int n) {
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) {
        v = (v << 8) | p[i];
    }
    return v;
}

// How an item scan went.
enum class scan : std::uint8_t { done, more, bad };

// An open container while scanning: items still to come, or until a break (CBOR).
struct open_item {
    std::uint64_t remaining;
    bool indefinite;
};

// The shared scanning loop: `head` reads one header at `i` and says how many bytes it takes,
// how many child items follow (or an indefinite container), and its payload length.
struct head_info {
    std::size_t header = 0;     // header bytes
    std::uint64_t payload = 0;  // bytes after the header belonging to this item
    std::uint64_t children = 0;
    bool indefinite = false;  // children until a break
    bool is_break = false;    // CBOR 0xff
};

class item_scanner {
public:
    explicit item_scanner(std::uint32_t max_depth) : max_depth_(max_depth) {}

    void reset() {
        stack_.clear();
        at_ = 0;
        started_ = false;
    }

    // Scans the item at buf[pos] (resuming where a `more` left off). On done, `end` is the
    // index just past it. On bad, `err` says why.
    template <class Head>
    scan run(std::string_view buf, std::size_t pos, Head&& head, std::size_t& end, error& err) {
        const auto* d = reinterpret_cast<const unsigned char*>(buf.data());
        std::size_t n = buf.size();
        std::size_t i = started_ ? pos + at_ : pos;
        started_ = true;
        for (;;) {
            if (i >= n) {
                at_ = i - pos;
                return scan::more;
            }
            head_info h;
            std::size_t need = 0;
            if (!head(d + i, n - i, h, need, err, i)) {
                if (need != 0) {
                    at_ = i - pos;
                    return scan::more;
                }
                return scan::bad;
            }
            if (h.is_break) {
                if (stack_.empty() || !stack_.back().indefinite) {
                    err = make_error(errc::malformed, i, "a break (0xff) outside an "
                                                         "indefinite-length item");
                    return scan::bad;
                }
                stack_.pop_back();
                i += 1;
                if (finish_item(i, pos, end)) {
                    return scan::done;
                }
                continue;
            }
            if (h.payload > n - i - h.header) {
                at_ = i - pos;
                return scan::more;  // the whole payload has not arrived
            }
            i += h.header + static_cast<std::size_t>(h.payload);
            if (h.indefinite || h.children != 0) {
                if (stack_.size() >= max_depth_) {
                    err = make_error(errc::depth_exceeded, i,
                                     "nesting deeper than " + std::to_string(max_depth_));
                    return scan::bad;
                }
                stack_.push_back({h.children, h.indefinite});
                continue;
            }
            if (finish_item(i, pos, end)) {
                return scan::done;
            }
        }
    }

private:
    // One item is complete at `i`: count it in its parents. True when the top item is done.
    bool finish_item(std::size_t i, std::size_t pos, std::size_t& end) {
        while (!stack_.empty()) {
            open_item& top = stack_.back();
            if (top.indefinite) {
                return false;
            }
            if (--top.remaining != 0) {
                return false;
            }
            stack_.pop_back();
        }
        end = i;
        (void)pos;
        reset();
        return true;
    }

    std::uint32_t max_depth_;
    std::vector<open_item> stack_;
    std::size_t at_ = 0;
    bool started_ = false;
};

// ---- CBOR (RFC 8949 section 3) ----

bool cbor_head(const unsigned char* p, std::size_t avail, head_info& h, std::size_t& need,
               error& err, std::size_t at) {
    unsigned major = p[0] >> 5;
    unsigned ai = p[0] & 31;
    std::uint64_t arg = ai;
    std::size_t hdr = 1;
    if (ai >= 24 && ai <= 27) {
        hdr = 1 + (std::size_t{1} << (ai - 24));
        if (avail < hdr) {
            need = hdr;
            return false;
        }
        arg = be(p + 1, static_cast<int>(hdr - 1));
    } else if (ai >= 28 && ai <= 30) {
        err = make_error(errc::malformed, at, "reserved additional information " +
                                                  std::to_string(ai) + " in a CBOR header");
        return false;
    }
    h.header = hdr;
    if (ai == 31) {
        switch (major) {
            case 2:
            case 3:
            case 4:
            case 5:
                h.indefinite = true;
                return true;
            case 7:
                h.is_break = true;
                return true;
            default:
                err = make_error(errc::malformed, at,
                                 "indefinite length on CBOR major type " + std::to_string(major));
                return false;
        }
    }
    switch (major) {
        case 2:
        case 3:
            h.payload = arg;
            break;
        case 4:
            h.children = arg;
            break;
        case 5:
            if (arg > UINT64_MAX / 2) {
                err = make_error(errc::size_exceeded, at, "CBOR map length out of range");
                return false;
            }
            h.children = arg * 2;
            break;
        case 6:
            h.children = 1;  // the tagged item
            break;
        default:
            break;  // integers, simple values and floats: the header is all
    }
    return true;
}

// ---- MessagePack ----

bool msgpack_head(const unsigned char* p, std::size_t avail, head_info& h, std::size_t& need,
                  error& err, std::size_t at) {
    unsigned b = p[0];
    auto sized = [&](std::size_t hdr, int len_bytes, std::uint64_t extra) {
        if (avail < hdr) {
            need = hdr;
            return false;
        }
        h.header = hdr;
        h.payload = be(p + 1, len_bytes) + extra;
        return true;
    };
    auto counted = [&](std::size_t hdr, int len_bytes, std::uint64_t mul) {
        if (avail < hdr) {
            need = hdr;
            return false;
        }
        h.header = hdr;
        h.children = be(p + 1, len_bytes) * mul;
        return true;
    };
    auto fixed = [&](std::size_t total) {
        h.header = 1;
        h.payload = total - 1;
        return true;
    };
    if (b <= 0x7f || b >= 0xe0) {
        return fixed(1);
    }
    if (b <= 0x8f) {
        h.header = 1;
        h.children = (b & 0x0f) * 2u;
        return true;
    }
    if (b <= 0x9f) {
        h.header = 1;
        h.children = b & 0x0f;
        return true;
    }
    if (b <= 0xbf) {
        h.header = 1;
        h.payload = b & 0x1f;
        return true;
    }
    switch (b) {
        case 0xc0:
        case 0xc2:
        case 0xc3:
            return fixed(1);
        case 0xc1:
            err = make_error(errc::malformed, at, "the byte 0xc1 is never used in MessagePack");
            return false;
        case 0xc4:
        case 0xd9:
            return sized(2, 1, 0);
        case 0xc5:
        case 0xda:
            return sized(3, 2, 0);
        case 0xc6:
        case 0xdb:
            return sized(5, 4, 0);
        case 0xc7:
            return sized(3, 1, 1);  // length, type, data
        case 0xc8:
            return sized(4, 2, 1);
        case 0xc9:
            return sized(6, 4, 1);
        case 0xca:
            return fixed(5);
        case 0xcb:
            return fixed(9);
        case 0xcc:
        case 0xd0:
            return fixed(2);
        case 0xcd:
        case 0xd1:
            return fixed(3);
        case 0xce:
        case 0xd2:
            return fixed(5);
        case 0xcf:
        case 0xd3:
            return fixed(9);
        case 0xd4:
            return fixed(3);
        case 0xd5:
            return fixed(4);
        case 0xd6:
            return fixed(6);
        case 0xd7:
            return fixed(10);
        case 0xd8:
            return fixed(18);
        case 0xdc:
            return counted(3, 2, 1);
        case 0xdd:
            return counted(5, 4, 1);
        case 0xde:
            return counted(3, 2, 2);
        case 0xdf:
            return counted(5, 4, 2);
        default:
            break;
    }
    err = make_error(errc::malformed, at, "unknown MessagePack type byte");
    return false;
}

// ---- the framer of CBOR and MessagePack: a top-level array's elements, or a sequence ----

template <bool Cbor>
class item_framer final : public framer {
public:
    item_framer(bool seq, std::uint32_t max_depth) : seq_(seq), scanner_(max_depth) {}

    result<frame> next(std::string_view buf, std::size_t pos, bool eof) override {
        const auto* d = reinterpret_cast<const unsigned char*>(buf.data());
        std::size_t n = buf.size();
        if (stage_ == stage::start) {
            if (pos == n) {
                return eof ? end_of_stream() : need_more();
            }
            head_info h;
            std::size_t need = 0;
            error err;
            bool is_array = false;
            if (!seq_) {
                bool ok = Cbor ? cbor_head(d + pos, n - pos, h, need, err, pos)
                               : msgpack_head(d + pos, n - pos, h, need, err, pos);
                if (!ok && need != 0) {
                    if (!eof) {
                        return need_more();
                    }
                    return fail(make_error(errc::unexpected_eof, n, "the input ends inside a "
                                                                    "header"));
                }
                is_array = ok && (Cbor ? (d[pos] >> 5) == 4 : (d[pos] == 0xdc || d[pos] == 0xdd ||
                                                                 (d[pos] & 0xf0) == 0x90));
            }
            if (!is_array) {
                stage_ = stage::sequence;
            } else if (h.indefinite) {
                stage_ = stage::indefinite;
                return skip_to(pos + h.header);
            } else {
                stage_ = stage::counted;
                remaining_ = h.children;
                declared_ = h.children;
                return skip_to(pos + h.header);
            }
        }
        switch (stage_) {
            case stage::counted:
                if (remaining_ == 0) {
                    stage_ = stage::done;
                    return next(buf, pos, eof);
                }
                break;
            case stage::indefinite:
                if (pos == n) {
                    if (!eof) {
                        return need_more();
                    }
                    return fail(make_error(errc::unexpected_eof, n,
                                           "the indefinite-length array has no break (0xff)"));
                }
                if (d[pos] == 0xff && !scanning_) {
                    stage_ = stage::done;
                    return skip_to(pos + 1);
                }
                break;
            case stage::done:
                if (pos == n) {
                    return eof ? end_of_stream() : need_more();
                }
                return fail(make_error(errc::trailing_content, pos,
                                       "bytes after the top-level array"));
            default:
                if (pos == n && !scanning_) {
                    return eof ? end_of_stream() : need_more();
                }
                break;
        }
        if (pos == n) {
            if (!eof) {
                return need_more();
            }
            return fail(make_error(errc::unexpected_eof, n,
                                   stage_ == stage::counted
                                       ? "the array ends after " +
                                             std::to_string(declared_ - remaining_) + " of its " +
                                             std::to_string(declared_) + " elements"
                                       : std::string("the input ends inside an item")));
        }
        std::size_t end = 0;
        error err;
        scanning_ = true;
        scan s = scanner_.run(
            buf, pos,
            [](const unsigned char* p, std::size_t avail, head_info& h, std::size_t& need,
               error& e, std::size_t at) {
                return Cbor ? cbor_head(p, avail, h, need, e, at)
                            : msgpack_head(p, avail, h, need, e, at);
            },
            end, err);
        if (s == scan::bad) {
            return fail(std::move(err));
        }
        if (s == scan::more) {
            if (!eof) {
                return need_more();
            }
            // Let the decoder say what is missing.
            scanning_ = false;
            scanner_.reset();
            if (stage_ == stage::counted) {
                --remaining_;
            }
            return record(pos, n, n);
        }
        scanning_ = false;
        if (stage_ == stage::counted) {
            --remaining_;
        }
        return record(pos, end, end);
    }

    format_id decode_as() const noexcept override {
        return Cbor ? format_id::cbor : format_id::msgpack;
    }
    std::optional<std::uint64_t> declared_count() const noexcept override {
        if (stage_ == stage::counted || (stage_ == stage::done && declared_ != no_count)) {
            return declared_;
        }
        return {};
    }

private:
    enum class stage : std::uint8_t { start, counted, indefinite, sequence, done };
    static constexpr std::uint64_t no_count = ~std::uint64_t{0};

    bool seq_;
    stage stage_ = stage::start;
    std::uint64_t remaining_ = 0;
    std::uint64_t declared_ = no_count;
    bool scanning_ = false;
    item_scanner scanner_;
};

// ---- BSON: concatenated documents, each led by its int32 little-endian length ----

class bson_framer final : public framer {
public:
    result<frame> next(std::string_view buf, std::size_t pos, bool eof) override {
        std::size_t avail = buf.size() - pos;
        if (avail == 0) {
            return eof ? end_of_stream() : need_more();
        }
        if (avail < 4) {
            if (!eof) {
                return need_more();
            }
            return fail(make_error(errc::unexpected_eof, buf.size(),
                                   "the input ends inside a document's length"));
        }
        const auto* p = reinterpret_cast<const unsigned char*>(buf.data() + pos);
        std::uint32_t len = static_cast<std::uint32_t>(p[0]) | (std::uint32_t{p[1]} << 8) |
                            (std::uint32_t{p[2]} << 16) | (std::uint32_t{p[3]} << 24);
        if (len < 5 || len > 0x7fffffff) {
            return fail(make_error(errc::malformed, pos,
                                   "document length " + std::to_string(static_cast<std::int32_t>(len)) +
                                       " is outside 5..2147483647"));
        }
        if (avail < len) {
            if (!eof) {
                return need_more();
            }
            return record(pos, buf.size(), buf.size());  // the decoder reports the truncation
        }
        return record(pos, pos + len, pos + len);
    }
    format_id decode_as() const noexcept override { return format_id::bson; }
};

}  // namespace

std::unique_ptr<framer> make_cbor_framer(bool seq, std::uint32_t max_depth) {
    return std::make_unique<item_framer<true>>(seq, max_depth);
}
std::unique_ptr<framer> make_msgpack_framer(bool seq, std::uint32_t max_depth) {
    return std::make_unique<item_framer<false>>(seq, max_depth);
}
std::unique_ptr<framer> make_bson_framer() { return std::make_unique<bson_framer>(); }

}  // namespace polycodec::stream_detail
