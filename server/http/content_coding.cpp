#include "http/content_coding.hpp"

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <isa-l/igzip_lib.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>

#include "config.hpp"
#include "http/handler.hpp"
#include "http/problem.hpp"
#include "metrics.hpp"

namespace polycodec::server::http {
namespace {

constexpr std::size_t window = 64 * 1024;  // bytes between two stacked decoders
constexpr int zstd_window_log_max = 23;    // 8 MiB (RFC 8878 section 3.1.1.1.2, for HTTP)
constexpr int brotli_quality = 4;
constexpr int brotli_lgwin = 22;  // 4 MiB
constexpr int zstd_level = 3;

std::string lower_trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
        s.remove_prefix(1);
    }
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
        s.remove_suffix(1);
    }
    std::string out(s);
    for (char& c : out) {
        if (c >= 'A' && c <= 'Z') {
            c = static_cast<char>(c - 'A' + 'a');
        }
    }
    return out;
}

// Each coding's token, in enumerator order.
constexpr std::string_view coding_names[] = {"identity", "gzip", "deflate", "br", "zstd"};
static_assert(std::size(coding_names) == coding_count &&
              coding_count == static_cast<std::size_t>(coding::zstd) + 1);

std::optional<coding> coding_of(std::string_view name) {
    if (name == "gzip" || name == "x-gzip") {
        return coding::gzip;
    }
    if (name == "deflate") {
        return coding::deflate;
    }
    if (name == "br") {
        return coding::br;
    }
    if (name == "zstd") {
        return coding::zstd;
    }
    if (name == "identity") {
        return coding::identity;
    }
    return std::nullopt;
}

}  // namespace

std::string_view to_string(coding c) noexcept {
    auto i = static_cast<std::size_t>(c);
    return i < coding_count ? coding_names[i] : "identity";
}

result<std::vector<coding>> parse_content_encoding(std::string_view value) {
    std::vector<coding> out;
    while (true) {
        auto comma = value.find(',');
        std::string name = lower_trim(value.substr(0, comma));
        if (name.empty()) {
            return fail(make_error(errc::unsupported_format,
                                   "Content-Encoding has an empty entry (accepted: " +
                                       std::string(accepted_request_codings) + ")"));
        }
        auto c = coding_of(name);
        if (!c) {
            return fail(make_error(errc::unsupported_format,
                                   "Content-Encoding \"" + name +
                                       "\" is not supported (accepted: " +
                                       std::string(accepted_request_codings) + ")"));
        }
        if (*c != coding::identity) {
            out.push_back(*c);
        }
        if (comma == std::string_view::npos) {
            break;
        }
        value = value.substr(comma + 1);
    }
    if (out.size() > max_stacked_codings) {
        return fail(make_error(errc::unsupported_format,
                               "Content-Encoding stacks " + std::to_string(out.size()) +
                                   " codings; at most " + std::to_string(max_stacked_codings) +
                                   " are decoded"));
    }
    return out;
}

// ---- decoding ----

struct content_decoder::stage {
    explicit stage(std::string name) : label(std::move(name)) {}
    virtual ~stage() = default;
    /// Consumes from `in`, writes up to `cap` bytes to `out`; returns bytes written.
    virtual result<std::size_t> step(std::string_view& in, char* out, std::size_t cap) = 0;
    /// True when the input may end here.
    virtual bool complete() const = 0;
    virtual std::size_t memory() const = 0;

    error corrupt(std::string_view what) const {
        return make_error(errc::malformed, total_in,
                          label + ": corrupt compressed data (" + std::string(what) + ") at byte " +
                              std::to_string(total_in) + where);
    }

    std::string label;  ///< "gzip", or "gzip (inside br)"
    std::string where;  ///< " of the request body" or " of the br-decoded body"
    std::uint64_t total_in = 0;
    // The input of a stage fed by another one.
    std::vector<char> ibuf;
    std::size_t ipos = 0;
    std::size_t ilen = 0;
};

namespace {

// gzip and deflate are decoded with ISA-L's igzip (Debian's libisal), 2-3 x faster than zlib's
// inflate with a CRC-32 that uses carry-less multiplication (docs/BENCHMARKS.md); it checks
// the gzip CRC-32 and size and the zlib Adler-32 like zlib does.
class inflate_stage final : public content_decoder::stage {
public:
    inflate_stage(std::string name, bool gzip)
        : stage(std::move(name)), st_(std::make_unique<inflate_state>()), gzip_(gzip) {}

