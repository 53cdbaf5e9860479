// protobuf (DESIGN section 14): the Protocol Buffers binary wire format, read and written by
// walking our own descriptor model (formats/protobuf/schema.hpp), which is itself read from a
// FileDescriptorSet's wire bytes. See docs/formats/protobuf.md.

#include "polycodec/formats/protobuf.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "detail/base64.hpp"
#include "detail/confluent.hpp"
#include "detail/epoch_time.hpp"
#include "detail/json_text.hpp"
#include "detail/lossy.hpp"
#include "detail/protobuf_time.hpp"
#include "detail/tape_writer.hpp"
#include "detail/try.hpp"
#include "detail/utf8.hpp"
#include "formats.hpp"
#include "polycodec/codec.hpp"
#include "protobuf/schema.hpp"

namespace polycodec::protobuf {
namespace {

// ---------------------------------------------------------------------------------------------
// The wire reader shared by the descriptor parser and the decoder.

enum wire : std::uint8_t { wt_varint = 0, wt_i64 = 1, wt_len = 2, wt_sgroup = 3, wt_egroup = 4, wt_i32 = 5 };

struct wire_reader {
    const unsigned char* base;
    const unsigned char* p;
    const unsigned char* end;

    std::uint64_t offset() const noexcept { return static_cast<std::uint64_t>(p - base); }

    // False at the end of input or on a varint longer than 10 bytes.
    bool varint(std::uint64_t& v) noexcept {
        if (p < end && *p < 0x80) {
            v = *p++;
            return true;
        }
        std::uint64_t r = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            if (p == end) {
                return false;
            }
            unsigned char c = *p++;
            if (shift == 63 && c > 1) {
                return false;
            }
            r |= static_cast<std::uint64_t>(c & 0x7f) << shift;
            if (c < 0x80) {
                v = r;
                return true;
            }
        }
        return false;
    }
};

error wire_error(errc code, std::uint64_t offset, std::string message) {
    return make_error(code, offset, std::move(message));
}

// ---------------------------------------------------------------------------------------------
// The descriptor parser: just enough of descriptor.proto.

struct span {
    const unsigned char* p = nullptr;
    std::size_t n = 0;
    std::string_view view() const { return {reinterpret_cast<const char*>(p), n}; }
};

// Calls f(number, wire_type, varint, span) for each field of `in`; false on malformed input.
template <class F>
bool for_each_field(span in, F&& f) {
    wire_reader r{in.p, in.p, in.p + in.n};
    while (r.p < r.end) {
        std::uint64_t tag = 0;
        if (!r.varint(tag)) {
            return false;
        }
        auto number = static_cast<std::uint32_t>(tag >> 3);
        std::uint64_t v = 0;
        span s;
        switch (tag & 7) {
            case wt_varint:
                if (!r.varint(v)) {
                    return false;
                }
                break;
            case wt_i64:
                if (r.end - r.p < 8) {
                    return false;
                }
                r.p += 8;
                break;
            case wt_i32:
                if (r.end - r.p < 4) {
                    return false;
                }
                r.p += 4;
                break;
            case wt_len:
                if (!r.varint(v) || v > static_cast<std::uint64_t>(r.end - r.p)) {
                    return false;
                }
                s = {r.p, static_cast<std::size_t>(v)};
                r.p += v;
                break;
            default:
                return false;  // descriptor.proto uses no groups
        }
        if (!f(number, static_cast<unsigned>(tag & 7), v, s)) {
            return false;
        }
    }
    return true;
}

std::string to_json_name(std::string_view name) {
    std::string out;
    bool upper = false;
    for (char c : name) {
        if (c == '_') {
            upper = true;
        } else if (upper) {
            out += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c;
            upper = false;
        } else {
            out += c;
        }
    }
    return out;
}

struct raw_field {
    field_desc d;
    std::string type_name;
    std::int32_t label = 1;
    bool proto3_optional = false;
    bool has_oneof = false;
    bool has_json_name = false;
    int packed_option = -1;  // [packed = ...]: -1 not given
};

struct parser {
    schema& s;
    std::vector<std::vector<raw_field>> raw;  // per message
    std::string problem;

    bool parse_enum(span in, const std::string& scope) {
        enum_desc e;
        bool ok = for_each_field(in, [&](std::uint32_t n, unsigned wt, std::uint64_t, span v) {
            if (n == 1 && wt == wt_len) {
                e.full_name = scope.empty() ? std::string(v.view()) : scope + "." + std::string(v.view());
            } else if (n == 2 && wt == wt_len) {
                enum_value_desc ev;
                bool vok = for_each_field(v, [&](std::uint32_t m, unsigned w, std::uint64_t x, span y) {
                    if (m == 1 && w == wt_len) {
                        ev.name = std::string(y.view());
                    } else if (m == 2 && w == wt_varint) {
                        ev.number = static_cast<std::int32_t>(x);
                    }
                    return true;
                });
                if (!vok) {
                    return false;
                }
                e.values.push_back(std::move(ev));
            }
            return true;
        });
        if (!ok) {
            problem = "malformed EnumDescriptorProto in " + (scope.empty() ? std::string("<root>") : scope);
            return false;
        }
        e.null_value = e.full_name == "google.protobuf.NullValue";
        s.enum_by_name[e.full_name] = static_cast<std::int32_t>(s.enums.size());
        s.enums.push_back(std::move(e));
        return true;
    }

    bool parse_message(span in, const std::string& scope, bool proto3, bool top, bool main_file) {
        auto index = static_cast<std::int32_t>(s.messages.size());
        s.messages.emplace_back();
        raw.emplace_back();
        s.messages[index].proto3 = proto3;
        std::vector<span> nested, enums;
        std::string name;
        std::vector<raw_field> fields;
        std::uint32_t oneofs = 0;
        bool map_entry = false;
        bool ok = for_each_field(in, [&](std::uint32_t n, unsigned wt, std::uint64_t, span v) {
            if (wt != wt_len) {
                return true;
            }
            switch (n) {
                case 1: name = std::string(v.view()); break;
                case 2: {
                    raw_field f;
                    bool fok = for_each_field(v, [&](std::uint32_t m, unsigned w, std::uint64_t x, span y) {
                        if (w == wt_len && m != 8) {
                            if (m == 1) f.d.name = std::string(y.view());
                            else if (m == 6) f.type_name = std::string(y.view());
                            else if (m == 7) f.d.default_value = std::string(y.view());
                            else if (m == 10) { f.d.json_name = std::string(y.view()); f.has_json_name = true; }
                        } else if (m == 8 && w == wt_len) {
                            bool ook = for_each_field(y, [&](std::uint32_t o, unsigned ow, std::uint64_t ox, span) {
                                if (o == 2 && ow == wt_varint) {
                                    f.packed_option = ox != 0 ? 1 : 0;
                                }
                                return true;
                            });
                            if (!ook) {
                                return false;
                            }
                        } else if (w == wt_varint) {
                            if (m == 3) f.d.number = static_cast<std::uint32_t>(x);
                            else if (m == 4) f.label = static_cast<std::int32_t>(x);
                            else if (m == 5) f.d.type = static_cast<field_type>(x);
                            else if (m == 9) { f.d.oneof = static_cast<std::int32_t>(x); f.has_oneof = true; }
                            else if (m == 17) f.proto3_optional = x != 0;
                        }
                        return true;
                    });
                    if (!fok) {
                        return false;
                    }
                    fields.push_back(std::move(f));
                    break;
                }
                case 3: nested.push_back(v); break;
                case 4: enums.push_back(v); break;
                case 7: {
                    bool ook = for_each_field(v, [&](std::uint32_t m, unsigned w, std::uint64_t x, span) {
                        if (m == 7 && w == wt_varint) {
                            map_entry = x != 0;
                        }
                        return true;
                    });
                    if (!ook) {
                        return false;
                    }
                    break;
                }
                case 8: ++oneofs; break;
                default: break;
            }
            return true;
        });
        if (!ok || name.empty()) {
            problem = "malformed DescriptorProto in " + (scope.empty() ? std::string("<root>") : scope);
            return false;
        }
        std::string full = scope.empty() ? name : scope + "." + name;
        message_desc& m = s.messages[index];
        m.full_name = full;
        m.map_entry = map_entry;
        m.oneof_count = oneofs;
        s.message_by_name[full] = index;
        if (top && main_file) {
            s.main_messages.push_back(index);
        }
        raw[index] = std::move(fields);
        return parse_declared(enums, nested, full, proto3, false, main_file);
    }

    // The enums and then the messages declared in a file or a message, named inside `scope`.
    // Used by parse_file and parse_message.
    bool parse_declared(const std::vector<span>& enums, const std::vector<span>& messages,
                        const std::string& scope, bool proto3, bool top, bool main_file) {
        for (span e : enums) {
            if (!parse_enum(e, scope)) {
                return false;
            }
        }
        for (span m : messages) {
            if (!parse_message(m, scope, proto3, top, main_file)) {
                return false;
            }
        }
        return true;
    }

    bool parse_file(span in, bool main_file) {
        std::string package, syntax;
        std::vector<span> messages, enums;
        bool ok = for_each_field(in, [&](std::uint32_t n, unsigned wt, std::uint64_t, span v) {
            if (wt == wt_len) {
                if (n == 2) package = std::string(v.view());
                else if (n == 4) messages.push_back(v);
                else if (n == 5) enums.push_back(v);
                else if (n == 12) syntax = std::string(v.view());
            }
            return true;
        });
        if (!ok) {
            problem = "malformed FileDescriptorProto";
            return false;
        }
        return parse_declared(enums, messages, package, syntax == "proto3", true, main_file);
    }

    bool resolve() {
        for (std::size_t i = 0; i < s.messages.size(); ++i) {
            message_desc& m = s.messages[i];
            std::uint32_t max_small = 0;
            for (raw_field& f : raw[i]) {
                if (f.d.number == 0 || f.d.number > 536870911) {
                    problem = m.full_name + "." + f.d.name + ": field number " + std::to_string(f.d.number) + " out of range";
                    return false;
                }
                if (f.d.number < 1024) {
                    max_small = std::max(max_small, f.d.number + 1);
                }
                auto t = static_cast<unsigned>(f.d.type);
                if (t < 1 || t > 18) {
                    problem = m.full_name + "." + f.d.name + ": unknown field type " + std::to_string(t);
                    return false;
                }
                f.d.repeated = f.label == 3;
                if (!f.has_json_name) {
                    f.d.json_name = to_json_name(f.d.name);
                }
                if (!f.has_oneof || f.proto3_optional) {
                    // A proto3 optional field sits in a synthetic oneof; it behaves as presence.
                    if (!f.has_oneof) {
                        f.d.oneof = no_index;
                    }
                }
                if (f.d.type == field_type::message || f.d.type == field_type::group ||
                    f.d.type == field_type::enum_) {
                    std::string_view tn = f.type_name;
                    if (!tn.empty() && tn[0] == '.') {
                        tn.remove_prefix(1);
                    }
                    if (f.d.type == field_type::enum_) {
                        auto it = s.enum_by_name.find(std::string(tn));
                        if (it == s.enum_by_name.end()) {
                            problem = m.full_name + "." + f.d.name + ": enum type \"" + f.type_name + "\" is not in the set";
                            return false;
                        }
                        f.d.enum_ = it->second;
                    } else {
                        auto it = s.message_by_name.find(std::string(tn));
                        if (it == s.message_by_name.end()) {
                            problem = m.full_name + "." + f.d.name + ": message type \"" + f.type_name + "\" is not in the set (protoc --include_imports)";
                            return false;
                        }
                        f.d.message = it->second;
                    }
                }
                f.d.packed = f.d.repeated && f.d.type != field_type::string &&
                             f.d.type != field_type::bytes && f.d.type != field_type::message &&
                             f.d.type != field_type::group &&
                             (f.packed_option == 1 || (f.packed_option == -1 && m.proto3));
                f.d.presence = !f.d.repeated &&
                               (!m.proto3 || f.d.type == field_type::message ||
                                f.d.type == field_type::group || f.has_oneof);
            }
            m.by_small_number.assign(max_small, no_index);
            for (raw_field& f : raw[i]) {
                auto idx = static_cast<std::int32_t>(m.fields.size());
                if (m.find_number(f.d.number) != no_index) {
                    problem = m.full_name + ": field number " + std::to_string(f.d.number) + " used twice";
                    return false;
                }
                if (f.d.number < max_small) {
                    m.by_small_number[f.d.number] = idx;
                } else {
                    m.by_large_number[f.d.number] = idx;
                }
                m.by_name.emplace(f.d.name, idx);
                m.by_name.emplace(f.d.json_name, idx);
                m.fields.push_back(std::move(f.d));
            }
            for (field_desc& f : m.fields) {
                f.name_wins = m.by_name[f.name] == static_cast<std::int32_t>(&f - m.fields.data());
                output_buffer q;
                detail::json_write_string(q, f.json_name);
                f.json_key.assign(q.view());
                q.clear();
                detail::json_write_string(q, f.name);
                f.name_key.assign(q.view());
            }
        }
        for (message_desc& m : s.messages) {
            for (field_desc& f : m.fields) {
                if (f.repeated && f.type == field_type::message && s.messages[f.message].map_entry) {
                    f.map = true;
                }
            }
            const std::string& n = m.full_name;
            if (n.rfind("google.protobuf.", 0) == 0) {
                std::string_view b = std::string_view(n).substr(16);
                if (b == "Timestamp") m.kind = wkt::timestamp;
                else if (b == "Duration") m.kind = wkt::duration;
                else if (b == "Struct") m.kind = wkt::struct_;
                else if (b == "Value") m.kind = wkt::value;
                else if (b == "ListValue") m.kind = wkt::list_value;
                else if (b == "FieldMask") m.kind = wkt::field_mask;
                else if (b == "Any") m.kind = wkt::any;
                else if (b == "Empty") m.kind = wkt::empty;
                else if (b == "DoubleValue" || b == "FloatValue" || b == "Int64Value" ||
                         b == "UInt64Value" || b == "Int32Value" || b == "UInt32Value" ||
                         b == "BoolValue" || b == "StringValue" || b == "BytesValue") {
                    m.kind = wkt::wrapper;
                }
                // A WKT whose fields are not the expected ones is treated as a plain message.
                if (m.kind == wkt::wrapper && (m.fields.size() != 1 || m.fields[0].number != 1)) {
                    m.kind = wkt::none;
                }
            }
        }
        return true;
    }
};

}  // namespace

