// Stream mode (DESIGN section 12): record_reader and record_writer over the per-format framers
// of codec/src/stream/. See polycodec/stream.hpp. Records go through the formats' own decoders
// and encoders (polycodec::decode / encode), so a record reads and writes exactly as the same
// value does inside a whole document; this file only frames, maps positions and paths, and
// writes the output's record framing.
#include "polycodec/stream.hpp"

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>

#include "detail/locate.hpp"
#include "detail/tape_access.hpp"
#include "formats/formats.hpp"
#include "polycodec/codec.hpp"
#include "stream/framer.hpp"

namespace polycodec {

bool is_streamable(format_id f) noexcept {
    switch (f) {
        case format_id::ndjson:
        case format_id::json:
        case format_id::csv:
        case format_id::yaml:
        case format_id::cbor:
        case format_id::msgpack:
        case format_id::bson:
            return true;
        default:
            return false;
    }
}

namespace stream_detail {

std::unique_ptr<framer> make_framer(format_id f, const decode_options& opt) {
    // The top-level array of a framed input counts as one level of nesting.
    std::uint32_t depth = opt.limits.max_depth > 1 ? opt.limits.max_depth - 1 : 1;
    switch (f) {
        case format_id::ndjson:
            return make_ndjson_framer();
        case format_id::json:
            return make_json_framer(opt.seq);
        case format_id::csv:
            return make_csv_framer(opt);
        case format_id::yaml:
            return make_yaml_framer(opt.multi);
        case format_id::cbor:
            return make_cbor_framer(opt.seq, depth);
        case format_id::msgpack:
            return make_msgpack_framer(opt.seq, depth);
        case format_id::bson:
            return make_bson_framer();
        default:
            return nullptr;
    }
}

}  // namespace stream_detail

namespace {

std::string not_streamable(format_id f) {
    return std::string(find_format(f)->name) +
           " is not streamable (stream mode reads and writes ndjson, json, csv, yaml, cbor, "
           "msgpack and bson)";
}

std::string record_label(std::uint64_t index) { return "record " + std::to_string(index) + ": "; }

// "/0/price" of a one-element wrapper -> "/17/price"; "" of a record -> "/17".
std::string record_path(std::uint64_t index, const std::string& inner, bool wrapped) {
    std::string out = "/" + std::to_string(index);
    if (wrapped) {
        std::size_t slash = inner.find('/', 1);
        if (!inner.empty() && inner[0] == '/') {
            if (slash != std::string::npos) {
                out += inner.substr(slash);
            }
            return out;
        }
    }
    return out + inner;
}

}  // namespace

// ---- record_reader ----

struct record_reader::impl {
    format_id fmt;
    decode_options opt;
    std::size_t max_record;
    std::unique_ptr<stream_detail::framer> fr;
    bool text = false;
    std::string buf;
    std::size_t pos = 0;     // first byte not consumed
    std::uint64_t base = 0;  // stream offset of buf[0]
    bool eof = false;
    std::uint64_t records = 0;
    // Line and column (code points) of buf[pos], for the errors of text formats.
    std::uint64_t line = 1;
    std::uint64_t column = 1;
    std::string joined;  // prefix + record
    std::optional<error> failed;

    // Moves pos to `to`, keeping line and column.
    void consume(std::size_t to) {
        if (text) {
            track(pos, to, line, column);
        }
        pos = to;
    }

    void track(std::size_t from, std::size_t to, std::uint64_t& l, std::uint64_t& c) const {
        const char* d = buf.data();
        std::size_t tail = from;
        for (;;) {
            const void* nl = std::memchr(d + tail, '\n', to - tail);
            if (nl == nullptr) {
                break;
            }
            ++l;
            c = 1;
            tail = static_cast<std::size_t>(static_cast<const char*>(nl) - d) + 1;
        }
        // Code points: the bytes that are not UTF-8 continuation bytes (10xxxxxx), eight at a
        // time (a single-line JSON array is all one line).
        std::uint64_t cps = 0;
        std::size_t i = tail;
        for (; i + 8 <= to; i += 8) {
            std::uint64_t w;
            std::memcpy(&w, d + i, 8);
            // One bit per continuation byte, at the byte's bit 0; the multiply sums the eight
            // bytes into the top one (no popcount instruction without -mpopcnt).
            std::uint64_t cont = ((w & ~(w << 1)) >> 7) & 0x0101010101010101ULL;
            cps += 8 - ((cont * 0x0101010101010101ULL) >> 56);
        }
        for (; i < to; ++i) {
            cps += (static_cast<unsigned char>(d[i]) & 0xC0) != 0x80;
        }
        c += cps;
    }