    result<std::size_t> step(std::string_view& in, char* out, std::size_t cap) override {
        if (ended_) {
            if (!in.empty()) {
                return fail(corrupt("data after the end of the deflate stream"));
            }
            return 0;
        }
        if (!inited_) {
            // deflate: the zlib wrapper (RFC 1950) or raw deflate (RFC 1951), told apart by the
            // two-byte zlib header check, as browsers do.
            while (stash_n_ < 2 && !in.empty()) {
                stash_[stash_n_++] = static_cast<unsigned char>(in.front());
                in.remove_prefix(1);
            }
            if (stash_n_ == 0 || (!gzip_ && stash_n_ < 2)) {
                return 0;
            }
            isal_inflate_init(st_.get());
            if (gzip_) {
                begin_member();
            } else {
                bool wrapped = (stash_[0] & 0x0f) == 8 && (stash_[0] >> 4) <= 7 &&
                               ((stash_[0] << 8) | stash_[1]) % 31 == 0;
                st_->crc_flag = wrapped ? ISAL_ZLIB : ISAL_DEFLATE;
            }
            inited_ = true;
            member_open_ = true;
            stash_pos_ = 0;
        }
        std::size_t produced = 0;
        for (;;) {
            // The stashed header bytes first, then `in`.
            bool from_stash = stash_pos_ < stash_n_;
            const unsigned char* src = from_stash
                                           ? stash_ + stash_pos_
                                           : reinterpret_cast<const unsigned char*>(in.data());
            std::size_t avail = from_stash ? stash_n_ - stash_pos_ : in.size();
            if (avail == 0 && !member_open_) {
                return produced;  // between two gzip members
            }
            if (!member_open_) {
                isal_inflate_reset(st_.get());  // another gzip member (RFC 1952 section 2.2)
                begin_member();
                member_open_ = true;
            }
            st_->next_in = const_cast<unsigned char*>(src);
            st_->avail_in = static_cast<std::uint32_t>(std::min<std::size_t>(avail, 1u << 30));
            st_->next_out = reinterpret_cast<unsigned char*>(out + produced);
            st_->avail_out =
                static_cast<std::uint32_t>(std::min<std::size_t>(cap - produced, 1u << 30));
            std::size_t in_before = st_->avail_in;
            std::size_t out_before = st_->avail_out;
            int rc;
            if (gzip_ && !header_done_) {
                // The gzip header with our own (initialised) header record; igzip then checks
                // the CRC-32 and size trailer after the deflate data.
                rc = isal_read_gzip_header(st_.get(), &header_);
                if (rc == ISAL_DECOMP_OK) {
                    header_done_ = true;
                    st_->crc_flag = ISAL_GZIP_NO_HDR_VER;
                } else if (rc == ISAL_END_INPUT) {
                    rc = ISAL_DECOMP_OK;
                }
            } else {
                rc = isal_inflate(st_.get());
            }
            // At the end of a stream igzip hands back the bytes it read ahead (avail_in grows);
            // never more than this call was given, as far as the count goes.
            std::size_t used = st_->avail_in <= in_before ? in_before - st_->avail_in : 0;
            std::size_t made = out_before - st_->avail_out;
            if (rc < 0 || rc == ISAL_NEED_DICT) {
                total_in += used;
                return fail(corrupt(describe(rc)));
            }
            if (from_stash) {
                stash_pos_ += used;
            } else {
                in.remove_prefix(used);
            }
            total_in += used;
            produced += made;
            if (st_->block_state == ISAL_BLOCK_FINISH) {
                member_open_ = false;
                if (!gzip_) {
                    ended_ = true;
                    // Bytes past the end may also sit in igzip's bit buffer (zlib wrapper).
                    if (stash_pos_ < stash_n_ || !in.empty() || st_->read_in_length >= 8) {
                        return fail(corrupt("data after the end of the deflate stream"));
                    }
                    return produced;
                }
                continue;
            }
            if (produced == cap || (used == 0 && made == 0)) {
                return produced;
            }
        }
    }