result<std::shared_ptr<const schema>> parse_descriptor_set(std::string_view bytes) {
    auto s = std::make_shared<schema>();
    parser p{*s, {}, {}};
    span in{reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()};
    std::vector<span> files;
    bool ok = for_each_field(in, [&](std::uint32_t n, unsigned wt, std::uint64_t, span v) {
        if (n == 1 && wt == wt_len) {
            files.push_back(v);
        }
        return true;
    });
    if (!ok) {
        return fail(make_error(errc::invalid_option, "not a FileDescriptorSet: malformed wire data"));
    }
    if (files.empty()) {
        return fail(make_error(errc::invalid_option, "the FileDescriptorSet holds no file"));
    }
    for (std::size_t i = 0; i < files.size(); ++i) {
        if (!p.parse_file(files[i], i + 1 == files.size())) {
            return fail(make_error(errc::invalid_option, p.problem));
        }
    }
    if (!p.resolve()) {
        return fail(make_error(errc::invalid_option, p.problem));
    }
    return std::shared_ptr<const schema>(std::move(s));
}

std::vector<std::string> message_names(const schema& s) {
    std::vector<std::string> out;
    for (const message_desc& m : s.messages) {
        if (!m.map_entry) {
            out.push_back(m.full_name);
        }
    }
    return out;
}

}  // namespace polycodec::protobuf

namespace polycodec::detail {
namespace {

using namespace polycodec::protobuf;

// The tag of an unknown field's value in the document: a tagged(other, 22) holding the
// field's raw wire bytes (tag and value), under its field number as an integer key.
constexpr std::uint64_t unknown_field_tag = 22;

constexpr std::int32_t max_message_depth = 100;

bool packable(field_type t) noexcept {
    return t != field_type::string && t != field_type::bytes && t != field_type::message &&
           t != field_type::group;
}

unsigned expected_wire(field_type t) noexcept {
    switch (t) {
        case field_type::double_:
        case field_type::fixed64:
        case field_type::sfixed64: return wt_i64;
        case field_type::float_:
        case field_type::fixed32:
        case field_type::sfixed32: return wt_i32;
        case field_type::string:
        case field_type::bytes:
        case field_type::message: return wt_len;
        case field_type::group: return wt_sgroup;
        default: return wt_varint;
    }
}

std::string_view type_label(field_type t) noexcept {
    switch (t) {
        case field_type::double_: return "double";
        case field_type::float_: return "float";
        case field_type::int64: return "int64";
        case field_type::uint64: return "uint64";
        case field_type::int32: return "int32";
        case field_type::fixed64: return "fixed64";
        case field_type::fixed32: return "fixed32";
        case field_type::bool_: return "bool";
        case field_type::string: return "string";
        case field_type::group: return "group";
        case field_type::message: return "message";
        case field_type::bytes: return "bytes";
        case field_type::uint32: return "uint32";
        case field_type::enum_: return "enum";
        case field_type::sfixed32: return "sfixed32";
        case field_type::sfixed64: return "sfixed64";
        case field_type::sint32: return "sint32";
        case field_type::sint64: return "sint64";
    }
    return "?";
}


// framing=confluent: the message indexes of a message are its path from the main file's
// top-level messages through the nested ones, in declaration order (the order the descriptor
// lists them and parse_message appends them, map entries included).
bool direct_child(const schema& s, std::int32_t parent, std::int32_t j) {
    const std::string& p = s.messages[parent].full_name;
    const std::string& n = s.messages[j].full_name;
    return n.size() > p.size() + 1 && n.compare(0, p.size(), p) == 0 && n[p.size()] == '.' &&
           n.find('.', p.size() + 1) == std::string::npos;
}

std::int32_t message_at_path(const schema& s, const std::vector<std::int32_t>& path) {
    if (path.empty() || static_cast<std::size_t>(path[0]) >= s.main_messages.size()) {
        return no_index;
    }
    std::int32_t at = s.main_messages[path[0]];
    for (std::size_t k = 1; k < path.size(); ++k) {
        std::int32_t seen = 0;
        std::int32_t found = no_index;
        for (auto j = at + 1; j < static_cast<std::int32_t>(s.messages.size()); ++j) {
            if (direct_child(s, at, j) && seen++ == path[k]) {
                found = j;
                break;
            }
        }
        if (found == no_index) {
            return no_index;
        }
        at = found;
    }
    return at;
}

bool path_to(const schema& s, std::int32_t from, std::int32_t target, std::vector<std::int32_t>& path) {
    if (from == target) {
        return true;
    }
    std::int32_t k = 0;
    for (auto j = from + 1; j < static_cast<std::int32_t>(s.messages.size()); ++j) {
        if (direct_child(s, from, j)) {
            path.push_back(k++);
            if (path_to(s, j, target, path)) {
                return true;
            }
            path.pop_back();
        }
    }
    return false;
}

// The message indexes of message mi; false when it is not in the main file.
bool message_path(const schema& s, std::int32_t mi, std::vector<std::int32_t>& path) {
    path.clear();
    for (std::size_t t = 0; t < s.main_messages.size(); ++t) {
        path.push_back(static_cast<std::int32_t>(t));
        if (path_to(s, s.main_messages[t], mi, path)) {
            return true;
        }
        path.pop_back();
    }
    return false;
}

// ---------------------------------------------------------------------------------------------
// Decoding

struct occurrence {
    std::int32_t field;      // index in the message, or no_index for an unknown field
    std::uint32_t number;
    std::uint32_t order;     // position on the wire
    std::uint8_t wt;
    std::uint64_t value;     // varint / fixed value
    const unsigned char* start;  // wt_len and groups: the payload; unknown: the whole field
    const unsigned char* stop;
};

class decoder {
public:
    decoder(std::string_view in, builder& b, const schema& s)
        : in_(reinterpret_cast<const unsigned char*>(in.data())), end_(in_ + in.size()), b_(b), s_(s),
          occ_(scratch()), top_level_(occ_.empty()) {}
    ~decoder() {
        if (top_level_) {
            occ_.clear();
            if (occ_.capacity() > (std::size_t{1} << 20)) {
                std::vector<occurrence>().swap(occ_);
            }
        }
    }
    decoder(const decoder&) = delete;
    decoder& operator=(const decoder&) = delete;

    // Decodes message `root` from `start` bytes into the input (after a framing header).
    result<void> run(std::int32_t root, std::size_t start = 0) {
        POLYCODEC_TRY(message(root, in_ + start, end_, 0, 0));
        if (!b_.ok()) {
            return fail(budget_error(end_));
        }
        return {};
    }

private:
    const unsigned char* in_;
    const unsigned char* end_;
    builder& b_;
    const schema& s_;
    // The fields of every open message, shared per thread (and with merge decoders) so that a
    // steady-state decode allocates nothing.
    std::vector<occurrence>& occ_;
    bool top_level_;

    static std::vector<occurrence>& scratch() {
        thread_local std::vector<occurrence> v;
        return v;
    }

    std::uint64_t off(const unsigned char* p) const noexcept { return static_cast<std::uint64_t>(p - in_); }

    error budget_error(const unsigned char* at) const {
        if (b_.status() == errc::depth_exceeded) {
            return wire_error(errc::depth_exceeded, off(at), "nesting deeper than the depth limit");
        }
        return wire_error(errc::size_exceeded, off(at), "document larger than its budget");
    }

    // Reads the fields of [p, end) into occ_; a group's fields end at its end-group tag.
    result<const unsigned char*> scan(const message_desc* m, const unsigned char* p,
                                      const unsigned char* end, std::uint32_t group, int depth) {
        wire_reader r{in_, p, end};
        std::uint32_t order = 0;
        while (r.p < end) {
            const unsigned char* field_start = r.p;
            std::uint64_t tag = 0;
            if (!r.varint(tag)) {
                return fail(wire_error(r.p == end ? errc::unexpected_eof : errc::malformed, off(field_start),
                                       r.p == end ? "input ends inside a field tag" : "field tag longer than 10 bytes"));
            }
            if (tag > 0xffffffffu) {
                return fail(wire_error(errc::malformed, off(field_start), "field tag above 32 bits"));
            }
            auto number = static_cast<std::uint32_t>(tag >> 3);
            auto wt = static_cast<std::uint8_t>(tag & 7);
            if (number == 0) {
                return fail(wire_error(errc::malformed, off(field_start), "field number 0"));
            }
            if (wt == wt_egroup) {
                if (number != group) {
                    return fail(wire_error(errc::malformed, off(field_start),
                                           "end-group tag of field " + std::to_string(number) +
                                               (group != 0 ? " inside group " + std::to_string(group)
                                                           : std::string(" outside any group"))));
                }
                return r.p;
            }
            occurrence o{no_index, number, order++, wt, 0, nullptr, nullptr};
            if (m != nullptr) {
                o.field = m->find_number(number);
            }
            switch (wt) {
                case wt_varint:
                    if (!r.varint(o.value)) {
                        return fail(wire_error(r.p == end ? errc::unexpected_eof : errc::malformed,
                                               off(field_start),
                                               r.p == end ? "input ends inside the varint of field " + std::to_string(number)
                                                          : "varint of field " + std::to_string(number) + " longer than 10 bytes"));
                    }
                    break;
                case wt_i64:
                    if (end - r.p < 8) {
                        return fail(wire_error(errc::unexpected_eof, off(r.p), "truncated 64-bit value"));
                    }
                    std::memcpy(&o.value, r.p, 8);
                    r.p += 8;
                    break;
                case wt_i32: {
                    if (end - r.p < 4) {
                        return fail(wire_error(errc::unexpected_eof, off(r.p), "truncated 32-bit value"));
                    }
                    std::uint32_t v32;
                    std::memcpy(&v32, r.p, 4);
                    o.value = v32;
                    r.p += 4;
                    break;
                }
                case wt_len: {
                    const unsigned char* len_at = r.p;
                    std::uint64_t n = 0;
                    if (!r.varint(n)) {
                        return fail(wire_error(errc::unexpected_eof, off(len_at), "truncated length"));
                    }
                    if (n > static_cast<std::uint64_t>(end - r.p)) {
                        return fail(wire_error(errc::size_exceeded, off(len_at),
                                               "length " + std::to_string(n) + " beyond the " +
                                                   std::to_string(end - r.p) + " bytes left"));
                    }
                    o.start = r.p;
                    r.p += n;
                    o.stop = r.p;
                    break;
                }
                case wt_sgroup: {
                    if (depth >= max_message_depth) {
                        return fail(wire_error(errc::depth_exceeded, off(field_start), "groups nested too deeply"));
                    }
                    o.start = r.p;
                    // Skip the group's contents (validating them) to find its end.
                    std::size_t mark = occ_.size();
                    auto after = scan(nullptr, r.p, end, number, depth + 1);
                    if (!after) {
                        return fail(std::move(after.error()));
                    }
                    occ_.resize(mark);
                    if (*after == nullptr) {
                        return fail(wire_error(errc::unexpected_eof, off(end), "group " + std::to_string(number) + " not closed"));
                    }
                    r.p = *after;
                    o.stop = r.p;  // just past the end-group tag
                    break;
                }
                default:
                    return fail(wire_error(errc::malformed, off(field_start),
                                           "bad wire type " + std::to_string(wt) + " of field " + std::to_string(number)));
            }
            if (o.field != no_index) {
                const field_desc& f = m->fields[o.field];
                unsigned want = expected_wire(f.type);
                if (wt != want && !(f.repeated && wt == wt_len && packable(f.type))) {
                    o.field = no_index;  // a wire type that does not fit: an unknown field
                }
            }
            if (o.field == no_index) {
                o.start = field_start;
                o.stop = r.p;
            }
            occ_.push_back(o);
        }
        if (group != 0) {
            return static_cast<const unsigned char*>(nullptr);
        }
        return r.p;
    }