    error located(error e, std::uint64_t abs_offset, std::size_t at_buf, std::string_view rec,
                  std::uint64_t rec_offset) {
        e.format = fmt;
        e.has_offset = true;
        e.offset = abs_offset;
        if (text) {
            std::uint64_t l = line;
            std::uint64_t c = column;
            track(pos, at_buf, l, c);
            if (!rec.empty() || rec_offset != 0) {
                auto p = detail::locate(rec, rec_offset);
                if (p.line == 1) {
                    c += p.column - 1;
                } else {
                    l += p.line - 1;
                    c = p.column;
                }
            }
            e.line = static_cast<std::uint32_t>(l);
            e.column = static_cast<std::uint32_t>(c);
        } else {
            e.line = e.column = 0;
        }
        return e;
    }

    result<record_reader::step> fail_with(error e) {
        failed = e;
        return fail(std::move(e));
    }

    result<record_reader::step> framing_error(error e) {
        std::size_t at = e.offset >= pos && e.offset <= buf.size() ? e.offset : pos;
        error out = located(std::move(e), base + at, at, {}, 0);
        out.message = record_label(records) + out.message;
        out.path = "/" + std::to_string(records);
        out.has_path = true;
        return fail_with(std::move(out));
    }

    result<record_reader::step> next(document& doc) {
        if (failed) {
            return fail(*failed);
        }
        if (!fr) {
            return fail_with(make_error(errc::invalid_option, not_streamable(fmt)));
        }
        for (;;) {
            auto fres = fr->next(buf, pos, eof);
            if (!fres) {
                return framing_error(std::move(fres.error()));
            }
            const stream_detail::frame& f = *fres;
            using fk = stream_detail::frame::kind;
            switch (f.k) {
                case fk::need_more:
                    if (buf.size() - pos > max_record) {
                        return too_long();
                    }
                    if (eof) {
                        return framing_error(make_error(errc::unexpected_eof, buf.size(),
                                                        "the input ends inside a record"));
                    }
                    return step::need_input;
                case fk::end:
                    return step::end;
                case fk::skip:
                    consume(f.next);
                    continue;
                case fk::record:
                    break;
            }
            if (f.end - f.begin > max_record) {
                return too_long();
            }
            std::string_view rec(buf.data() + f.begin, f.end - f.begin);
            std::string_view input = rec;
            if (!f.prefix.empty() || !f.suffix.empty()) {
                joined.assign(f.prefix);
                joined.append(rec);
                joined.append(f.suffix);
                input = joined;
            }
            auto r = decode(fr->decode_as(), input, doc, opt);
            if (!r) {
                error& e = r.error();
                std::uint64_t in_rec = 0;
                if (e.has_offset && e.offset > f.prefix.size()) {
                    in_rec = e.offset - f.prefix.size();
                }
                if (in_rec > rec.size()) {
                    in_rec = rec.size();
                }
                error out = located(std::move(e), base + f.begin + in_rec, f.begin, rec, in_rec);
                out.path = record_path(records, out.path, f.unwrap);
                out.has_path = true;
                out.message = record_label(records) + out.message;
                return fail_with(std::move(out));
            }
            if (f.unwrap) {
                value root = doc.root();
                if (root.kind() != kind::array) {
                    return framing_error(make_error(errc::malformed, f.begin,
                                                    "a framed record did not decode as a "
                                                    "one-element sequence"));
                }
                if (root.size() <= f.drop) {
                    consume(f.next);  // a line with no row (a blank CSV line)
                    continue;
                }
                if (root.size() != f.drop + 1u) {
                    return framing_error(make_error(errc::malformed, f.begin,
                                                    "a framed record decoded as " +
                                                        std::to_string(root.size() - f.drop) +
                                                        " values"));
                }
                std::size_t at = 2;
                for (unsigned i = 0; i < f.drop; ++i) {
                    at = value(&doc, at).end_index();
                }
                detail::tape_access::keep_subtree(doc, at);
            }
            consume(f.next);
            ++records;
            return step::record;
        }
    }