    bool complete() const override { return gzip_ ? inited_ && !member_open_ : ended_; }
    std::size_t memory() const override { return sizeof(inflate_state) + 4096; }

private:
    static const char* describe(int rc) {
        switch (rc) {
            case ISAL_INVALID_BLOCK:
                return "invalid deflate block";
            case ISAL_INVALID_SYMBOL:
                return "invalid deflate symbol";
            case ISAL_INVALID_LOOKBACK:
                return "invalid distance too far back";
            case ISAL_INVALID_WRAPPER:
                return "incorrect header check";
            case ISAL_UNSUPPORTED_METHOD:
                return "unknown compression method";
            case ISAL_INCORRECT_CHECKSUM:
                return "incorrect data check";
            case ISAL_NEED_DICT:
                return "a preset dictionary is required";
            default:
                return "invalid data";
        }
    }

    void begin_member() {
        st_->crc_flag = ISAL_GZIP;
        header_ = isal_gzip_header{};
        isal_gzip_header_init(&header_);  // no buffers: name, comment and extra are skipped
        header_done_ = false;
    }

    std::unique_ptr<inflate_state> st_;
    isal_gzip_header header_{};
    bool header_done_ = false;
    bool gzip_;
    bool inited_ = false;
    bool member_open_ = false;
    bool ended_ = false;
    unsigned char stash_[2]{};
    std::size_t stash_n_ = 0;
    std::size_t stash_pos_ = 0;
};

class brotli_stage final : public content_decoder::stage {
public:
    explicit brotli_stage(std::string name)
        : stage(std::move(name)), st_(BrotliDecoderCreateInstance(nullptr, nullptr, nullptr)) {}
    ~brotli_stage() override { BrotliDecoderDestroyInstance(st_); }

    result<std::size_t> step(std::string_view& in, char* out, std::size_t cap) override {
        if (st_ == nullptr) {
            return fail(corrupt("out of memory"));
        }
        if (ended_) {
            if (!in.empty()) {
                return fail(corrupt("data after the end of the brotli stream"));
            }
            return 0;
        }
        std::size_t avail_in = in.size();
        const auto* next_in = reinterpret_cast<const std::uint8_t*>(in.data());
        std::size_t avail_out = cap;
        auto* next_out = reinterpret_cast<std::uint8_t*>(out);
        auto rc =
            BrotliDecoderDecompressStream(st_, &avail_in, &next_in, &avail_out, &next_out, nullptr);
        std::size_t used = in.size() - avail_in;
        total_in += used;
        in.remove_prefix(used);
        if (rc == BROTLI_DECODER_RESULT_ERROR) {
            return fail(corrupt(BrotliDecoderErrorString(BrotliDecoderGetErrorCode(st_))));
        }
        if (rc == BROTLI_DECODER_RESULT_SUCCESS) {
            ended_ = true;
            if (!in.empty()) {
                return fail(corrupt("data after the end of the brotli stream"));
            }
        }
        return cap - avail_out;
    }

    bool complete() const override { return ended_; }
    // The largest standard window (2^24) plus the decoder's other buffers.
    std::size_t memory() const override { return (16u << 20) + (1u << 20); }

private:
    BrotliDecoderState* st_;
    bool ended_ = false;
};

class zstd_stage final : public content_decoder::stage {
public:
    explicit zstd_stage(std::string name) : stage(std::move(name)), d_(ZSTD_createDCtx()) {
        if (d_ != nullptr) {
            ZSTD_DCtx_setParameter(d_, ZSTD_d_windowLogMax, zstd_window_log_max);
        }
    }
    ~zstd_stage() override { ZSTD_freeDCtx(d_); }

    result<std::size_t> step(std::string_view& in, char* out, std::size_t cap) override {
        if (d_ == nullptr) {
            return fail(corrupt("out of memory"));
        }
        ZSTD_inBuffer ib{in.data(), in.size(), 0};
        ZSTD_outBuffer ob{out, cap, 0};
        while (ob.pos < ob.size) {
            std::size_t before_in = ib.pos;
            std::size_t before_out = ob.pos;
            std::size_t rc = ZSTD_decompressStream(d_, &ob, &ib);
            if (ZSTD_isError(rc)) {
                total_in += ib.pos;
                in.remove_prefix(ib.pos);
                return fail(corrupt(ZSTD_getErrorName(rc)));
            }
            if (ib.pos != before_in) {
                boundary_ = false;
                seen_ = true;
            }
            if (rc == 0) {
                boundary_ = true;  // a frame ended; another may follow (RFC 8878 section 3.1)
            }
            if (ib.pos == before_in && ob.pos == before_out) {
                break;
            }
        }
        total_in += ib.pos;
        in.remove_prefix(ib.pos);
        return ob.pos;
    }