    result<void> message(std::int32_t mi, const unsigned char* p, const unsigned char* end,
                         std::uint32_t group, int depth, bool inline_fields = false) {
        const message_desc& m = s_.messages[mi];
        if (depth >= max_message_depth) {
            return fail(wire_error(errc::depth_exceeded, off(p), "messages nested deeper than " +
                                                                     std::to_string(max_message_depth)));
        }
        std::size_t base = occ_.size();
        auto after = scan(&m, p, end, group, depth);
        if (!after) {
            return fail(std::move(after.error()));
        }
        std::size_t top = occ_.size();
        // Oneofs: only the member that came last stays.
        if (m.oneof_count != 0) {
            // proto3 `optional` fields are synthetic oneofs too: no allocation for the usual few.
            std::int32_t small[32];
            std::vector<std::int32_t> big;
            std::int32_t* last = small;
            if (m.oneof_count > 32) {
                big.assign(m.oneof_count, -1);
                last = big.data();
            } else {
                std::fill(small, small + m.oneof_count, -1);
            }
            for (std::size_t i = base; i < top; ++i) {
                const occurrence& o = occ_[i];
                if (o.field != no_index && m.fields[o.field].oneof != no_index &&
                    static_cast<std::uint32_t>(m.fields[o.field].oneof) < m.oneof_count) {
                    last[m.fields[o.field].oneof] = o.field;
                }
            }
            for (std::size_t i = base; i < top; ++i) {
                occurrence& o = occ_[i];
                if (o.field != no_index && m.fields[o.field].oneof != no_index &&
                    static_cast<std::uint32_t>(m.fields[o.field].oneof) < m.oneof_count &&
                    last[m.fields[o.field].oneof] != o.field) {
                    o.field = -2;  // superseded
                }
            }
        }
        // Group the occurrences of each field: in field-number order (as libprotobuf writes
        // them), unknown fields last in the order they came.
        auto key = [&](const occurrence& o) -> std::uint64_t {
            if (o.field >= 0) {
                return o.number;
            }
            return (std::uint64_t{1} << 32) + o.order;
        };
        bool sorted = true;
        for (std::size_t i = base + 1; i < top; ++i) {
            if (key(occ_[i - 1]) > key(occ_[i])) {
                sorted = false;
                break;
            }
        }
        if (!sorted) {
            std::stable_sort(occ_.begin() + static_cast<std::ptrdiff_t>(base),
                             occ_.begin() + static_cast<std::ptrdiff_t>(top),
                             [&](const occurrence& a, const occurrence& b) { return key(a) < key(b); });
        }
        result<void> r = emit_message(m, base, top, depth, inline_fields);
        occ_.resize(base);
        return r;
    }

    // Emits the message whose occurrences are occ_[base, top).
    result<void> emit_message(const message_desc& m, std::size_t base, std::size_t top, int depth,
                              bool inline_fields = false) {
        switch (inline_fields ? wkt::none : m.kind) {
            case wkt::timestamp:
            case wkt::duration: return emit_time(m, base, top, depth);
            case wkt::wrapper: return emit_single(m, base, top, depth, 0, true);
            case wkt::struct_: return emit_single(m, base, top, depth, 1, false);
            case wkt::list_value: return emit_single(m, base, top, depth, 1, false);
            case wkt::field_mask: return emit_single(m, base, top, depth, 1, false);
            case wkt::value: return emit_value(m, base, top, depth);
            case wkt::any: return emit_any(m, base, top, depth);
            default: break;
        }
        if (!inline_fields && !b_.begin_map()) {
            return fail(budget_error(base < top ? occ_[base].start : in_));
        }
        std::size_t i = base;
        while (i < top) {
            std::size_t j = i + 1;
            const occurrence& o = occ_[i];
            if (o.field == -2) {
                ++i;
                continue;
            }
            if (o.field == no_index) {
                b_.add_int(o.number);
                b_.begin_tagged(unknown_field_tag, tag_space::other);
                b_.add_bytes({reinterpret_cast<const char*>(o.start), static_cast<std::size_t>(o.stop - o.start)});
                ++i;
                continue;
            }
            while (j < top && occ_[j].field == o.field) {
                ++j;
            }
            const field_desc& f = m.fields[o.field];
            if (!f.repeated && !f.presence && is_default(f, occ_[j - 1])) {
                i = j;
                continue;  // proto3 implicit presence: a zero value is an unset field
            }
            if (f.repeated && !f.map && packable(f.type)) {
                bool empty = true;
                for (std::size_t k = i; k < j && empty; ++k) {
                    empty = occ_[k].wt == wt_len && occ_[k].start == occ_[k].stop;
                }
                if (empty) {
                    i = j;
                    continue;  // only empty packed runs: no element, an unset field
                }
            }
            b_.add_string(f.name);
            POLYCODEC_TRY(emit_field(f, i, j, depth));
            i = j;
        }
        if (!inline_fields) {
            b_.end_map();
        }
        return {};
    }

    bool is_default(const field_desc& f, const occurrence& o) const noexcept {
        switch (f.type) {
            case field_type::string:
            case field_type::bytes: return o.start == o.stop;
            case field_type::message:
            case field_type::group: return false;
            case field_type::float_: return static_cast<std::uint32_t>(o.value) == 0;
            case field_type::int32:
            case field_type::uint32:
            case field_type::sint32:
            case field_type::enum_:
            case field_type::bool_:
                return static_cast<std::uint32_t>(o.value) == 0 &&
                       (f.type != field_type::bool_ || o.value == 0);
            default: return o.value == 0;
        }
    }

    // The value of field f from its occurrences [i, j) (no key).
    result<void> emit_field(const field_desc& f, std::size_t i, std::size_t j, int depth) {
        if (f.map) {
            if (!b_.begin_map()) {
                return fail(budget_error(occ_[i].start));
            }
            for (std::size_t k = i; k < j; ++k) {
                POLYCODEC_TRY(emit_map_entry(f, occ_[k], depth));
            }
            b_.end_map();
            return {};
        }
        if (f.repeated) {
            if (!b_.begin_array()) {
                return fail(budget_error(occ_[i].start));
            }
            for (std::size_t k = i; k < j; ++k) {
                const occurrence o = occ_[k];
                if (o.wt == wt_len && packable(f.type)) {
                    POLYCODEC_TRY(emit_packed(f, o));
                } else {
                    POLYCODEC_TRY(emit_scalar(f, o, depth));
                }
            }
            b_.end_array();
            return {};
        }
        if (j - i > 1 && (f.type == field_type::message || f.type == field_type::group)) {
            // A message field given several times is their merge: the concatenation parses so.
            // Groups are re-framed as length-delimited payloads (their end tags dropped).
            std::string joined;
            for (std::size_t k = i; k < j; ++k) {
                const occurrence& o = occ_[k];
                const unsigned char* stop = o.stop;
                if (f.type == field_type::group) {
                    stop = group_payload_end(o);
                }
                joined.append(reinterpret_cast<const char*>(o.start), static_cast<std::size_t>(stop - o.start));
            }
            return nested_from_copy(f, joined, occ_[j - 1].start, depth);
        }
        return emit_scalar(f, occ_[j - 1], depth);
    }

    // The end of a group's payload: just before its end-group tag.
    const unsigned char* group_payload_end(const occurrence& o) const noexcept {
        // The end-group tag is the varint of (number << 3 | 4) just before o.stop.
        std::uint64_t t = (static_cast<std::uint64_t>(o.number) << 3) | wt_egroup;
        std::size_t len = 1;
        while (t >= 0x80) {
            t >>= 7;
            ++len;
        }
        return o.stop - len;
    }

    result<void> nested_from_copy(const field_desc& f, const std::string& bytes,
                                  const unsigned char* at, int depth) {
        // Decode the merged bytes with a decoder of their own, offsets reported at `at`.
        decoder sub(bytes, b_, s_);
        auto r = sub.message(f.message, sub.in_, sub.end_, 0, depth + 1);
        if (!r) {
            error e = std::move(r.error());
            e.offset = off(at);
            e.message += " (in the merge of field " + f.name + "'s repeated occurrences)";
            return fail(std::move(e));
        }
        return {};
    }

    result<void> emit_packed(const field_desc& f, const occurrence& o) {
        wire_reader r{in_, o.start, o.stop};
        while (r.p < r.end) {
            occurrence e = o;
            switch (expected_wire(f.type)) {
                case wt_varint:
                    if (!r.varint(e.value)) {
                        return fail(wire_error(errc::malformed, off(r.p), "truncated varint in packed field " + f.name));
                    }
                    break;
                case wt_i64:
                    if (r.end - r.p < 8) {
                        return fail(wire_error(errc::malformed, off(r.p), "packed field " + f.name + " ends inside a 64-bit value"));
                    }
                    std::memcpy(&e.value, r.p, 8);
                    r.p += 8;
                    break;
                default: {
                    if (r.end - r.p < 4) {
                        return fail(wire_error(errc::malformed, off(r.p), "packed field " + f.name + " ends inside a 32-bit value"));
                    }
                    std::uint32_t v32;
                    std::memcpy(&v32, r.p, 4);
                    e.value = v32;
                    r.p += 4;
                    break;
                }
            }
            POLYCODEC_TRY(emit_scalar(f, e, 0));
        }
        return {};
    }

    result<void> emit_map_entry(const field_desc& f, const occurrence o, int depth) {
        const message_desc& entry = s_.messages[f.message];
        std::size_t base = occ_.size();
        auto after = scan(&entry, o.start, o.stop, 0, depth + 1);
        if (!after) {
            return fail(std::move(after.error()));
        }
        std::size_t top = occ_.size();
        std::int32_t key_field = entry.find_number(1);
        std::int32_t val_field = entry.find_number(2);
        std::size_t key_at = top, val_at = top;
        for (std::size_t k = base; k < top; ++k) {
            if (occ_[k].field == key_field && key_field != no_index) key_at = k;
            if (occ_[k].field == val_field && val_field != no_index) val_at = k;
        }
        result<void> r;
        if (key_field == no_index || val_field == no_index) {
            r = fail(wire_error(errc::malformed, off(o.start), "map entry type without key or value"));
        } else {
            const field_desc& kf = entry.fields[key_field];
            const field_desc& vf = entry.fields[val_field];
            if (kf.type == field_type::bool_) {
                // "true"/"false", as ProtoJSON writes them: JSON and the other string-keyed
                // formats have no bool keys (docs/formats/protobuf.md).
                b_.add_string(key_at != top && occ_[key_at].value != 0 ? "true" : "false");
            } else if (key_at == top) {
                emit_default(kf);
            } else {
                r = emit_scalar(kf, occ_[key_at], depth + 1);
            }
            if (r) {
                if (val_at == top) {
                    r = emit_default_value(vf, depth + 1);
                } else {
                    r = emit_field(vf, val_at, val_at + 1, depth + 1);
                }
            }
        }
        occ_.resize(base);
        return r;
    }

