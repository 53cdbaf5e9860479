#include "polycodec/document.hpp"

#include <charconv>
#include <cstdio>
#include <string>

#include "detail/base64.hpp"
#include "detail/number.hpp"
#include "detail/pointer_token.hpp"

namespace polycodec {
namespace {

// RFC 6901: '~' becomes "~0" and '/' becomes "~1".
void append_pointer_token(std::string& out, value key) {
    out += '/';
    // A key that is no string is written as to_debug_string writes it (null, true, 12 ...).
    std::string debug;
    bool text =
        key.kind() == kind::string || key.kind() == kind::bignum || key.kind() == kind::timestamp;
    if (!text) {
        debug = to_debug_string(key);
    }
    detail::append_pointer_token(out, text ? key.get_string() : std::string_view(debug));
}

}  // namespace

void document::shrink(std::size_t keep_bytes) noexcept {
    clear();
    if (tape_.capacity() * sizeof(std::uint64_t) > keep_bytes) {
        std::vector<std::uint64_t>().swap(tape_);
    }
    if (bytes_.capacity() > keep_bytes) {
        std::string().swap(bytes_);
    }
    frames_.clear();
    if (frames_.capacity() * sizeof(detail::build_frame) > keep_bytes) {
        std::vector<detail::build_frame>().swap(frames_);
    }
}

std::size_t document::capacity_bytes() const noexcept {
    return tape_.capacity() * sizeof(std::uint64_t) + bytes_.capacity() +
           frames_.capacity() * sizeof(detail::build_frame);
}

std::string document::pointer_to(std::size_t index) const {
    std::string path;
    if (tape_.empty()) {
        return path;
    }
    value cur = root();
    while (cur.index() != index) {
        kind k = cur.kind();
        if (k == kind::tagged) {
            cur = cur.tagged_value();
            continue;
        }
        if (k == kind::array) {
            std::uint64_t i = 0;
            bool found = false;
            for (value child : cur.items()) {
                if (index >= child.index() && index < child.end_index()) {
                    path += '/';
                    path += std::to_string(i);
                    cur = child;
                    found = true;
                    break;
                }
                ++i;
            }
            if (!found) {
                break;
            }
        } else if (k == kind::map) {
            bool found = false;
            for (auto [key, val] : cur.entries()) {
                if (index >= key.index() && index < key.end_index()) {
                    // The offending element is a key: name the entry it starts.
                    append_pointer_token(path, key);
                    return path;
                }
                if (index >= val.index() && index < val.end_index()) {
                    append_pointer_token(path, key);
                    cur = val;
                    found = true;
                    break;
                }
            }
            if (!found) {
                break;
            }
        } else {
            break;
        }
    }
    return path;
}

builder::builder(document& doc, build_limits limits)
    : doc_(&doc), limits_(limits), stack_(doc.frames_) {
    reset();
}

void builder::reset() noexcept {
    doc_->clear();
    stack_.clear();
    status_ = errc::ok;
}

void builder::close_tags() noexcept {
    while (!stack_.empty() && stack_.back().tag && stack_.back().count > 0) {
        stack_.pop_back();
    }
}

bool builder::begin_container(kind k) {
    if (stack_.size() >= limits_.max_depth) {
        status_ = errc::depth_exceeded;
        return false;
    }
    check_budget();
    if (status_ != errc::ok) {
        return false;
    }
    on_element();
    auto& t = doc_->tape_;
    std::size_t start = t.size();
    t.push_back(header(k, 0, 0));
    t.push_back(0);
    stack_.push_back({start, 0, false});
    return true;
}

bool builder::begin_array() { return begin_container(kind::array); }
bool builder::begin_map() { return begin_container(kind::map); }

void builder::end_container() noexcept {
    if (stack_.empty()) {
        return;
    }
    frame f = stack_.back();
    stack_.pop_back();
    auto& t = doc_->tape_;
    kind k = static_cast<kind>(t[f.start] >> document::kind_shift);
    std::uint64_t count = k == kind::map ? f.count / 2 : f.count;
    t[f.start] = header(k, 0, t.size());
    t[f.start + 1] = count;
    if (!stack_.empty() && stack_.back().tag) {
        close_tags();
    }
}

bool builder::begin_tagged(std::uint64_t tag, tag_space space) {
    if (stack_.size() >= limits_.max_depth) {
        status_ = errc::depth_exceeded;
        return false;
    }
    on_element();
    auto& t = doc_->tape_;
    std::size_t start = t.size();
    t.push_back(header(kind::tagged, static_cast<std::uint8_t>(space), 0));
    t.push_back(tag);
    stack_.push_back({start, 0, true});
    return true;
}

char* builder::begin_string(std::size_t max_len) {
    string_start_ = doc_->bytes_.size();
    doc_->bytes_.resize(string_start_ + max_len);
    return doc_->bytes_.data() + string_start_;
}

void builder::end_string(char* written_end, kind k) {
    std::size_t len = static_cast<std::size_t>(written_end - (doc_->bytes_.data() + string_start_));
    doc_->bytes_.resize(string_start_ + len);
    on_element();
    auto& t = doc_->tape_;
    t.push_back(header(k, 0, string_start_));
    t.push_back(len);
    if (len > 4096) {
        check_budget();
    }
    after_scalar();
}

bool builder::add_copy(value v) {
    std::size_t words = v.end_index() - v.index();
    const document& src = *v.doc();
    // Payload bytes of the subtree: strings may lie anywhere in the source buffer.
    std::size_t payload_bytes = 0;
    for (std::size_t i = v.index(); i < v.end_index();) {
        value e(&src, i);
        switch (e.kind()) {
            case kind::string:
            case kind::bytes:
            case kind::bignum:
            case kind::timestamp:
                payload_bytes += e.get_string().size();
                i += 2;
                break;
            case kind::null:
            case kind::boolean_false:
            case kind::boolean_true:
                i += 1;
                break;
            default:
                i += 2;
        }
    }
    if (doc_->tape_.size() * 8 + doc_->bytes_.size() + words * 8 + payload_bytes >
        limits_.max_bytes) {
        status_ = errc::size_exceeded;
        return false;
    }
    if (stack_.size() + 1 >= limits_.max_depth && v.is_container()) {
        // The copy's own depth was checked when it was built; the position may add to it.
    }
    on_element();
    auto& t = doc_->tape_;
    std::size_t base = t.size();
    // Copy word by word, relocating container ends and payload offsets.
    for (std::size_t i = v.index(); i < v.end_index();) {
        value e(&src, i);
        std::uint64_t w = src.tape_[i];
        kind k = e.kind();
        switch (k) {
            case kind::null:
            case kind::boolean_false:
            case kind::boolean_true:
                t.push_back(w);
                i += 1;
                break;
            case kind::array:
            case kind::map: {
                std::uint64_t end = w & document::payload_mask;
                std::uint64_t rel = end - v.index() + base;
                t.push_back((w & ~document::payload_mask) | rel);
                t.push_back(src.tape_[i + 1]);
                i += 2;
                break;
            }
            case kind::string:
            case kind::bytes:
            case kind::bignum:
            case kind::timestamp: {
                std::string_view s = e.get_string();
                std::uint64_t off = doc_->bytes_.size();
                doc_->bytes_.append(s);
                t.push_back((w & ~document::payload_mask) | off);
                t.push_back(src.tape_[i + 1]);
                i += 2;
                break;
            }
            default:
                t.push_back(w);
                t.push_back(src.tape_[i + 1]);
                i += 2;
        }
    }
    after_scalar();
    return true;
}

std::string builder::current_path() const {
    std::string path;
    const document& d = *doc_;
    for (std::size_t level = 0; level < stack_.size(); ++level) {
        const frame& f = stack_[level];
        if (f.tag) {
            continue;
        }
        // Below the top, the last child is the open container the error is inside.
        bool child_open = level + 1 < stack_.size();
        kind k = static_cast<kind>(d.tape_[f.start] >> document::kind_shift);
        if (k == kind::array) {
            path += '/';
            path += std::to_string(child_open ? f.count - 1 : f.count);
        } else if (k == kind::map) {
            std::uint64_t key_number;
            if (child_open && f.count % 2 == 1) {
                break;  // the open child is itself a key (a compound key): name the map
            }
            if (child_open) {
                key_number = f.count - 2;
            } else if (f.count % 2 == 1) {
                key_number = f.count - 1;  // a key was read, its value was not
            } else {
                continue;  // between entries: the map itself
            }
            std::size_t i = f.start + 2;
            for (std::uint64_t n = 0; n < key_number; ++n) {
                i = value(&d, i).end_index();
            }
            append_pointer_token(path, value(&d, i));
        }
    }
    return path;
}

bool equal(value a, value b) noexcept {
    kind k = a.kind();
    if (k != b.kind()) {
        return false;
    }
    switch (k) {
        case kind::null:
        case kind::boolean_false:
        case kind::boolean_true:
            return true;
        case kind::int64:
        case kind::uint64:
            return a.get_uint() == b.get_uint();
        case kind::float64: {
            // Bit for bit (so -0.0 is not 0.0), except that every NaN equals every NaN: text
            // formats spell one NaN (found by fuzz_decode_sexpr: -nan.0 is written +nan.0).
            double x = a.get_double();
            double y = b.get_double();
            return a.get_uint() == b.get_uint() || (x != x && y != y);
        }
        case kind::string:
        case kind::bytes:
        case kind::bignum:
            return a.get_string() == b.get_string();
        case kind::timestamp:
            return a.get_timestamp_kind() == b.get_timestamp_kind() &&
                   a.get_string() == b.get_string();
        case kind::tagged:
            return a.tag() == b.tag() && a.get_tag_space() == b.get_tag_space() &&
                   equal(a.tagged_value(), b.tagged_value());
        case kind::array:
        case kind::map: {
            if (a.size() != b.size()) {
                return false;
            }
            auto ia = a.items().begin();
            auto ib = b.items().begin();
            auto ea = a.items().end();
            for (; ia != ea; ++ia, ++ib) {
                if (!equal(*ia, *ib)) {
                    return false;
                }
            }
            return true;
        }
    }
    return false;
}

namespace {

void debug_string(std::string& out, value v) {
    switch (v.kind()) {
        case kind::null:
            out += "null";
            return;
        case kind::boolean_false:
            out += "false";
            return;
        case kind::boolean_true:
            out += "true";
            return;
        case kind::int64:
            out += std::to_string(v.get_int());
            return;
        case kind::uint64:
            out += std::to_string(v.get_uint());
            out += 'u';
            return;
        case kind::float64: {
            output_buffer b;
            double d = v.get_double();
            if (d != d) {
                out += "NaN";
            } else if (d == 1.0 / 0.0) {
                out += "Infinity";
            } else if (d == -1.0 / 0.0) {
                out += "-Infinity";
            } else {
                detail::write_double(b, d);
                out += b.view();
            }
            return;
        }
        case kind::string:
        case kind::timestamp: {
            if (v.kind() == kind::timestamp) {
                out += "t";
            }
            out += '"';
            for (unsigned char c : v.get_string()) {
                if (c == '"' || c == '\\') {
                    out += '\\';
                    out += static_cast<char>(c);
                } else if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += static_cast<char>(c);
                }
            }
            out += '"';
            return;
        }
        case kind::bytes: {
            output_buffer b;
            detail::base64_encode(b, v.get_string());
            out += "b64\"";
            out += b.view();
            out += '"';
            return;
        }
        case kind::bignum:
            out += v.get_string();
            out += 'n';
            return;
        case kind::tagged:
            out += "tag(";
            out += std::to_string(v.tag());
            if (v.get_tag_space() != tag_space::cbor) {
                out += '@';
                out += std::to_string(static_cast<int>(v.get_tag_space()));
            }
            out += ", ";
            debug_string(out, v.tagged_value());
            out += ')';
            return;
        case kind::array: {
            out += '[';
            bool first = true;
            for (value c : v.items()) {
                if (!first) {
                    out += ',';
                }
                first = false;
                debug_string(out, c);
            }
            out += ']';
            return;
        }
        case kind::map: {
            out += '{';
            bool first = true;
            for (auto [k, val] : v.entries()) {
                if (!first) {
                    out += ',';
                }
                first = false;
                debug_string(out, k);
                out += ':';
                debug_string(out, val);
            }
            out += '}';
            return;
        }
    }
}

}  // namespace

std::string to_debug_string(value v) {
    std::string s;
    if (v.doc() == nullptr || v.doc()->empty()) {
        return "<empty>";
    }
    debug_string(s, v);
    return s;
}

value value::find(std::string_view key) const noexcept {
    if (kind() != kind::map) {
        return {};
    }
    for (auto [k, v] : entries()) {
        if (k.kind() == kind::string && k.get_string() == key) {
            return v;
        }
    }
    return {};
}

}  // namespace polycodec
