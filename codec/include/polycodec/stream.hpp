#pragma once
/// Stream mode (DESIGN section 12): a sequence of records converted one record at a time
/// through the same seam (bytes -> decoder -> Document -> encoder -> bytes), so memory stays
/// bounded by the largest record whatever the size of the input.
///
/// A `record_reader` is fed the input in chunks of any size; a framer per format finds record
/// boundaries in the bytes that have arrived, and each record is decoded by the format's own
/// decoder into a reused Document. A `record_writer` writes each record with the format's own
/// encoder inside the output's record framing.
///
/// | format  | records in                                          | records out                     |
/// |---------|-----------------------------------------------------|---------------------------------|
/// | ndjson  | one per line                                        | one per line                    |
/// | json    | elements of a top-level array; seq: RFC 7464        | a top-level array; seq: RFC 7464|
/// | csv/tsv | one per row (header as in whole-document mode)      | one row each, header from rec 0 |
/// | yaml    | entries of a top-level sequence; multi: documents   | a block sequence; multi: docs   |
/// | cbor    | elements of a top-level array; seq: RFC 8742        | indefinite array; seq: sequence |
/// | msgpack | elements of a top-level array, or concatenated      | array if count known, else concatenated |
/// | bson    | concatenated documents (mongodump)                  | concatenated documents          |
///
/// Example (a converter in constant memory):
///   polycodec::record_reader in(format_id::ndjson, dopt);
///   polycodec::record_writer out(format_id::csv, eopt);
///   polycodec::document rec;
///   polycodec::output_buffer buf;
///   out.begin(buf);
///   while (read a chunk) {
///       in.feed(chunk);
///       for (;;) {
///           auto s = in.next(rec);           // error: describe(s.error())
///           if (*s != record_reader::step::record) break;
///           out.write(rec, buf);              // flush buf when it is large
///       }
///   }
///   in.finish(); drain next() until step::end; out.end(buf);

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "polycodec/buffer.hpp"
#include "polycodec/document.hpp"
#include "polycodec/format.hpp"
#include "polycodec/options.hpp"
#include "polycodec/result.hpp"

namespace polycodec {

/// The default limit of one record's encoded size (`--max-record`).
inline constexpr std::size_t default_max_record = std::size_t{16} << 20;

/// True for the formats with a record framing: ndjson, json, csv, yaml, cbor, msgpack, bson.
bool is_streamable(format_id f) noexcept;

/// Splits arriving bytes into records and decodes each. Errors carry the absolute byte offset
/// (and line/column for text formats), the JSON Pointer path as the whole-document decode
/// would give it ("/10000/price"), and a message starting "record N: ".
class record_reader {
public:
    enum class step : std::uint8_t {
        record,      ///< `doc` holds the next record
        need_input,  ///< feed() more bytes, or finish()
        end,         ///< every record was read
    };

    /// `max_record`: a record longer than this many bytes is errc::size_exceeded.
    record_reader(format_id f, const decode_options& opt,
                  std::size_t max_record = default_max_record);
    ~record_reader();
    record_reader(const record_reader&) = delete;
    record_reader& operator=(const record_reader&) = delete;

    /// Appends input bytes (copied; consumed records are dropped from the buffer).
    void feed(std::string_view bytes);
    /// Says that no more input follows.
    void finish();
    /// Decodes the next complete record into `doc` (cleared first).
    result<step> next(document& doc);

    /// Records returned so far.
    std::uint64_t records() const noexcept;
    /// Input bytes consumed so far (the offset of the next record's framing).
    std::uint64_t offset() const noexcept;
    /// Bytes held for a record not complete yet.
    std::size_t buffered() const noexcept;
    /// The number of records when the input declared it up front (a definite-length CBOR or
    /// MessagePack array header), once known.
    std::optional<std::uint64_t> declared_count() const noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

/// Writes records in the output format's record framing.
class record_writer {
public:
    record_writer(format_id f, const encode_options& opt);
    ~record_writer();
    record_writer(const record_writer&) = delete;
    record_writer& operator=(const record_writer&) = delete;

    /// Writes what comes before the first record. `count`: the number of records when known up
    /// front (MessagePack then writes an array header). `backpatch`: MessagePack without a
    /// count writes a 32-bit array header whose count the caller patches at the end (a
    /// seekable file; see count_patch()).
    result<void> begin(output_buffer& out, std::optional<std::uint64_t> count = {},
                       bool backpatch = false);
    /// Appends one record (the root of `record`).
    result<void> write(const document& record, output_buffer& out);
    /// Writes what comes after the last record.
    result<void> end(output_buffer& out);

    /// Records written so far.
    std::uint64_t records() const noexcept;
    /// True when the output is a stream of concatenated MessagePack values (no count was
    /// known and no backpatch asked): HTTP says so in `Polycodec-Stream: concatenated`.
    bool concatenated() const noexcept;
    /// With backpatch: the bytes to write at byte `at` of the output once end() returned.
    struct patch {
        std::uint64_t at = 0;
        unsigned char bytes[4] = {};
    };
    std::optional<patch> count_patch() const noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace polycodec