    void emit_default(const field_desc& f) {
        switch (f.type) {
            case field_type::string: b_.add_string(""); break;
            case field_type::bytes: b_.add_bytes(""); break;
            case field_type::bool_: b_.add_bool(false); break;
            case field_type::double_:
            case field_type::float_: b_.add_double(0.0); break;
            case field_type::enum_: {
                const enum_desc& e = s_.enums[f.enum_];
                if (e.null_value) {
                    b_.add_null();
                } else if (!e.values.empty()) {
                    b_.add_string(e.values[0].name);
                } else {
                    b_.add_int(0);
                }
                break;
            }
            default: b_.add_int(0); break;
        }
    }

    // The default value of a field that is absent (map values, wrappers).
    result<void> emit_default_value(const field_desc& f, int depth) {
        if (f.type == field_type::message || f.type == field_type::group) {
            return message(f.message, in_, in_, 0, depth + 1);
        }
        emit_default(f);
        return {};
    }

    result<void> emit_scalar(const field_desc& f, const occurrence& o, int depth) {
        std::uint64_t v = o.value;
        switch (f.type) {
            case field_type::double_: {
                double d;
                std::memcpy(&d, &v, 8);
                b_.add_double(d);
                return {};
            }
            case field_type::float_: {
                float x;
                auto v32 = static_cast<std::uint32_t>(v);
                std::memcpy(&x, &v32, 4);
                b_.add_double(static_cast<double>(x));
                return {};
            }
            case field_type::int64:
            case field_type::sfixed64: b_.add_int(static_cast<std::int64_t>(v)); return {};
            case field_type::uint64:
            case field_type::fixed64: b_.add_uint(v); return {};
            case field_type::int32:
            case field_type::sfixed32: b_.add_int(static_cast<std::int32_t>(static_cast<std::uint32_t>(v))); return {};
            case field_type::uint32:
            case field_type::fixed32: b_.add_int(static_cast<std::uint32_t>(v)); return {};
            case field_type::sint32: {
                auto u = static_cast<std::uint32_t>(v);
                b_.add_int(static_cast<std::int32_t>((u >> 1) ^ (~(u & 1) + 1)));
                return {};
            }
            case field_type::sint64: b_.add_int(static_cast<std::int64_t>((v >> 1) ^ (~(v & 1) + 1))); return {};
            case field_type::bool_: b_.add_bool(v != 0); return {};
            case field_type::enum_: {
                const enum_desc& e = s_.enums[f.enum_];
                auto n = static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
                if (e.null_value && n == 0) {
                    b_.add_null();  // NullValue's one value; other numbers stay ints
                    return {};
                }
                for (const enum_value_desc& ev : e.values) {
                    if (ev.number == n) {
                        b_.add_string(ev.name);
                        return {};
                    }
                }
                b_.add_int(n);  // an unknown enum number stays an int
                return {};
            }
            case field_type::string: {
                std::string_view sv(reinterpret_cast<const char*>(o.start), static_cast<std::size_t>(o.stop - o.start));
                std::size_t valid = utf8_valid_prefix(sv);
                if (valid != sv.size()) {
                    return fail(wire_error(errc::invalid_utf8, off(o.start) + valid,
                                           "invalid UTF-8 in string field " + f.name));
                }
                b_.add_string(sv);
                return {};
            }
            case field_type::bytes:
                b_.add_bytes({reinterpret_cast<const char*>(o.start), static_cast<std::size_t>(o.stop - o.start)});
                return {};
            case field_type::message: return message(f.message, o.start, o.stop, 0, depth + 1);
            case field_type::group: return message(f.message, o.start, o.stop, o.number, depth + 1);
        }
        return {};
    }

    // Index of the last occurrence of field number n in [base, top), or top.
    std::size_t last_of(const message_desc& m, std::size_t base, std::size_t top, std::uint32_t n) const {
        std::int32_t fi = m.find_number(n);
        std::size_t at = top;
        for (std::size_t k = base; k < top; ++k) {
            if (occ_[k].field == fi && fi != no_index) {
                at = k;
            }
        }
        return at;
    }

    // Wrappers (field 1's value or its default), Struct (its map), ListValue and FieldMask
    // (their arrays). `number` 0 means "field 1, wrapper".
    result<void> emit_single(const message_desc& m, std::size_t base, std::size_t top, int depth,
                             std::uint32_t number, bool wrapper) {
        (void)number;
        std::int32_t fi = m.find_number(1);
        if (fi == no_index) {
            return fail(wire_error(errc::malformed, off(in_), m.full_name + " without field 1"));
        }
        const field_desc& f = m.fields[fi];
        std::size_t i = base;
        while (i < top && occ_[i].field != fi) {
            ++i;
        }
        std::size_t j = i;
        while (j < top && occ_[j].field == fi) {
            ++j;
        }
        if (i == top) {
            if (wrapper) {
                return emit_default_value(f, depth);
            }
            if (f.map ? !b_.begin_map() : !b_.begin_array()) {
                return fail(budget_error(in_));
            }
            f.map ? b_.end_map() : b_.end_array();
            return {};
        }
        return emit_field(f, i, j, depth);
    }

    result<void> emit_value(const message_desc& m, std::size_t base, std::size_t top, int depth) {
        // The kind oneof: the last of fields 1-6 that came.
        std::size_t at = top;
        for (std::size_t k = base; k < top; ++k) {
            if (occ_[k].field >= 0 && m.fields[occ_[k].field].number <= 6) {
                at = k;
            }
        }
        if (at == top) {
            b_.add_null();  // a Value with no kind set (docs/formats/protobuf.md)
            return {};
        }
        const field_desc& f = m.fields[occ_[at].field];
        if (f.type == field_type::enum_) {
            b_.add_null();
            return {};
        }
        return emit_field(f, at, at + 1, depth);
    }

    result<void> emit_time(const message_desc& m, std::size_t base, std::size_t top, int depth) {
        std::size_t si = last_of(m, base, top, 1), ni = last_of(m, base, top, 2);
        std::int64_t seconds = si == top ? 0 : static_cast<std::int64_t>(occ_[si].value);
        std::int32_t nanos = ni == top ? 0 : static_cast<std::int32_t>(static_cast<std::uint32_t>(occ_[ni].value));
        char buf[48];
        std::size_t n = 0;
        if (m.kind == wkt::timestamp) {
            if (seconds >= -62135596800 && seconds <= 253402300799 && nanos >= 0 && nanos <= 999999999) {
                n = format_timestamp(seconds, nanos, buf);
            }
            if (n != 0) {
                b_.add_timestamp({buf, n}, timestamp_kind::offset_date_time);
                return {};
            }
        } else {
            if (seconds >= -315576000000 && seconds <= 315576000000 && nanos >= -999999999 &&
                nanos <= 999999999 && !((seconds > 0 && nanos < 0) || (seconds < 0 && nanos > 0))) {
                n = format_duration(seconds, nanos, buf);
                b_.add_string({buf, n});
                return {};
            }
        }
        // Out of the type's range: the plain message, {"seconds": ..., "nanos": ...}.
        message_desc plain = m;
        plain.kind = wkt::none;
        return emit_message(plain, base, top, depth);
    }

    result<void> emit_any(const message_desc& m, std::size_t base, std::size_t top, int depth) {
        std::size_t ui = last_of(m, base, top, 1), vi = last_of(m, base, top, 2);
        if (!b_.begin_map()) {
            return fail(budget_error(in_));
        }
        if (ui == top) {
            if (vi != top) {
                return fail(wire_error(errc::malformed, off(occ_[vi].start), "Any with a value but no type_url"));
            }
            b_.end_map();
            return {};
        }
        const occurrence& u = occ_[ui];
        std::string_view url(reinterpret_cast<const char*>(u.start), static_cast<std::size_t>(u.stop - u.start));
        if (!utf8_valid(url)) {
            return fail(wire_error(errc::invalid_utf8, off(u.start), "invalid UTF-8 in Any.type_url"));
        }
        b_.add_string("@type");
        b_.add_string(url);
        const unsigned char* vs = vi == top ? in_ : occ_[vi].start;
        const unsigned char* ve = vi == top ? in_ : occ_[vi].stop;
        std::string_view name = url.substr(url.rfind('/') == std::string_view::npos ? 0 : url.rfind('/') + 1);
        auto it = s_.message_by_name.find(std::string(name));
        if (it == s_.message_by_name.end()) {
            b_.add_string("value");
            b_.add_bytes({reinterpret_cast<const char*>(vs), static_cast<std::size_t>(ve - vs)});
            b_.end_map();
            return {};
        }
        const message_desc& inner = s_.messages[it->second];
        if (inner.kind != wkt::none && inner.kind != wkt::empty) {
            b_.add_string("value");
            POLYCODEC_TRY(message(it->second, vs, ve, 0, depth + 1));
            b_.end_map();
            return {};
        }
        // The inner message's fields, beside @type (as ProtoJSON writes an Any).
        POLYCODEC_TRY(message(it->second, vs, ve, 0, depth + 1, true));
        b_.end_map();
        return {};
    }

};

// ---------------------------------------------------------------------------------------------
// The fast path of decoding: one pass over the wire that writes the tape directly
// (detail/tape_writer.hpp), for messages whose fields come in field-number order, each
// non-repeated field and each oneof at most once, with no unknown fields, groups, maps,
// well-known types or empty packed runs. On anything else, and on every error or limit, it
// returns false: decode_protobuf resets the builder and runs the decoder above, which orders,
// merges and reports every case. On success the tape is the one that decoder builds (the
// fields in number order, the same scalars, the same implicit-presence skips).

using fast_writer = detail::tape_writer<256, 2048, false>;
using detail::tape_word;

class fast_decoder {
public:
    fast_decoder(builder& b, const schema& s)
        : tw_(b), s_(s), max_depth_(b.limits().max_depth), max_bytes_(b.limits().max_bytes) {}

    bool run(const message_desc& m, const unsigned char* p, const unsigned char* end) {
        if (!message(m, p, end, 0, 0) || tw_.over_budget(max_bytes_)) {
            return false;
        }
        tw_.finish();
        return true;
    }

private:
    fast_writer tw_;
    const schema& s_;
    std::size_t max_depth_;
    std::size_t max_bytes_;

    static bool varint(const unsigned char*& p, const unsigned char* end, std::uint64_t& v) noexcept {
        if (p < end && *p < 0x80) {
            v = *p++;
            return true;
        }
        if (end - p >= 2 && p[1] < 0x80) {
            v = (p[0] & 0x7fu) | static_cast<std::uint64_t>(p[1]) << 7;
            p += 2;
            return true;
        }
        wire_reader r{p, p, end};
        if (!r.varint(v)) {
            return false;
        }
        p = r.p;
        return true;
    }

    void key(const field_desc& f) {
        std::size_t n = f.name.size();
        std::memcpy(tw_.bytes(n), f.name.data(), n);
        tw_.payload(tw_.words(2), kind::string, 0, n);
    }

    void two(kind k, std::uint64_t v) {
        std::uint64_t* w = tw_.words(2);
        fast_writer::scalar(w, k, v);
        tw_.advance(2);
    }
    void one(kind k) {
        *tw_.words(1) = tape_word(k, 0, 0);
        tw_.advance(1);
    }
    void int_(std::int64_t v) { two(kind::int64, static_cast<std::uint64_t>(v)); }
    void uint_(std::uint64_t v) { two(v <= static_cast<std::uint64_t>(INT64_MAX) ? kind::int64 : kind::uint64, v); }

    // As decoder::is_default: proto3's zero values of fields without presence.
    static bool is_zero(const field_desc& f, std::uint64_t v) noexcept {
        switch (f.type) {
            case field_type::float_:
            case field_type::int32:
            case field_type::uint32:
            case field_type::sint32:
            case field_type::enum_: return static_cast<std::uint32_t>(v) == 0;
            default: return v == 0;
        }
    }