    result<record_reader::step> too_long() {
        error e = make_error(errc::size_exceeded, pos,
                             "the record is longer than the limit of " +
                                 std::to_string(max_record) + " bytes (--max-record)");
        return framing_error(std::move(e));
    }
};

record_reader::record_reader(format_id f, const decode_options& opt, std::size_t max_record)
    : impl_(std::make_unique<impl>()) {
    impl_->fmt = f;
    impl_->opt = opt;
    impl_->opt.multi = false;  // a YAML record is one document; the framer splits the stream
    impl_->max_record = max_record;
    impl_->fr = stream_detail::make_framer(f, opt);  // with multi as given
    const format_info* info = find_format(f);
    impl_->text = info != nullptr && info->caps.text;
}

record_reader::~record_reader() = default;

void record_reader::feed(std::string_view bytes) {
    impl& m = *impl_;
    if (m.pos != 0 && m.pos * 2 >= m.buf.size()) {
        m.buf.erase(0, m.pos);
        m.base += m.pos;
        m.pos = 0;
    }
    m.buf.append(bytes);
}

void record_reader::finish() { impl_->eof = true; }

result<record_reader::step> record_reader::next(document& doc) { return impl_->next(doc); }

std::uint64_t record_reader::records() const noexcept { return impl_->records; }
std::uint64_t record_reader::offset() const noexcept { return impl_->base + impl_->pos; }
std::size_t record_reader::buffered() const noexcept { return impl_->buf.size() - impl_->pos; }
std::optional<std::uint64_t> record_reader::declared_count() const noexcept {
    return impl_->fr ? impl_->fr->declared_count() : std::nullopt;
}

// ---- record_writer ----

struct record_writer::impl {
    format_id fmt;
    encode_options opt;
    std::uint64_t records = 0;
    std::optional<std::uint64_t> count;
    bool backpatch = false;
    bool concatenated = false;
    std::uint64_t header_at = 0;
    std::optional<record_writer::patch> patch;
    document wrap;            // [record], for formats whose entries are written as sequences
    output_buffer scratch;    // pretty JSON before re-indenting
    std::unique_ptr<detail::record_encoder> rows;  // csv

    result<void> fail_record(error e, bool wrapped) {
        e.format = fmt;
        e.path = record_path(records, e.has_path ? e.path : std::string(), wrapped);
        e.has_path = true;
        e.message = record_label(records) + e.message;
        return fail(std::move(e));
    }

    // Lossy events of this record get its index in their paths.
    void prefix_lossy(std::size_t from, bool wrapped) {
        if (opt.report == nullptr) {
            return;
        }
        for (std::size_t i = from; i < opt.report->size(); ++i) {
            lossy_event& ev = (*opt.report)[i];
            ev.path = record_path(records, ev.path, wrapped);
        }
    }

    result<void> write(const document& rec, output_buffer& out) {
        if (rec.empty()) {
            return fail(make_error(errc::invalid_option, "cannot encode an empty record"));
        }
        std::size_t lossy_from = opt.report != nullptr ? opt.report->size() : 0;
        bool wrapped = false;
        result<void> r;
        switch (fmt) {
            case format_id::ndjson: {
                encode_options line = opt;
                line.pretty = false;
                r = encode(format_id::json, rec, out, line);
                if (r) {
                    out.push_back('\n');
                }
                break;
            }
            case format_id::json:
                r = write_json(rec, out);
                break;
            case format_id::csv:
                r = rows->write(rec.root(), out);
                break;
            case format_id::yaml:
                if (opt.multi) {
                    out.append("---\n");
                    r = encode(format_id::yaml, rec, out, opt);
                } else {
                    wrapped = true;
                    wrap.clear();
                    builder b(wrap);
                    b.begin_array();
                    b.add_copy(rec.root());
                    b.end_array();
                    r = encode(format_id::yaml, wrap, out, opt);
                }
                break;
            case format_id::cbor:
            case format_id::msgpack:
            case format_id::bson:
                r = encode(fmt, rec, out, opt);
                break;
            default:
                return fail(make_error(errc::invalid_option, not_streamable(fmt)));
        }
        if (!r) {
            return fail_record(std::move(r.error()), wrapped);
        }
        prefix_lossy(lossy_from, wrapped);
        ++records;
        return {};
    }

