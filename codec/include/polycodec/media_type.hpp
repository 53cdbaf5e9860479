#pragma once
/// Media types, format specs and content negotiation (DESIGN sections 4 and 7), pure functions
/// shared by the server (Content-Type, Accept, query strings), the TCP protocol's option
/// strings and the CLI (--from 'csv;header=absent').

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "polycodec/format.hpp"
#include "polycodec/options.hpp"
#include "polycodec/result.hpp"

namespace polycodec {

/// A parsed media type: "text/csv; header=absent" -> {"text", "csv", {{"header","absent"}}}.
/// Type, subtype and parameter names are lower-cased; values keep their case, quotes removed.
struct media_type {
    std::string type;
    std::string subtype;
    std::vector<std::pair<std::string, std::string>> params;

    std::string essence() const { return type + "/" + subtype; }
    /// The value of parameter `name`, if present.
    std::optional<std::string_view> param(std::string_view name) const;
};

/// Parses an RFC 9110 media type. Fails with errc::invalid_option on bad syntax.
result<media_type> parse_media_type(std::string_view text);

/// The options of a transcode: formats and every parameter of DESIGN section 4.
struct transcode_options {
    const format_info* from = nullptr;  ///< set by from=, Content-Type or --from
    const format_info* to = nullptr;    ///< set by to=, Accept or --to
    decode_options decode;
    encode_options encode;
    /// stream=true: convert record by record (DESIGN section 12, polycodec/stream.hpp).
    bool stream = false;
    /// Option names that were set explicitly, e.g. "lossy", for logs.
    std::vector<std::string> given;
};

/// How the value of an option is written.
enum class option_kind : std::uint8_t {
    boolean,    ///< true/false (also 1/0, yes/no, on/off; an empty value is true)
    choice,     ///< one of option_info::values
    character,  ///< one character, or "tab"
    name,       ///< free text, e.g. a schema name
    format,     ///< a format spec (see resolve_format_spec)
};

/// One row of the option table: every query parameter, media-type parameter and CLI flag of
/// DESIGN sections 4 and 7. apply_option() accepts exactly these names, and the server's
/// /openapi.json is generated from them, so the two cannot differ.
struct option_info {
    std::string_view name;  ///< lower case, e.g. "pretty"
    option_kind kind;
    /// choice: the accepted values; boolean: the accepted spellings.
    std::span<const std::string_view> values;
    std::string_view default_value;      ///< "false", "deny", "present"; "" = none
    std::span<const format_id> formats;  ///< the formats it concerns; empty = all
    std::string_view summary;            ///< one sentence for documentation
    /// Applies `value` to `opt`; errc::invalid_option when the value is not accepted.
    result<void> (*apply)(std::string_view value, transcode_options& opt);
};

/// Every option, in documentation order.
std::span<const option_info> option_table() noexcept;

/// The row of option `name` (case-insensitive); nullptr when there is none.
const option_info* find_option(std::string_view name) noexcept;

/// Applies one parameter (query, media-type or CLI) by name, through option_table(): pretty,
/// lossy, canonical, multi, stream, seq, header, delimiter, infer, unflatten, strict, extjson,
/// int_width, schema, from, to, charset. Values follow the query syntax: "true"/"false" (also "1"/"0"), lossy=allow|deny,
/// header=present|absent, a one-character delimiter (or "tab", "\t", "%09"). Unknown names
/// fail with errc::invalid_option.
result<void> apply_option(std::string_view name, std::string_view value, transcode_options& opt);

/// Applies a query string "a=1&b=x%20y" (percent-decoding, '+' as space).
result<void> apply_query(std::string_view query, transcode_options& opt);

/// apply_query, each decoded pair offered first to `take`: a pair it takes (returns true) is
/// not applied as an option (the HTTP handler takes from= and to= so).
result<void> apply_query(
    std::string_view query, transcode_options& opt,
    const std::function<bool(std::string_view key, std::string_view value)>& take);

/// A media type of stream mode's record sequences (DESIGN section 12), outside the format
/// table: it names a format and sets `seq`.
struct sequence_media_type {
    std::string_view type;  ///< "application/json-seq"
    format_id format;       ///< json
};

/// application/json-seq (RFC 7464) and application/cbor-seq (RFC 8742).
std::span<const sequence_media_type> sequence_media_types() noexcept;

/// Resolves a format spec: a name ("yaml"), a media type with parameters
/// ("text/csv; header=absent") or NAME;param=value ("csv;header=absent"). Parameters are
/// applied to `opt`. Unknown formats fail with errc::unsupported_format.
result<const format_info*> resolve_format_spec(std::string_view spec, transcode_options& opt);

/// One range of an Accept header.
struct accept_range {
    std::string type;     ///< "*" allowed
    std::string subtype;  ///< "*" allowed
    std::vector<std::pair<std::string, std::string>> params;
    double q = 1.0;
};

/// Parses an Accept header; bad ranges are skipped (RFC 9110 leaves them to the server).
std::vector<accept_range> parse_accept(std::string_view header);

/// The result of negotiating an answer's format.
struct negotiation {
    const format_info* format = nullptr;  ///< nullptr: nothing acceptable (406)
    /// Parameters of the chosen range (e.g. header=absent) to apply to the encoder.
    std::vector<std::pair<std::string, std::string>> params;
};

/// Picks the best format for `accept` (RFC 9110 section 12.5.1: highest q, then most
/// specific range; ties go to `fallback` when it matches, then to table order). An empty
/// header, or a best match of "*/*", answers `fallback` (the input's format). Formats for
/// which `usable` returns false are never chosen.
negotiation negotiate(std::string_view accept, const format_info& fallback,
                      bool (*usable)(const format_info&) = nullptr);

/// Percent-decodes a query component ('+' is a space). False on a bad escape.
bool percent_decode(std::string_view in, std::string& out);

}  // namespace polycodec