    // A varint, fixed32 or fixed64 scalar's element (as decoder::emit_scalar).
    void scalar(const field_desc& f, std::uint64_t v) {
        switch (f.type) {
            case field_type::double_: two(kind::float64, v); return;
            case field_type::float_: {
                float x;
                auto v32 = static_cast<std::uint32_t>(v);
                std::memcpy(&x, &v32, 4);
                double d = static_cast<double>(x);
                std::uint64_t bits;
                std::memcpy(&bits, &d, 8);
                two(kind::float64, bits);
                return;
            }
            case field_type::int64:
            case field_type::sfixed64: int_(static_cast<std::int64_t>(v)); return;
            case field_type::uint64:
            case field_type::fixed64: uint_(v); return;
            case field_type::int32:
            case field_type::sfixed32: int_(static_cast<std::int32_t>(static_cast<std::uint32_t>(v))); return;
            case field_type::uint32:
            case field_type::fixed32: int_(static_cast<std::uint32_t>(v)); return;
            case field_type::sint32: {
                auto u = static_cast<std::uint32_t>(v);
                int_(static_cast<std::int32_t>((u >> 1) ^ (~(u & 1) + 1)));
                return;
            }
            case field_type::sint64: int_(static_cast<std::int64_t>((v >> 1) ^ (~(v & 1) + 1))); return;
            case field_type::bool_: one(v != 0 ? kind::boolean_true : kind::boolean_false); return;
            case field_type::enum_: {
                const enum_desc& e = s_.enums[f.enum_];
                auto n = static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
                if (e.null_value && n == 0) {
                    one(kind::null);
                    return;
                }
                for (const enum_value_desc& ev : e.values) {
                    if (ev.number == n) {
                        std::size_t len = ev.name.size();
                        std::memcpy(tw_.bytes(len), ev.name.data(), len);
                        tw_.payload(tw_.words(2), kind::string, 0, len);
                        return;
                    }
                }
                int_(n);
                return;
            }
            default: return;
        }
    }

    // The fixed-size or varint payload of a scalar of wire type wt at p.
    static bool read_scalar(unsigned wt, const unsigned char*& p, const unsigned char* end,
                            std::uint64_t& v) noexcept {
        switch (wt) {
            case wt_varint: return varint(p, end, v);
            case wt_i64:
                if (end - p < 8) {
                    return false;
                }
                std::memcpy(&v, p, 8);
                p += 8;
                return true;
            default: {
                if (end - p < 4) {
                    return false;
                }
                std::uint32_t v32;
                std::memcpy(&v32, p, 4);
                v = v32;
                p += 4;
                return true;
            }
        }
    }

    // A string, bytes or message element of n bytes at p.
    bool len_value(const field_desc& f, const unsigned char* p, std::size_t n, int depth, std::size_t cdepth) {
        if (f.type == field_type::message) {
            return message(s_.messages[f.message], p, p + n, depth + 1, cdepth);
        }
        auto k = kind::bytes;
        if (f.type == field_type::string) {
            if (!utf8_valid({reinterpret_cast<const char*>(p), n})) {
                return false;
            }
            k = kind::string;
        }
        std::memcpy(tw_.bytes(n), p, n);
        tw_.payload(tw_.words(2), k, 0, n);
        return true;
    }

    // The elements of a packed run [p, end); false on a truncated element.
    bool packed(const field_desc& f, const unsigned char* p, const unsigned char* end,
                std::uint64_t& count) {
        unsigned wt = expected_wire(f.type);
        while (p < end) {
            std::uint64_t v = 0;
            if (!read_scalar(wt, p, end, v)) {
                return false;
            }
            scalar(f, v);
            ++count;
        }
        return true;
    }

    // One message as a map at container depth cdepth (message depth `depth`).
    bool message(const message_desc& m, const unsigned char* p, const unsigned char* end, int depth,
                 std::size_t cdepth) {
        if ((m.kind != wkt::none && m.kind != wkt::empty) || depth >= max_message_depth ||
            cdepth >= max_depth_ || tw_.over_budget(max_bytes_)) {
            return false;
        }
        std::size_t start = tw_.size();
        tw_.open(tw_.words(2), kind::map, 0);
        std::uint64_t count = 0;
        std::uint32_t last = 0;
        std::size_t array_at = 0;  // the header of the open repeated field's array, 0 for none
        std::uint64_t array_count = 0;
        std::uint64_t oneofs = 0;
        while (p < end) {
            std::uint64_t tag = 0;
            if (!varint(p, end, tag) || tag > 0xffffffffu) {
                return false;
            }
            auto number = static_cast<std::uint32_t>(tag >> 3);
            auto wt = static_cast<unsigned>(tag & 7);
            std::int32_t fi = m.find_number(number);
            if (fi == no_index) {
                return false;
            }
            const field_desc& f = m.fields[fi];
            unsigned want = expected_wire(f.type);
            bool packed_run = wt == wt_len && f.repeated && packable(f.type);
            if ((wt != want && !packed_run) || f.map || f.type == field_type::group) {
                return false;
            }
            if (number <= last) {
                if (number != last || !f.repeated) {
                    return false;  // out of order, or a singular field again: the merges above
                }
            } else {
                if (array_at != 0) {
                    tw_.close(array_at, array_count);
                    array_at = 0;
                }
                last = number;
                if (f.oneof != no_index) {
                    auto bit = static_cast<std::uint32_t>(f.oneof);
                    if (bit >= 64 || (oneofs >> bit & 1) != 0) {
                        return false;
                    }
                    oneofs |= std::uint64_t{1} << bit;
                }
                if (f.repeated) {
                    if (cdepth + 1 >= max_depth_) {
                        return false;
                    }
                    key(f);
                    ++count;
                    array_at = tw_.size();
                    array_count = 0;
                    tw_.open(tw_.words(2), kind::array, 0);
                }
            }
            if (wt == wt_len) {
                std::uint64_t n = 0;
                if (!varint(p, end, n) || n > static_cast<std::uint64_t>(end - p)) {
                    return false;
                }
                const unsigned char* q = p;
                p += n;
                if (packed_run) {
                    if (n == 0 || !packed(f, q, p, array_count)) {
                        return false;  // an empty run may leave the field unset: the decoder above
                    }
                    continue;
                }
                if (f.repeated) {
                    ++array_count;
                    if (!len_value(f, q, static_cast<std::size_t>(n), depth, cdepth + 2)) {
                        return false;
                    }
                    continue;
                }
                if (n == 0 && !f.presence && f.type != field_type::message) {
                    continue;  // proto3 implicit presence: "" is an unset field
                }
                key(f);
                ++count;
                if (!len_value(f, q, static_cast<std::size_t>(n), depth, cdepth + 1)) {
                    return false;
                }
                continue;
            }
            std::uint64_t v = 0;
            if (!read_scalar(wt, p, end, v)) {
                return false;
            }
            if (f.repeated) {
                ++array_count;
            } else if (!f.presence && is_zero(f, v)) {
                continue;  // proto3 implicit presence: a zero value is an unset field
            } else {
                key(f);
                ++count;
            }
            scalar(f, v);
        }
        if (array_at != 0) {
            tw_.close(array_at, array_count);
        }
        tw_.close(start, count);
        return true;
    }
};

result<void> decode_protobuf(std::string_view in, builder& b, const decode_options& opt) {
    if (!opt.protobuf_schema) {
        return fail(make_error(errc::schema_required, 0,
                               "protobuf needs a schema: schema=NAME (a descriptor set or .proto of --schema-dir) and type="));
    }
    const schema& s = *opt.protobuf_schema;
    std::size_t at = 0;
    std::int32_t mi = no_index;
    if (opt.framing == avro_framing::single_object) {
        return fail(make_error(errc::invalid_option, 0, "framing=single_object is avro's: protobuf reads none or confluent"));
    }
    if (opt.framing == avro_framing::confluent) {
        // 00, the schema id, the message indexes: they name the message type (docs/formats/protobuf.md).
        POLYCODEC_TRY(detail::read_confluent_header(in, opt.avro_schema_id));
        at = 5;
        thread_local std::vector<std::int32_t> path;
        const std::size_t indexes_at = at;
        POLYCODEC_TRY(detail::read_message_indexes(in, at, path));
        mi = message_at_path(s, path);
        if (mi == no_index) {
            std::string p;
            for (std::int32_t k : path) {
                p += (p.empty() ? "" : ",") + std::to_string(k);
            }
            return fail(make_error(errc::malformed, indexes_at,
                                   "Confluent message indexes [" + p + "] name no message of the schema's file"));
        }
        if (!opt.type_name.empty()) {
            auto named = pick_message(s, opt.type_name);
            if (!named) {
                return fail(std::move(named.error()));
            }
            if (*named != mi) {
                return fail(make_error(errc::malformed, indexes_at,
                                       "Confluent message indexes name " + s.messages[mi].full_name + ", type= names " +
                                           s.messages[*named].full_name));
            }
        }
    } else {
        auto root = pick_message(s, opt.type_name);
        if (!root) {
            return fail(std::move(root.error()));
        }
        mi = *root;
    }
    if (b.depth() == 0 && b.ok() && b.doc().empty() && b.doc().bytes().empty()) {
        auto p = reinterpret_cast<const unsigned char*>(in.data());
        fast_decoder fast(b, s);
        if (fast.run(s.messages[mi], p + at, p + in.size())) {
            return {};
        }
        b.reset();  // the decoder below orders, merges, or finds the error and reports it
    }
    decoder d(in, b, s);
    return d.run(mi, at);
}

// ---------------------------------------------------------------------------------------------
// Encoding

// ---- length-delimited payloads, for both encoders ----

// The varint of v at p; returns its end.
[[gnu::always_inline]] inline char* put_varint(char* p, std::uint64_t v) noexcept {
    if (v < 0x80) {
        *p = static_cast<char>(v);
        return p + 1;
    }
    if (v < 0x4000) {
        p[0] = static_cast<char>(v | 0x80);
        p[1] = static_cast<char>(v >> 7);
        return p + 2;
    }
    while (v >= 0x80) {
        *p++ = static_cast<char>(v | 0x80);
        v >>= 7;
    }
    *p++ = static_cast<char>(v);
    return p;
}

inline char* data_of(std::string& out) noexcept { return out.data(); }
inline char* data_of(output_buffer& out) noexcept { return out.data_mut(); }
inline void grow_by(std::string& out, std::size_t k) { out.resize(out.size() + k); }
inline void grow_by(output_buffer& out, std::size_t k) {
    out.prepare(k);
    out.commit(k);
}

// Starts a length-delimited payload: one byte kept for its length; returns where the payload
// starts. Finish it with len_end.
template <class Out>
[[gnu::always_inline]] inline std::size_t len_begin(Out& out) {
    out.push_back('\0');
    return out.size();
}

// Writes the length of the payload that starts at `mark` (len_begin) before it, moving the
// payload when its length needs more than the one byte kept.
template <class Out>
[[gnu::always_inline]] inline void len_end(Out& out, std::size_t mark) {
    const std::size_t n = out.size() - mark;
    if (n < 0x80) {
        data_of(out)[mark - 1] = static_cast<char>(n);
        return;
    }
    char buf[10];
    const auto k = static_cast<std::size_t>(put_varint(buf, n) - buf);
    grow_by(out, k - 1);
    char* d = data_of(out);
    std::memmove(d + mark + k - 1, d + mark, n);
    std::memcpy(d + mark - 1, buf, k);
}

class encoder {
public:
    encoder(std::string& out, const schema& s, const encode_options& opt) : out_(out), s_(s), opt_(opt) {}

    result<void> message_body(std::int32_t mi, value v, bool in_any = false) {
        const message_desc& m = s_.messages[mi];
        switch (in_any ? wkt::none : m.kind) {
            case wkt::timestamp:
            case wkt::duration: return time_body(m, v);
            case wkt::wrapper: return wrapper_body(m, v);
            case wkt::struct_: return struct_body(m, v);
            case wkt::list_value: return list_body(m, v);
            case wkt::value: return value_body(m, v);
            case wkt::field_mask: return mask_body(m, v);
            case wkt::any: return any_body(m, v);
            default: break;
        }
        if (v.kind() != kind::map) {
            return fail(unrepresentable(v, std::string("expected a map for message ") + m.full_name));
        }
        for (entry e : v.entries()) {
            value k = e.key;
            if (in_any && k.kind() == kind::string && k.get_string() == "@type") {
                continue;  // an Any's fields sit beside its type URL
            }
            if (k.kind() == kind::int64 && e.val.kind() == kind::tagged && e.val.tag() == unknown_field_tag &&
                e.val.tagged_value().kind() == kind::bytes) {
                out_.append(e.val.tagged_value().get_string());  // an unknown field, kept as it came
                continue;
            }
            std::int32_t fi = no_index;
            if (k.kind() == kind::string) {
                auto it = m.by_name.find(std::string(k.get_string()));
                if (it != m.by_name.end()) {
                    fi = it->second;
                }
            } else if (k.kind() == kind::int64 && k.get_int() > 0 && k.get_int() <= 536870911) {
                fi = m.find_number(static_cast<std::uint32_t>(k.get_int()));
            }
            if (fi == no_index) {
                std::string name = k.kind() == kind::string ? std::string(k.get_string()) : "?";
                if (!allow_lossy(opt_, k, "field_dropped", "a key that names no field was dropped")) {
                    return fail(unrepresentable(k, "no field \"" + name + "\" in " + m.full_name));
                }
                continue;
            }
            POLYCODEC_TRY(field(m.fields[fi], e.val));
        }
        return {};
    }

private:
    std::string& out_;
    const schema& s_;
    const encode_options& opt_;