    bool complete() const override { return seen_ && boundary_; }
    std::size_t memory() const override {
        return (std::size_t{1} << zstd_window_log_max) + (256u << 10);
    }

private:
    ZSTD_DCtx* d_;
    bool boundary_ = false;
    bool seen_ = false;
};

std::unique_ptr<content_decoder::stage> make_stage(coding c, std::string label) {
    switch (c) {
        case coding::gzip:
            return std::make_unique<inflate_stage>(std::move(label), true);
        case coding::deflate:
            return std::make_unique<inflate_stage>(std::move(label), false);
        case coding::br:
            return std::make_unique<brotli_stage>(std::move(label));
        case coding::zstd:
            return std::make_unique<zstd_stage>(std::move(label));
        case coding::identity:
            break;
    }
    return nullptr;
}

std::size_t stage_memory(coding c) {
    switch (c) {
        case coding::gzip:
        case coding::deflate:
            return sizeof(inflate_state) + 4096;
        case coding::br:
            return (16u << 20) + (1u << 20);
        case coding::zstd:
            return (std::size_t{1} << zstd_window_log_max) + (256u << 10);
        case coding::identity:
            break;
    }
    return 0;
}

}  // namespace

content_decoder::content_decoder(std::span<const coding> applied) {
    // Decoding goes in reverse: the last coding applied is the first undone.
    std::string outer;
    for (std::size_t k = applied.size(); k-- > 0;) {
        coding c = applied[k];
        if (c == coding::identity) {
            continue;
        }
        std::string label(to_string(c));
        if (!outer.empty()) {
            label += " (inside " + outer + ")";
        }
        auto s = make_stage(c, label);
        s->where = outer.empty() ? " of the request body" : " of the " + outer + "-decoded body";
        if (!stages_.empty()) {
            s->ibuf.resize(window);
        }
        stages_.push_back(std::move(s));
        outer = std::string(to_string(c));
    }
}

content_decoder::~content_decoder() = default;

std::size_t content_decoder::memory() const noexcept {
    std::size_t m = 0;
    for (const auto& s : stages_) {
        m += s->memory() + s->ibuf.size();
    }
    return m;
}

std::size_t decoder_memory(std::span<const coding> applied) noexcept {
    std::size_t m = 0;
    for (std::size_t k = 0; k < applied.size(); ++k) {
        m += stage_memory(applied[k]) + (k + 1 < applied.size() ? window : 0);
    }
    return m;
}

result<std::size_t> content_decoder::pull(std::size_t i, std::string_view& in, char* out,
                                          std::size_t cap) {
    stage& s = *stages_[i];
    std::size_t produced = 0;
    while (produced < cap) {
        std::string_view src =
            i == 0 ? in : std::string_view(s.ibuf.data() + s.ipos, s.ilen - s.ipos);
        if (i > 0 && src.empty()) {
            auto r = pull(i - 1, in, s.ibuf.data(), s.ibuf.size());
            if (!r) {
                return r;
            }
            s.ipos = 0;
            s.ilen = *r;
            if (*r == 0) {
                // Nothing new upstream; the stage may still hold output.
                std::string_view none;
                auto z = s.step(none, out + produced, cap - produced);
                if (!z) {
                    return z;
                }
                produced += *z;
                break;
            }
            continue;
        }
        std::size_t before = src.size();
        auto r = s.step(src, out + produced, cap - produced);
        if (!r) {
            return r;
        }
        std::size_t used = before - src.size();
        if (i == 0) {
            consumed_ += used;
            in = src;
        } else {
            s.ipos += used;
        }
        produced += *r;
        if (*r == 0 && used == 0) {
            break;
        }
    }
    return produced;
}

result<std::size_t> content_decoder::decode(std::string_view& in, char* out, std::size_t cap) {
    if (stages_.empty()) {
        std::size_t n = std::min(in.size(), cap);
        std::memcpy(out, in.data(), n);
        in.remove_prefix(n);
        consumed_ += n;
        return n;
    }
    return pull(stages_.size() - 1, in, out, cap);
}

