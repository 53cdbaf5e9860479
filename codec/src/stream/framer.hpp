#pragma once
// Record framers of stream mode (DESIGN section 12): one per streamable input format. A framer
// finds the next record's bytes in what has arrived and says how the record is decoded; the
// record_reader of stream.cpp owns the buffer, decodes and maps errors to the whole input.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "polycodec/format.hpp"
#include "polycodec/options.hpp"
#include "polycodec/result.hpp"

namespace polycodec::stream_detail {

/// What a framer found.
struct frame {
    enum class kind : std::uint8_t {
        record,     ///< bytes [begin, end) of the buffer hold one record
        skip,       ///< bytes up to `next` hold no record (framing, blank lines): consume them
        need_more,  ///< the record is not complete yet: feed more input
        end,        ///< the stream is complete
    };
    kind k = kind::need_more;
    std::size_t begin = 0;  ///< buffer index of the record's first byte
    std::size_t end = 0;    ///< buffer index just past it
    std::size_t next = 0;   ///< buffer index where the next frame starts (>= end)
    /// Bytes decoded before the record (the CSV header, the first CSV row): its values come
    /// first in the decoded array and `drop` of them are skipped.
    std::string_view prefix;
    std::string_view suffix;  ///< bytes decoded after the record (the ']' of a YAML flow element)
    /// The decoded document is an array whose element `drop` is the record (CSV rows and YAML
    /// block sequence entries decode as a one-element array); false: the document is the record.
    bool unwrap = false;
    std::uint8_t drop = 0;
};

// The frames a framer returns.
inline frame skip_to(std::size_t next) {
    frame f;
    f.k = frame::kind::skip;
    f.next = next;
    return f;
}
inline frame need_more() { return frame{}; }
inline frame end_of_stream() {
    frame f;
    f.k = frame::kind::end;
    return f;
}
/// Bytes [b, e) are a record; the next frame starts at `next`.
inline frame record(std::size_t b, std::size_t e, std::size_t next) {
    frame f;
    f.k = frame::kind::record;
    f.begin = b;
    f.end = e;
    f.next = next;
    return f;
}

/// A framer sees the buffer from `pos` (the first byte not consumed) on. Between calls that
/// returned need_more, `pos` stays the same and the buffer only grows, so a framer may keep how
/// far it scanned (relative to `pos`) and resume there. Framing errors carry buffer indices as
/// offsets (the reader makes them absolute).
class framer {
public:
    virtual ~framer() = default;
    virtual result<frame> next(std::string_view buf, std::size_t pos, bool eof) = 0;
    /// The format whose decoder reads a record's bytes.
    virtual format_id decode_as() const noexcept = 0;
    /// The element count the input declared up front, when it did.
    virtual std::optional<std::uint64_t> declared_count() const noexcept { return {}; }
};

/// The framer of `f`, or null when `f` is not streamable.
std::unique_ptr<framer> make_framer(format_id f, const decode_options& opt);

std::unique_ptr<framer> make_ndjson_framer();
std::unique_ptr<framer> make_json_framer(bool seq);
std::unique_ptr<framer> make_csv_framer(const decode_options& opt);
std::unique_ptr<framer> make_yaml_framer(bool multi);
std::unique_ptr<framer> make_cbor_framer(bool seq, std::uint32_t max_depth);
std::unique_ptr<framer> make_msgpack_framer(bool seq, std::uint32_t max_depth);
std::unique_ptr<framer> make_bson_framer();

}  // namespace polycodec::stream_detail