    void varint(std::uint64_t v) {
        char buf[10];
        std::size_t n = 0;
        while (v >= 0x80) {
            buf[n++] = static_cast<char>(v | 0x80);
            v >>= 7;
        }
        buf[n++] = static_cast<char>(v);
        out_.append(buf, n);
    }
    void tag(std::uint32_t number, unsigned wt) { varint((static_cast<std::uint64_t>(number) << 3) | wt); }
    void fixed32(std::uint32_t v) {
        char b[4];
        std::memcpy(b, &v, 4);
        out_.append(b, 4);
    }
    void fixed64(std::uint64_t v) {
        char b[8];
        std::memcpy(b, &v, 8);
        out_.append(b, 8);
    }

    // Starts a length-delimited payload; finish with end_len(mark).
    std::size_t begin_len() { return len_begin(out_); }
    void end_len(std::size_t mark) { len_end(out_, mark); }

    result<void> field(const field_desc& f, value v) {
        if (v.kind() == kind::null && !accepts_null(f)) {
            return {};  // null is the field's default: not written (as ProtoJSON reads it)
        }
        if (f.map) {
            return map_field(f, v);
        }
        if (f.repeated) {
            if (v.kind() != kind::array) {
                return fail(unrepresentable(v, "expected an array for repeated field " + f.name));
            }
            if (f.packed) {
                if (v.size() == 0) {
                    return {};
                }
                tag(f.number, wt_len);
                std::size_t mark = begin_len();
                for (value item : v.items()) {
                    POLYCODEC_TRY(scalar_payload(f, item));
                }
                end_len(mark);
                return {};
            }
            for (value item : v.items()) {
                POLYCODEC_TRY(single(f, item, true));
            }
            return {};
        }
        return single(f, v, false);
    }

    bool accepts_null(const field_desc& f) const {
        if (f.type == field_type::enum_) {
            return s_.enums[f.enum_].null_value;
        }
        return f.type == field_type::message && s_.messages[f.message].kind == wkt::value;
    }

    result<void> map_field(const field_desc& f, value v) {
        if (v.kind() != kind::map) {
            return fail(unrepresentable(v, "expected a map for map field " + f.name));
        }
        const message_desc& entry = s_.messages[f.message];
        std::int32_t kf = entry.find_number(1), vf = entry.find_number(2);
        if (kf == no_index || vf == no_index) {
            return fail(unrepresentable(v, "map entry type " + entry.full_name + " without key or value"));
        }
        for (entry_ e : v.entries()) {
            tag(f.number, wt_len);
            std::size_t mark = begin_len();
            POLYCODEC_TRY(map_key(entry.fields[kf], e.key));
            if (e.val.kind() == kind::null && !accepts_null(entry.fields[vf])) {
                return fail(unrepresentable(e.val, "null map value in " + f.name));
            }
            POLYCODEC_TRY(single(entry.fields[vf], e.val, true));
            end_len(mark);
        }
        return {};
    }
    using entry_ = polycodec::entry;

    result<void> map_key(const field_desc& kf, value k) {
        if (k.kind() == kind::string && kf.type != field_type::string) {
            // String-keyed formats write integer and bool keys as their text.
            std::string_view t = k.get_string();
            if (kf.type == field_type::bool_) {
                if (t != "true" && t != "false") {
                    return fail(unrepresentable(k, "map key \"" + std::string(t) + "\" is not a bool"));
                }
                tag(1, wt_varint);
                varint(t == "true" ? 1 : 0);
                return {};
            }
            std::int64_t iv = 0;
            std::uint64_t uv = 0;
            bool neg = !t.empty() && t[0] == '-';
            std::string_view digits = neg ? t.substr(1) : t;
            bool ok = !digits.empty() && digits.size() <= 20;
            for (char c : digits) {
                if (c < '0' || c > '9') {
                    ok = false;
                    break;
                }
                std::uint64_t nv = uv * 10 + static_cast<std::uint64_t>(c - '0');
                if (nv / 10 != uv) {
                    ok = false;
                    break;
                }
                uv = nv;
            }
            if (!ok) {
                return fail(unrepresentable(k, "map key \"" + std::string(t) + "\" is not an integer"));
            }
            if (neg) {
                if (uv > static_cast<std::uint64_t>(INT64_MAX) + 1) {
                    return fail(unrepresentable(k, "map key out of range"));
                }
                iv = static_cast<std::int64_t>(0 - uv);
                return scalar_int(kf, k, iv, 0, true, 1);
            }
            return scalar_int(kf, k, 0, uv, false, 1);
        }
        return single(kf, k, true);
    }

    // A non-repeated value (or one element of a non-packed repeated field, or a map key or
    // value: `always` writes it even when it is the default).
    // A string or bytes field: nothing when it is empty, unless `always` or the field has
    // presence.
    result<void> len_field(const field_desc& f, std::string_view s, bool always) {
        if (s.empty() && !always && !f.presence) {
            return {};
        }
        tag(f.number, wt_len);
        varint(s.size());
        out_.append(s);
        return {};
    }

    result<void> single(const field_desc& f, value v, bool always) {
        switch (f.type) {
            case field_type::message: {
                tag(f.number, wt_len);
                std::size_t mark = begin_len();
                POLYCODEC_TRY(message_body(f.message, v));
                end_len(mark);
                return {};
            }
            case field_type::group: {
                tag(f.number, wt_sgroup);
                POLYCODEC_TRY(message_body(f.message, v));
                tag(f.number, wt_egroup);
                return {};
            }
            case field_type::string: {
                if (v.kind() != kind::string) {
                    return fail(unrepresentable(v, "expected a string for field " + f.name));
                }
                return len_field(f, v.get_string(), always);
            }
            case field_type::bytes: {
                std::string decoded;
                std::string_view s;
                if (v.kind() == kind::bytes) {
                    s = v.get_string();
                } else if (v.kind() == kind::string) {
                    if (!base64_any(v.get_string(), decoded)) {
                        return fail(unrepresentable(v, "field " + f.name + " is bytes: expected bytes or base64 text"));
                    }
                    s = decoded;
                } else {
                    return fail(unrepresentable(v, "expected bytes for field " + f.name));
                }
                return len_field(f, s, always);
            }
            default: {
                std::size_t mark = out_.size();
                tag(f.number, expected_wire(f.type));
                std::size_t value_at = out_.size();
                POLYCODEC_TRY(scalar_payload(f, v));
                if (!always && !f.presence && all_zero(value_at, f.type)) {
                    out_.resize(mark);  // proto3 implicit presence: the default is not written
                }
                return {};
            }
        }
    }

    bool all_zero(std::size_t from, field_type t) const {
        if (t == field_type::double_ || t == field_type::fixed64 || t == field_type::sfixed64 ||
            t == field_type::float_ || t == field_type::fixed32 || t == field_type::sfixed32) {
            for (std::size_t i = from; i < out_.size(); ++i) {
                if (out_[i] != 0) {
                    return false;
                }
            }
            return true;
        }
        return out_.size() == from + 1 && out_[from] == 0;
    }

    static bool base64_any(std::string_view in, std::string& out) {
        std::string norm;
        norm.reserve(in.size() + 3);
        for (char c : in) {
            norm += c == '-' ? '+' : c == '_' ? '/' : c;
        }
        while (norm.size() % 4 != 0) {
            norm += '=';
        }
        return base64_decode(norm, out);
    }

    // The value of a scalar field without its tag (packed elements, or after tag()).
    result<void> scalar_payload(const field_desc& f, value v) {
        switch (f.type) {
            case field_type::double_:
            case field_type::float_: {
                double d = 0;
                POLYCODEC_TRY(to_double(f, v, d));
                if (f.type == field_type::double_) {
                    std::uint64_t bits;
                    std::memcpy(&bits, &d, 8);
                    fixed64(bits);
                    return {};
                }
                float x = static_cast<float>(d);
                if (std::isfinite(d) && !std::isfinite(x)) {
                    return fail(unrepresentable(v, "field " + f.name + ": " + "value out of float range"));
                }
                if (!std::isnan(d) && static_cast<double>(x) != d &&
                    !allow_lossy(opt_, v, "float_rounded", "rounded to float")) {
                    return fail(unrepresentable(v, "field " + f.name + " is float: value not exact in 32 bits"));
                }
                std::uint32_t bits;
                std::memcpy(&bits, &x, 4);
                fixed32(bits);
                return {};
            }
            case field_type::bool_:
                if (!v.is_bool()) {
                    return fail(unrepresentable(v, "expected a bool for field " + f.name));
                }
                varint(v.get_bool() ? 1 : 0);
                return {};
            case field_type::enum_: {
                const enum_desc& e = s_.enums[f.enum_];
                if (v.kind() == kind::null && e.null_value) {
                    varint(0);
                    return {};
                }
                if (v.kind() == kind::string) {
                    for (const enum_value_desc& ev : e.values) {
                        if (ev.name == v.get_string()) {
                            varint(static_cast<std::uint64_t>(static_cast<std::int64_t>(ev.number)));
                            return {};
                        }
                    }
                    return fail(unrepresentable(v, "\"" + std::string(v.get_string()) + "\" is not a value of " + e.full_name));
                }
                if (v.kind() == kind::int64 && v.get_int() >= INT32_MIN && v.get_int() <= INT32_MAX) {
                    varint(static_cast<std::uint64_t>(v.get_int()));
                    return {};
                }
                return fail(unrepresentable(v, "expected an enum name or int32 for field " + f.name));
            }
            default: break;
        }
        std::int64_t iv = 0;
        std::uint64_t uv = 0;
        bool neg = false;
        switch (v.kind()) {
            case kind::int64:
                iv = v.get_int();
                neg = iv < 0;
                uv = static_cast<std::uint64_t>(iv);
                break;
            case kind::uint64: uv = v.get_uint(); break;
            case kind::float64: {
                double d = v.get_double();
                if (!(d == std::floor(d)) || d < -9223372036854775808.0 || d >= 18446744073709551616.0) {
                    return fail(unrepresentable(v, "field " + f.name + " is " + std::string(type_label(f.type)) + ": not an integer"));
                }
                if (d < 0) {
                    neg = true;
                    iv = static_cast<std::int64_t>(d);
                    uv = static_cast<std::uint64_t>(iv);
                } else {
                    uv = static_cast<std::uint64_t>(d);
                    iv = static_cast<std::int64_t>(uv);
                }
                break;
            }
            case kind::string: {
                std::string_view t = v.get_string();
                neg = !t.empty() && t[0] == '-';
                std::string_view digits = neg ? t.substr(1) : t;
                bool ok = !digits.empty();
                for (char c : digits) {
                    std::uint64_t nv = uv * 10 + static_cast<std::uint64_t>(c - '0');
                    if (c < '0' || c > '9' || nv / 10 != uv) {
                        ok = false;
                        break;
                    }
                    uv = nv;
                }
                if (!ok || (neg && uv > static_cast<std::uint64_t>(INT64_MAX) + 1)) {
                    return fail(unrepresentable(v, "field " + f.name + " is " + std::string(type_label(f.type)) + ": not an integer"));
                }
                if (neg) {
                    iv = static_cast<std::int64_t>(0 - uv);
                    uv = static_cast<std::uint64_t>(iv);
                } else {
                    iv = static_cast<std::int64_t>(uv);
                }
                break;
            }
            default:
                return fail(unrepresentable(v, "expected an integer for field " + f.name));
        }
        return int_payload(f, v, iv, uv, neg);
    }

    result<void> scalar_int(const field_desc& f, value v, std::int64_t iv, std::uint64_t uv, bool neg,
                            std::uint32_t number) {
        tag(number, expected_wire(f.type));
        if (!neg) {
            iv = static_cast<std::int64_t>(uv);
        } else {
            uv = static_cast<std::uint64_t>(iv);
        }
        return int_payload(f, v, iv, uv, neg);
    }