result<void> content_decoder::finish() {
    for (const auto& s : stages_) {
        if (!s->complete() || s->ipos != s->ilen) {
            return fail(make_error(errc::unexpected_eof, s->total_in,
                                   s->label + ": the compressed data ends early, after " +
                                       std::to_string(s->total_in) + " bytes" + s->where));
        }
    }
    return {};
}

// ---- encoding ----

struct content_encoder::state {
    // gzip/deflate answers: igzip level 1 (ISA-L), 3-4 x faster than zlib's level 1.
    std::unique_ptr<isal_zstream> iz;
    std::vector<std::uint8_t> iz_level_buf;
    BrotliEncoderState* br = nullptr;
    ZSTD_CCtx* zs = nullptr;
    ~state() {
        if (br != nullptr) {
            BrotliEncoderDestroyInstance(br);
        }
        ZSTD_freeCCtx(zs);
    }
};

content_encoder::content_encoder(coding c) : kind_(c), st_(std::make_unique<state>()) {
    switch (c) {
        case coding::gzip:
        case coding::deflate:
            st_->iz = std::make_unique<isal_zstream>();
            isal_deflate_init(st_->iz.get());
            st_->iz_level_buf.resize(ISAL_DEF_LVL1_DEFAULT);
            st_->iz->level = 1;
            st_->iz->level_buf = st_->iz_level_buf.data();
            st_->iz->level_buf_size = static_cast<std::uint32_t>(st_->iz_level_buf.size());
            st_->iz->gzip_flag = c == coding::gzip ? IGZIP_GZIP : IGZIP_ZLIB;
            break;
        case coding::br:
            st_->br = BrotliEncoderCreateInstance(nullptr, nullptr, nullptr);
            if (st_->br != nullptr) {
                BrotliEncoderSetParameter(st_->br, BROTLI_PARAM_QUALITY, brotli_quality);
                BrotliEncoderSetParameter(st_->br, BROTLI_PARAM_LGWIN, brotli_lgwin);
            }
            break;
        case coding::zstd:
            st_->zs = ZSTD_createCCtx();
            if (st_->zs != nullptr) {
                // Level 3's window (2 MiB at most) is within RFC 8878's 8 MiB for HTTP.
                ZSTD_CCtx_setParameter(st_->zs, ZSTD_c_compressionLevel, zstd_level);
            }
            break;
        case coding::identity:
            break;
    }
}

content_encoder::~content_encoder() = default;

namespace {

// Runs igzip over `in`: with `flush` (SYNC_FLUSH) until everything is out and byte-aligned,
// with `end` until the stream (and its gzip/zlib trailer) is complete.
void isal_run(isal_zstream& z, std::string_view in, std::string& out, bool flush, bool end) {
    z.next_in = reinterpret_cast<std::uint8_t*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<std::uint32_t>(in.size());
    z.flush = flush ? SYNC_FLUSH : NO_FLUSH;
    z.end_of_stream = end ? 1 : 0;
    for (;;) {
        std::size_t have = out.size();
        std::size_t room = std::max<std::size_t>(in.size() / 2 + 1024, 16 * 1024);
        out.resize(have + room);
        z.next_out = reinterpret_cast<std::uint8_t*>(out.data() + have);
        z.avail_out = static_cast<std::uint32_t>(room);
        int rc = isal_deflate(&z);
        out.resize(have + room - z.avail_out);
        if (rc != COMP_OK) {
            return;
        }
        if (end ? z.internal_state.state == ZSTATE_END : z.avail_in == 0 && z.avail_out != 0) {
            return;
        }
    }
}

void brotli_run(BrotliEncoderState* st, std::string_view in, std::string& out,
                BrotliEncoderOperation op) {
    std::size_t avail_in = in.size();
    const auto* next_in = reinterpret_cast<const std::uint8_t*>(in.data());
    for (;;) {
        std::size_t have = out.size();
        std::size_t room = std::max<std::size_t>(avail_in / 2 + 1024, 16 * 1024);
        out.resize(have + room);
        std::size_t avail_out = room;
        auto* next_out = reinterpret_cast<std::uint8_t*>(out.data() + have);
        bool ok = BrotliEncoderCompressStream(st, op, &avail_in, &next_in, &avail_out, &next_out,
                                              nullptr) != 0;
        out.resize(have + room - avail_out);
        if (!ok) {
            return;
        }
        bool more = BrotliEncoderHasMoreOutput(st) != 0;
        if (op == BROTLI_OPERATION_FINISH) {
            if (BrotliEncoderIsFinished(st) != 0) {
                return;
            }
        } else if (avail_in == 0 && !more) {
            return;
        }
    }
}

void zstd_run(ZSTD_CCtx* cx, std::string_view in, std::string& out, ZSTD_EndDirective mode) {
    ZSTD_inBuffer ib{in.data(), in.size(), 0};
    for (;;) {
        std::size_t have = out.size();
        std::size_t room = std::max<std::size_t>(ZSTD_CStreamOutSize(), in.size() / 2 + 1024);
        out.resize(have + room);
        ZSTD_outBuffer ob{out.data() + have, room, 0};
        std::size_t rc = ZSTD_compressStream2(cx, &ob, &ib, mode);
        out.resize(have + ob.pos);
        if (ZSTD_isError(rc)) {
            return;
        }
        if (mode == ZSTD_e_continue ? ib.pos == ib.size : rc == 0) {
            return;
        }
    }
}

}  // namespace