    result<void> write_json(const document& rec, output_buffer& out) {
        if (opt.seq) {
            out.push_back('\x1e');
            encode_options one = opt;
            one.pretty = false;
            auto r = encode(format_id::json, rec, out, one);
            out.push_back('\n');
            return r;
        }
        if (!opt.pretty) {
            if (records != 0) {
                out.push_back(',');
            }
            return encode(format_id::json, rec, out, opt);
        }
        // Pretty: the element indented one level, as inside the whole array. JSON text has
        // line breaks only between tokens (strings escape them), so each gets two spaces.
        scratch.clear();
        auto r = encode(format_id::json, rec, scratch, opt);
        if (!r) {
            return r;
        }
        std::string_view text = scratch.view();
        while (!text.empty() && text.back() == '\n') {
            text.remove_suffix(1);
        }
        out.append(records != 0 ? std::string_view(",\n  ") : std::string_view("\n  "));
        std::size_t run = 0;
        for (std::size_t i = 0; i < text.size(); ++i) {
            if (text[i] == '\n') {
                out.append(text.substr(run, i + 1 - run));
                out.append("  ");
                run = i + 1;
            }
        }
        out.append(text.substr(run));
        return {};
    }
};

record_writer::record_writer(format_id f, const encode_options& opt)
    : impl_(std::make_unique<impl>()) {
    impl_->fmt = f;
    impl_->opt = opt;
    if (f == format_id::csv && detail::csv_codec.record_encoder != nullptr) {
        impl_->rows = detail::csv_codec.record_encoder(impl_->opt);
    }
}

record_writer::~record_writer() = default;

result<void> record_writer::begin(output_buffer& out, std::optional<std::uint64_t> count,
                                  bool backpatch) {
    impl& m = *impl_;
    if (!is_streamable(m.fmt)) {
        return fail(make_error(errc::invalid_option, not_streamable(m.fmt)));
    }
    m.count = count;
    m.backpatch = backpatch;
    switch (m.fmt) {
        case format_id::json:
        case format_id::cbor:  // an indefinite-length array, closed by end()
            if (!m.opt.seq) {
                out.push_back(m.fmt == format_id::json ? '[' : '\x9f');
            }
            break;
        case format_id::msgpack:
            if (m.opt.seq) {
                m.concatenated = true;
            } else if (count) {
                std::uint64_t n = *count;
                if (n <= 15) {
                    out.push_back(static_cast<char>(0x90 | n));
                } else if (n <= 0xffff) {
                    unsigned char h[3] = {0xdc, static_cast<unsigned char>(n >> 8),
                                          static_cast<unsigned char>(n)};
                    out.append(h, 3);
                } else if (n <= 0xffffffffu) {
                    unsigned char h[5] = {0xdd, static_cast<unsigned char>(n >> 24),
                                          static_cast<unsigned char>(n >> 16),
                                          static_cast<unsigned char>(n >> 8),
                                          static_cast<unsigned char>(n)};
                    out.append(h, 5);
                } else {
                    return fail(make_error(errc::unrepresentable,
                                           "a msgpack array holds at most 4294967295 elements"));
                }
            } else if (backpatch) {
                m.header_at = out.size();
                const unsigned char h[5] = {0xdd, 0, 0, 0, 0};
                out.append(h, 5);
            } else {
                m.concatenated = true;
            }
            break;
        default:
            break;
    }
    return {};
}

result<void> record_writer::write(const document& record, output_buffer& out) {
    return impl_->write(record, out);
}

result<void> record_writer::end(output_buffer& out) {
    impl& m = *impl_;
    switch (m.fmt) {
        case format_id::json:
            if (m.opt.seq) {
                break;
            }
            if (m.opt.pretty) {
                // begin() wrote the '['.
                out.append(m.records != 0 ? std::string_view("\n]\n") : std::string_view("]\n"));
            } else {
                out.push_back(']');
            }
            break;
        case format_id::yaml:
            if (!m.opt.multi && m.records == 0) {
                out.append("[]\n");
            }
            break;
        case format_id::cbor:
            if (!m.opt.seq) {
                out.push_back('\xff');
            }
            break;
        case format_id::msgpack:
            if (m.count && *m.count != m.records) {
                return fail(make_error(errc::malformed,
                                       "the input declared " + std::to_string(*m.count) +
                                           " records and held " + std::to_string(m.records)));
            }
            if (!m.count && m.backpatch && !m.concatenated) {
                if (m.records > 0xffffffffu) {
                    return fail(make_error(errc::unrepresentable,
                                           "a msgpack array holds at most 4294967295 elements"));
                }
                record_writer::patch p;
                p.at = m.header_at + 1;
                for (int i = 0; i < 4; ++i) {
                    p.bytes[i] = static_cast<unsigned char>(m.records >> (24 - 8 * i));
                }
                m.patch = p;
            }
            break;
        default:
            break;
    }
    return {};
}

std::uint64_t record_writer::records() const noexcept { return impl_->records; }
bool record_writer::concatenated() const noexcept { return impl_->concatenated; }
std::optional<record_writer::patch> record_writer::count_patch() const noexcept {
    return impl_->patch;
}

}  // namespace polycodec