    result<void> int_payload(const field_desc& f, value v, std::int64_t iv, std::uint64_t uv, bool neg) {
        auto range = [&]() {
            return fail(unrepresentable(v, "value out of range for " + std::string(type_label(f.type)) + " field " + f.name));
        };
        bool big = !neg && uv > static_cast<std::uint64_t>(INT64_MAX);
        switch (f.type) {
            case field_type::int32:
            case field_type::sfixed32:
            case field_type::sint32:
                if (big || iv < INT32_MIN || iv > INT32_MAX) {
                    return range();
                }
                if (f.type == field_type::int32) {
                    varint(static_cast<std::uint64_t>(iv));  // negative int32: ten bytes, as libprotobuf
                } else if (f.type == field_type::sfixed32) {
                    fixed32(static_cast<std::uint32_t>(static_cast<std::int32_t>(iv)));
                } else {
                    auto x = static_cast<std::int32_t>(iv);
                    varint((static_cast<std::uint32_t>(x) << 1) ^ static_cast<std::uint32_t>(x >> 31));
                }
                return {};
            case field_type::uint32:
            case field_type::fixed32:
                if (neg || uv > UINT32_MAX) {
                    return range();
                }
                f.type == field_type::uint32 ? varint(uv) : fixed32(static_cast<std::uint32_t>(uv));
                return {};
            case field_type::int64:
            case field_type::sfixed64:
            case field_type::sint64:
                if (big) {
                    return range();
                }
                if (f.type == field_type::int64) {
                    varint(static_cast<std::uint64_t>(iv));
                } else if (f.type == field_type::sfixed64) {
                    fixed64(static_cast<std::uint64_t>(iv));
                } else {
                    varint((static_cast<std::uint64_t>(iv) << 1) ^ static_cast<std::uint64_t>(iv >> 63));
                }
                return {};
            case field_type::uint64:
            case field_type::fixed64:
                if (neg) {
                    return range();
                }
                f.type == field_type::uint64 ? varint(uv) : fixed64(uv);
                return {};
            default: return range();
        }
    }

    result<void> to_double(const field_desc& f, value v, double& d) {
        switch (v.kind()) {
            case kind::float64: d = v.get_double(); return {};
            case kind::int64:
            case kind::uint64: {
                d = v.kind() == kind::int64 ? static_cast<double>(v.get_int()) : static_cast<double>(v.get_uint());
                bool exact = v.kind() == kind::int64
                                 ? (d >= -9223372036854775808.0 && d < 9223372036854775808.0 && static_cast<std::int64_t>(d) == v.get_int())
                                 : (d < 18446744073709551616.0 && static_cast<std::uint64_t>(d) == v.get_uint());
                if (!exact && !allow_lossy(opt_, v, "int_to_float", "integer rounded to a double")) {
                    return fail(unrepresentable(v, "integer not exact as a double in field " + f.name));
                }
                return {};
            }
            case kind::string: {
                std::string_view t = v.get_string();
                if (t == "NaN") d = std::nan("");
                else if (t == "Infinity") d = HUGE_VAL;
                else if (t == "-Infinity") d = -HUGE_VAL;
                else return fail(unrepresentable(v, "expected a number for field " + f.name));
                return {};
            }
            default: return fail(unrepresentable(v, "expected a number for field " + f.name));
        }
    }

    // --- well-known types ----------------------------------------------------------------

    result<void> time_body(const message_desc& m, value v) {
        if (v.kind() == kind::map) {
            // The plain message ({"seconds", "nanos"}, unknown fields kept).
            return message_body(s_.message_by_name.at(m.full_name), v, true);
        }
        std::int64_t seconds = 0;
        std::int32_t nanos = 0;
        if (m.kind == wkt::timestamp) {
            if (v.kind() != kind::timestamp && v.kind() != kind::string) {
                return fail(unrepresentable(v, "expected a timestamp for " + m.full_name));
            }
            epoch_instant t;
            if (!parse_rfc3339(v.get_string(), t) || !t.exact || t.leap_second) {
                return fail(unrepresentable(v, "\"" + std::string(v.get_string()) + "\" is not an RFC 3339 date-time with a zone"));
            }
            if (t.seconds < -62135596800 || t.seconds > 253402300799) {
                return fail(unrepresentable(v, "timestamp outside 0001-01-01 .. 9999-12-31"));
            }
            seconds = t.seconds;
            nanos = static_cast<std::int32_t>(t.nanos);
        } else {
            if (v.kind() != kind::string || !parse_duration(v.get_string(), seconds, nanos)) {
                return fail(unrepresentable(v, "expected a duration such as \"1.5s\" for " + m.full_name));
            }
        }
        if (seconds != 0) {
            tag(1, wt_varint);
            varint(static_cast<std::uint64_t>(seconds));
        }
        if (nanos != 0) {
            tag(2, wt_varint);
            varint(static_cast<std::uint64_t>(static_cast<std::int64_t>(nanos)));
        }
        return {};
    }

    result<void> plain_body(const message_desc& m, value v) {
        // message_body on a copy whose WKT mapping is switched off: the fields as given.
        for (entry e : v.entries()) {
            if (e.key.kind() != kind::string) {
                return fail(unrepresentable(e.key, "expected a field name in " + m.full_name));
            }
            auto it = m.by_name.find(std::string(e.key.get_string()));
            if (it == m.by_name.end()) {
                return fail(unrepresentable(e.key, "no field \"" + std::string(e.key.get_string()) + "\" in " + m.full_name));
            }
            POLYCODEC_TRY(field(m.fields[it->second], e.val));
        }
        return {};
    }

private:
    result<void> wrapper_body(const message_desc& m, value v) {
        const field_desc& f = m.fields[0];
        if (v.kind() == kind::map) {
            // The plain message ({"seconds", "nanos"}, unknown fields kept).
            return message_body(s_.message_by_name.at(m.full_name), v, true);
        }
        return single(f, v, false);
    }

    result<void> struct_body(const message_desc& m, value v) {
        if (v.kind() != kind::map) {
            return fail(unrepresentable(v, "expected a map for google.protobuf.Struct"));
        }
        std::int32_t fi = m.find_number(1);
        if (fi == no_index || !m.fields[fi].map) {
            return fail(unrepresentable(v, "google.protobuf.Struct without its fields map"));
        }
        const field_desc& f = m.fields[fi];
        const message_desc& entry = s_.messages[f.message];
        std::int32_t vf = entry.find_number(2);
        for (entry_ e : v.entries()) {
            tag(f.number, wt_len);
            std::size_t mark = begin_len();
            std::string keytext;
            std::string_view key;
            if (e.key.kind() == kind::string) {
                key = e.key.get_string();
            } else if (e.key.kind() == kind::int64) {
                keytext = std::to_string(e.key.get_int());
                key = keytext;
            } else {
                return fail(unrepresentable(e.key, "a Struct key must be a string"));
            }
            tag(1, wt_len);
            varint(key.size());
            out_.append(key);
            POLYCODEC_TRY(single(entry.fields[vf], e.val, true));
            end_len(mark);
        }
        return {};
    }

    result<void> list_body(const message_desc& m, value v) {
        if (v.kind() != kind::array) {
            return fail(unrepresentable(v, "expected an array for google.protobuf.ListValue"));
        }
        std::int32_t fi = m.find_number(1);
        if (fi == no_index) {
            return fail(unrepresentable(v, "google.protobuf.ListValue without field 1"));
        }
        for (value item : v.items()) {
            POLYCODEC_TRY(single(m.fields[fi], item, true));
        }
        return {};
    }

    result<void> value_body(const message_desc& m, value v) {
        auto field_of = [&](std::uint32_t n) -> const field_desc* {
            std::int32_t fi = m.find_number(n);
            return fi == no_index ? nullptr : &m.fields[fi];
        };
        const field_desc* f = nullptr;
        switch (v.kind()) {
            case kind::null:
                tag(1, wt_varint);
                varint(0);
                return {};
            case kind::boolean_false:
            case kind::boolean_true:
                tag(4, wt_varint);
                varint(v.get_bool() ? 1 : 0);
                return {};
            case kind::int64:
            case kind::uint64:
            case kind::float64: {
                f = field_of(2);
                if (f == nullptr) break;
                double d = 0;
                POLYCODEC_TRY(to_double(*f, v, d));
                tag(2, wt_i64);
                std::uint64_t bits;
                std::memcpy(&bits, &d, 8);
                fixed64(bits);
                return {};
            }
            case kind::string:
            case kind::timestamp: {
                std::string_view s = v.get_string();
                tag(3, wt_len);
                varint(s.size());
                out_.append(s);
                return {};
            }
            case kind::map:
                f = field_of(5);
                if (f == nullptr) break;
                return single(*f, v, true);
            case kind::array:
                f = field_of(6);
                if (f == nullptr) break;
                return single(*f, v, true);
            default: break;
        }
        return fail(unrepresentable(v, "this value has no google.protobuf.Value form"));
    }

    result<void> mask_body(const message_desc& m, value v) {
        std::int32_t fi = m.find_number(1);
        if (fi == no_index) {
            return fail(unrepresentable(v, "google.protobuf.FieldMask without field 1"));
        }
        if (v.kind() == kind::string) {
            std::string_view t = v.get_string();
            while (!t.empty()) {
                std::size_t comma = t.find(',');
                std::string_view path = t.substr(0, comma);
                tag(1, wt_len);
                varint(path.size());
                out_.append(path);
                t = comma == std::string_view::npos ? std::string_view() : t.substr(comma + 1);
            }
            return {};
        }
        if (v.kind() != kind::array) {
            return fail(unrepresentable(v, "expected an array of paths for google.protobuf.FieldMask"));
        }
        for (value item : v.items()) {
            POLYCODEC_TRY(single(m.fields[fi], item, true));
        }
        return {};
    }

    result<void> any_body(const message_desc& m, value v) {
        (void)m;
        if (v.kind() != kind::map) {
            return fail(unrepresentable(v, "expected a map with \"@type\" for google.protobuf.Any"));
        }
        value type = v.find("@type");
        if (type.doc() == nullptr || type.kind() != kind::string) {
            if (v.size() == 0) {
                return {};
            }
            return fail(unrepresentable(v, "google.protobuf.Any needs a string \"@type\""));
        }
        std::string_view url = type.get_string();
        tag(1, wt_len);
        varint(url.size());
        out_.append(url);
        std::string_view name = url.substr(url.rfind('/') == std::string_view::npos ? 0 : url.rfind('/') + 1);
        auto it = s_.message_by_name.find(std::string(name));
        value inner = v.find("value");
        bool has_inner = inner.doc() != nullptr;
        std::size_t value_tag_at = out_.size();
        tag(2, wt_len);
        std::size_t mark = begin_len();
        if (it == s_.message_by_name.end()) {
            if (!has_inner || inner.kind() != kind::bytes) {
                return fail(unrepresentable(v, "type " + std::string(url) + " is not in the schema: \"value\" must hold its bytes"));
            }
            out_.append(inner.get_string());
        } else {
            const message_desc& im = s_.messages[it->second];
            if (im.kind != wkt::none && im.kind != wkt::empty) {
                if (!has_inner) {
                    return fail(unrepresentable(v, "Any of " + im.full_name + " needs \"value\""));
                }
                POLYCODEC_TRY(message_body(it->second, inner));
            } else {
                POLYCODEC_TRY(message_body(it->second, v, true));
            }
        }
        if (out_.size() == mark) {
            out_.resize(value_tag_at);  // an empty value is not written, as libprotobuf packs it
            return {};
        }
        end_len(mark);
        return {};
    }
};

// ---------------------------------------------------------------------------------------------
// The fast path of encoding: one walk over the tape's words (as msgpack's writer reads them)
// writing straight into the output, for messages whose keys are field names, with values of
// the fields' own kinds (integers in range, floats exact, strings, bytes, bools, enum names or
// numbers, arrays, nested plain messages). The key expected next is the field after the last
// one (the order the decoder writes), checked with one comparison before any lookup. On
// anything else (null, maps, groups, well-known types, base64 text, numbers as strings,
// unknown keys, lossy cases, every error) it returns false: encode_protobuf drops what it
// wrote and runs the encoder above, which decides and words every case. On success the bytes
// are the ones that encoder writes.

class fast_encoder {
public:
    fast_encoder(const document& doc, output_buffer& out, const schema& s)
        : t_(doc.tape().data()), n_(doc.tape().size()), bytes_(doc.bytes().data()), out_(out), s_(s) {}