void content_encoder::write(std::string_view in, std::string& out, bool flush) {
    switch (kind_) {
        case coding::gzip:
        case coding::deflate:
            isal_run(*st_->iz, in, out, flush, false);
            return;
        case coding::br:
            if (st_->br != nullptr) {
                brotli_run(st_->br, in, out,
                           flush ? BROTLI_OPERATION_FLUSH : BROTLI_OPERATION_PROCESS);
            }
            return;
        case coding::zstd:
            if (st_->zs != nullptr) {
                zstd_run(st_->zs, in, out, flush ? ZSTD_e_flush : ZSTD_e_continue);
            }
            return;
        case coding::identity:
            out.append(in);
            return;
    }
}

void content_encoder::finish(std::string& out) {
    switch (kind_) {
        case coding::gzip:
        case coding::deflate:
            isal_run(*st_->iz, {}, out, false, true);
            return;
        case coding::br:
            if (st_->br != nullptr) {
                brotli_run(st_->br, {}, out, BROTLI_OPERATION_FINISH);
            }
            return;
        case coding::zstd:
            if (st_->zs != nullptr) {
                zstd_run(st_->zs, {}, out, ZSTD_e_end);
            }
            return;
        case coding::identity:
            return;
    }
}

std::string compress(coding c, std::string_view body) {
    std::string out;
    if (c == coding::zstd) {
        // One call, with the content size in the frame header.
        out.resize(ZSTD_compressBound(body.size()));
        ZSTD_CCtx* cx = ZSTD_createCCtx();
        ZSTD_CCtx_setParameter(cx, ZSTD_c_compressionLevel, zstd_level);
        std::size_t n = ZSTD_compress2(cx, out.data(), out.size(), body.data(), body.size());
        ZSTD_freeCCtx(cx);
        out.resize(ZSTD_isError(n) ? 0 : n);
        return out;
    }
    content_encoder e(c);
    out.reserve(body.size() / 4 + 64);
    e.write(body, out, false);
    e.finish(out);
    return out;
}

// ---- negotiation ----

namespace {

// RFC 9110 section 12.4.2: qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ), as
// thousandths; -1 when malformed.
int parse_q(std::string_view v) {
    if (v.empty() || v.size() > 5 || (v[0] != '0' && v[0] != '1')) {
        return -1;
    }
    int q = (v[0] - '0') * 1000;
    if (v.size() == 1) {
        return q;
    }
    if (v[1] != '.') {
        return -1;
    }
    int scale = 100;
    for (std::size_t i = 2; i < v.size(); ++i) {
        if (v[i] < '0' || v[i] > '9') {
            return -1;
        }
        q += (v[i] - '0') * scale;
        scale /= 10;
    }
    return q > 1000 ? -1 : q;
}

}  // namespace