    bool run(const message_desc& m) {
        std::size_t i = 0;
        return n_ != 0 && message(m, i, 0) && i == n_;
    }

private:
    const std::uint64_t* t_;
    std::size_t n_;
    const char* bytes_;
    output_buffer& out_;
    const schema& s_;

    static kind kind_of(std::uint64_t w) noexcept { return static_cast<kind>(w >> document::kind_shift); }
    static std::size_t payload_of(std::uint64_t w) noexcept {
        return static_cast<std::size_t>(w & document::payload_mask);
    }

    [[gnu::always_inline]] void varint(std::uint64_t v) {
        char* p = out_.prepare(10);
        out_.commit(static_cast<std::size_t>(put_varint(p, v) - p));
    }
    [[gnu::always_inline]] void tag(std::uint32_t number, unsigned wt) {
        varint((static_cast<std::uint64_t>(number) << 3) | wt);
    }
    void fixed32(std::uint32_t v) { out_.append(&v, 4); }
    void fixed64(std::uint64_t v) { out_.append(&v, 8); }

    // A length-delimited payload (len_begin, len_end).
    std::size_t begin_len() { return len_begin(out_); }
    void end_len(std::size_t mark) { len_end(out_, mark); }

    // The field a key names, as message_desc::by_name finds it (names and json_names in
    // declaration order, the first one wins).
    static std::int32_t lookup(const message_desc& m, std::string_view key) noexcept {
        for (std::size_t k = 0; k < m.fields.size(); ++k) {
            if (m.fields[k].name == key || m.fields[k].json_name == key) {
                return static_cast<std::int32_t>(k);
            }
        }
        return no_index;
    }

    // The message whose map starts at tape index i; i ends past it.
    bool message(const message_desc& m, std::size_t& i, int depth) {
        if ((m.kind != wkt::none && m.kind != wkt::empty) || depth >= max_message_depth) {
            return false;
        }
        std::uint64_t h = t_[i];
        if (kind_of(h) != kind::map) {
            return false;
        }
        std::size_t end = payload_of(h);
        i += 2;
        std::size_t next = 0;  // the field expected next
        while (i < end) {
            std::uint64_t kh = t_[i];
            if (kind_of(kh) != kind::string) {
                return false;
            }
            std::string_view key(bytes_ + payload_of(kh), static_cast<std::size_t>(t_[i + 1]));
            i += 2;
            std::int32_t fi = no_index;
            if (next < m.fields.size() && m.fields[next].name_wins && m.fields[next].name == key) {
                fi = static_cast<std::int32_t>(next);
            } else {
                fi = lookup(m, key);
                if (fi == no_index) {
                    return false;
                }
            }
            next = static_cast<std::size_t>(fi) + 1;
            if (!field(m.fields[fi], i, depth)) {
                return false;
            }
        }
        return true;
    }

    bool field(const field_desc& f, std::size_t& i, int depth) {
        std::uint64_t h = t_[i];
        kind k = kind_of(h);
        if (f.map || f.type == field_type::group || k == kind::null) {
            return false;
        }
        if (!f.repeated) {
            return single(f, i, false, depth);
        }
        if (k != kind::array) {
            return false;
        }
        std::size_t end = payload_of(h);
        std::size_t j = i + 2;
        if (f.packed) {
            if (j < end) {
                tag(f.number, wt_len);
                std::size_t mark = begin_len();
                if (f.type == field_type::int64) {
                    // The common packed run: int64 elements, one varint each, in one reserve.
                    char* p = out_.prepare(static_cast<std::size_t>(t_[i + 1]) * 10);
                    char* q = p;
                    for (; j < end; j += 2) {
                        if (kind_of(t_[j]) != kind::int64) {
                            return false;
                        }
                        q = put_varint(q, t_[j + 1]);
                    }
                    out_.commit(static_cast<std::size_t>(q - p));
                }
                while (j < end) {
                    if (!scalar(f, j)) {
                        return false;
                    }
                }
                end_len(mark);
            }
        } else if (f.type == field_type::string || f.type == field_type::bytes) {
            // Repeated strings: the tag, the length and the text of each, without a call.
            const kind want = f.type == field_type::string ? kind::string : kind::bytes;
            const std::uint64_t t = (static_cast<std::uint64_t>(f.number) << 3) | wt_len;
            for (; j < end; j += 2) {
                std::uint64_t e = t_[j];
                if (kind_of(e) != want) {
                    return false;
                }
                auto n = static_cast<std::size_t>(t_[j + 1]);
                char* p = out_.prepare(20 + n);
                char* q = put_varint(put_varint(p, t), n);
                std::memcpy(q, bytes_ + payload_of(e), n);
                out_.commit(static_cast<std::size_t>(q - p) + n);
            }
        } else {
            while (j < end) {
                if (kind_of(t_[j]) == kind::null || !single(f, j, true, depth)) {
                    return false;
                }
            }
        }
        i = end;
        return true;
    }

    // As encoder::single: the tag and the value at i (i ends past it); `always` writes a zero.
    bool single(const field_desc& f, std::size_t& i, bool always, int depth) {
        std::uint64_t h = t_[i];
        switch (f.type) {
            case field_type::message: {
                tag(f.number, wt_len);
                std::size_t mark = begin_len();
                if (!message(s_.messages[f.message], i, depth + 1)) {
                    return false;
                }
                end_len(mark);
                return true;
            }
            case field_type::string:
            case field_type::bytes: {
                if (kind_of(h) != (f.type == field_type::string ? kind::string : kind::bytes)) {
                    return false;
                }
                auto n = static_cast<std::size_t>(t_[i + 1]);
                i += 2;
                if (n == 0 && !always && !f.presence) {
                    return true;
                }
                char* p = out_.prepare(20 + n);
                char* q = put_varint(p, (static_cast<std::uint64_t>(f.number) << 3) | wt_len);
                q = put_varint(q, n);
                std::memcpy(q, bytes_ + payload_of(h), n);
                out_.commit(static_cast<std::size_t>(q - p) + n);
                return true;
            }
            default: {
                std::size_t mark = out_.size();
                tag(f.number, expected_wire(f.type));
                std::size_t value_at = out_.size();
                if (!scalar(f, i)) {
                    return false;
                }
                if (!always && !f.presence) {
                    const char* d = out_.data();
                    bool zero = true;
                    if (expected_wire(f.type) == wt_varint) {
                        zero = out_.size() == value_at + 1 && d[value_at] == 0;
                    } else {
                        for (std::size_t k = value_at; k < out_.size() && zero; ++k) {
                            zero = d[k] == 0;
                        }
                    }
                    if (zero) {
                        out_.truncate(mark);  // proto3 implicit presence: the default is not written
                    }
                }
                return true;
            }
        }
    }

    // As encoder::scalar_payload for the value kinds that need no conversion choice: the
    // payload of the scalar at j (j ends past it).
    bool scalar(const field_desc& f, std::size_t& j) {
        std::uint64_t h = t_[j];
        kind k = kind_of(h);
        if (k == kind::boolean_false || k == kind::boolean_true) {
            if (f.type != field_type::bool_) {
                return false;
            }
            varint(k == kind::boolean_true ? 1 : 0);
            j += 1;
            return true;
        }
        std::uint64_t raw = t_[j + 1];
        auto iv = static_cast<std::int64_t>(raw);
        switch (f.type) {
            case field_type::double_:
            case field_type::float_: {
                double d;
                if (k == kind::float64) {
                    std::memcpy(&d, &raw, 8);
                } else if (k == kind::int64 && iv >= -(std::int64_t{1} << 53) && iv <= (std::int64_t{1} << 53)) {
                    d = static_cast<double>(iv);  // exact
                } else {
                    return false;
                }
                if (f.type == field_type::double_) {
                    std::uint64_t bits;
                    std::memcpy(&bits, &d, 8);
                    fixed64(bits);
                } else {
                    float x = static_cast<float>(d);
                    if (!std::isnan(d) && static_cast<double>(x) != d) {
                        return false;  // rounded or out of range: the encoder above decides
                    }
                    std::uint32_t bits;
                    std::memcpy(&bits, &x, 4);
                    fixed32(bits);
                }
                break;
            }
            case field_type::enum_: {
                if (k == kind::string) {
                    const enum_desc& e = s_.enums[f.enum_];
                    std::string_view name(bytes_ + payload_of(h), static_cast<std::size_t>(raw));
                    bool found = false;
                    for (const enum_value_desc& ev : e.values) {
                        if (ev.name == name) {
                            varint(static_cast<std::uint64_t>(static_cast<std::int64_t>(ev.number)));
                            found = true;
                            break;
                        }
                    }
                    if (!found) {
                        return false;
                    }
                } else if (k == kind::int64 && iv >= INT32_MIN && iv <= INT32_MAX) {
                    varint(raw);
                } else {
                    return false;
                }
                break;
            }
            case field_type::int32:
            case field_type::sint32:
            case field_type::sfixed32: {
                if (k != kind::int64 || iv < INT32_MIN || iv > INT32_MAX) {
                    return false;
                }
                auto x = static_cast<std::int32_t>(iv);
                if (f.type == field_type::int32) {
                    varint(raw);  // negative int32: ten bytes, as libprotobuf
                } else if (f.type == field_type::sfixed32) {
                    fixed32(static_cast<std::uint32_t>(x));
                } else {
                    varint((static_cast<std::uint32_t>(x) << 1) ^ static_cast<std::uint32_t>(x >> 31));
                }
                break;
            }
            case field_type::uint32:
            case field_type::fixed32:
                if (k != kind::int64 || iv < 0 || iv > static_cast<std::int64_t>(UINT32_MAX)) {
                    return false;
                }
                f.type == field_type::uint32 ? varint(raw) : fixed32(static_cast<std::uint32_t>(raw));
                break;
            case field_type::int64:
            case field_type::sint64:
            case field_type::sfixed64:
                if (k != kind::int64) {
                    return false;
                }
                if (f.type == field_type::int64) {
                    varint(raw);
                } else if (f.type == field_type::sfixed64) {
                    fixed64(raw);
                } else {
                    varint((raw << 1) ^ static_cast<std::uint64_t>(iv >> 63));
                }
                break;
            case field_type::uint64:
            case field_type::fixed64:
                if (!(k == kind::uint64 || (k == kind::int64 && iv >= 0))) {
                    return false;
                }
                f.type == field_type::uint64 ? varint(raw) : fixed64(raw);
                break;
            default: return false;
        }
        j += 2;
        return true;
    }
};

result<void> encode_protobuf(const document& doc, output_buffer& out, const encode_options& opt) {
    if (!opt.protobuf_schema) {
        return fail(make_error(errc::schema_required,
                               "protobuf needs a schema: schema=NAME (a descriptor set or .proto of --schema-dir) and type="));
    }
    auto root = pick_message(*opt.protobuf_schema, opt.type_name);
    if (!root) {
        return fail(std::move(root.error()));
    }
    const schema& s = *opt.protobuf_schema;
    const std::size_t start = out.size();
    if (opt.framing == avro_framing::single_object) {
        return fail(make_error(errc::invalid_option, "framing=single_object is avro's: protobuf writes none or confluent"));
    }
    if (opt.framing == avro_framing::confluent) {
        thread_local std::vector<std::int32_t> path;
        if (!message_path(s, *root, path)) {
            return fail(make_error(errc::invalid_option, "framing=confluent: " + s.messages[*root].full_name +
                                                             " is not a message of the schema's main file"));
        }
        detail::write_confluent_header(out, opt.avro_schema_id);
        detail::write_message_indexes(out, path);
    }
    const std::size_t mark = out.size();
    if (fast_encoder(doc, out, s).run(s.messages[*root])) {
        return {};
    }
    out.truncate(mark);  // the encoder below decides (and words) what the fast path left
    thread_local std::string scratch;
    scratch.clear();
    encoder e(scratch, s, opt);
    if (auto r = e.message_body(*root, doc.root()); !r) {
        out.truncate(start);  // no framing header without its message
        return r;
    }
    out.append(scratch.data(), scratch.size());
    if (scratch.capacity() > (std::size_t{4} << 20)) {
        std::string().swap(scratch);
    }
    return {};
}

}  // namespace

const codec_functions protobuf_codec{decode_protobuf, encode_protobuf};

}  // namespace polycodec::detail