encoding_choice negotiate_encoding(std::string_view accept_encoding, bool present,
                                   bool compress_allowed) {
    encoding_choice out;
    if (!present) {
        return out;
    }
    // Explicit q per coding (-1: not named); star's q (-1: no star).
    std::array<int, coding_count> q;
    q.fill(-1);
    int star = -1;
    std::string_view rest = accept_encoding;
    while (!rest.empty()) {
        auto comma = rest.find(',');
        std::string_view item = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        auto semi = item.find(';');
        std::string name = lower_trim(item.substr(0, semi));
        if (name.empty()) {
            continue;
        }
        int qv = 1000;
        while (semi != std::string_view::npos) {
            item = item.substr(semi + 1);
            semi = item.find(';');
            std::string p = lower_trim(item.substr(0, semi));
            if (p.size() > 2 && p[0] == 'q' && p[1] == '=') {
                qv = parse_q(std::string_view(p).substr(2));
            }
        }
        if (qv < 0) {
            continue;  // a malformed weight: the entry is ignored
        }
        if (name == "*") {
            star = qv;
        } else if (auto c = coding_of(name)) {
            auto& slot = q[static_cast<std::size_t>(*c)];
            slot = std::max(slot, qv);
        }
    }
    auto weight = [&](coding c) {
        int v = q[static_cast<std::size_t>(c)];
        return v >= 0 ? v : star >= 0 ? star : 0;
    };
    int identity_q = q[0] >= 0 ? q[0] : star >= 0 ? star : 1000;
    out.identity_refused = identity_q == 0;
    // Preference on equal q: zstd > br > gzip > deflate.
    constexpr coding order[] = {coding::zstd, coding::br, coding::gzip, coding::deflate};
    coding best = coding::identity;
    int best_q = 0;
    for (coding c : order) {
        if (weight(c) > best_q) {
            best = c;
            best_q = weight(c);
        }
    }
    // identity wins only when it is named with a higher q than every coding.
    bool identity_preferred = q[0] > best_q;
    if (best != coding::identity && !identity_preferred &&
        (compress_allowed || out.identity_refused)) {
        out.chosen = best;
    } else if (out.identity_refused) {
        out.acceptable = best != coding::identity;
        out.chosen = best;
    }
    return out;
}

std::size_t encoder_memory(coding c) noexcept {
    switch (c) {
        case coding::gzip:
        case coding::deflate:
            return sizeof(isal_zstream) + ISAL_DEF_LVL1_DEFAULT;
        case coding::br:
            // The ring buffer (2^22) and quality 4's hash tables and block buffers.
            return (std::size_t{1} << brotli_lgwin) + (2u << 20);
        case coding::zstd:
            // Level 3: a window of at most 2 MiB, its hash and chain tables, stream buffers.
            return (std::size_t{7} << 19);
        case coding::identity:
            break;
    }
    return 0;
}

void encode_answer(const config& cfg, std::string_view accept_encoding, bool present, response& res,
                   metrics& stats, const std::function<bool(std::size_t)>& afford) {
    if (res.body.empty() || res.status == 204 || res.status == 304) {
        return;
    }
    if (cfg.compress) {
        bool merged = false;
        for (auto& [k, v] : res.headers) {
            if (k == "Vary") {
                v += ", Accept-Encoding";
                merged = true;
                break;
            }
        }
        if (!merged) {
            res.headers.emplace_back("Vary", "Accept-Encoding");
        }
    }
    bool big = cfg.compress && res.body.size() >= cfg.compress_min_size;
    encoding_choice ch = negotiate_encoding(accept_encoding, present, big);
    if (!ch.acceptable) {
        res.status = 406;
        res.content_type = std::string(problem_content_type);
        res.body = problem_body(406, "not_acceptable",
                                "Accept-Encoding (" + std::string(accept_encoding) +
                                    ") refuses identity and every coding of ours (" +
                                    std::string(accepted_request_codings) + ")");
        res.headers.emplace_back("Accept-Encoding", std::string(accepted_request_codings));
        return;
    }
    if (ch.chosen == coding::identity) {
        return;
    }
    // The body, its compressed copy and the encoder's state, under the memory budget; when
    // they do not fit now, the answer goes out uncompressed (unless identity is refused).
    if (afford && !ch.identity_refused &&
        !afford(2 * res.body.size() + encoder_memory(ch.chosen))) {
        return;
    }
    std::string z = compress(ch.chosen, res.body);
    stats.content_coding(true, to_string(ch.chosen), z.size(), res.body.size());
    res.body = std::move(z);
    res.headers.emplace_back("Content-Encoding", std::string(to_string(ch.chosen)));
    // The coded bytes differ from the identity ones: a strong ETag becomes weak (RFC 9110
    // section 8.8.1), which If-None-Match still matches (weak comparison).
    for (auto& [k, v] : res.headers) {
        if (k == "ETag" && v.rfind("W/", 0) != 0) {
            v = "W/" + v;
        }
    }
}

}  // namespace polycodec::server::http
