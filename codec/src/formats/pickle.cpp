// Python pickle, a safe data-only subset (DESIGN section 1). The decoder is the pickle virtual
// machine without its dangerous half: it reads the opcodes CPython's pickle.dumps writes at
// protocols 0-5 for None, bool, int, float, str, bytes, bytearray, list, tuple, dict, set and
// frozenset, and refuses every opcode that would import or call code. Nothing is imported,
// nothing is called: the few globals CPython uses for data at protocols 0-3 (_codecs.encode,
// bytes, bytearray, set, frozenset) are matched by name together with the exact argument shape
// of the REDUCE that uses them.
//
// The machine builds values into a private arena first (memo entries refer to containers that
// later opcodes still append to, e.g. EMPTY_LIST BINPUT 0 ... APPENDS), then emits the root into
// the builder; a memo object met a second time is copied with builder::add_copy.
#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "detail/big_integer.hpp"
#include "detail/binary.hpp"
#include "detail/child_list.hpp"
#include "detail/dropped_tag.hpp"
#include "detail/encode_with.hpp"
#include "detail/fast_decode.hpp"
#include "detail/fixed_scalar.hpp"
#include "detail/lossy.hpp"
#include "detail/map_key.hpp"
#include "detail/tape_writer.hpp"
#include "detail/try.hpp"
#include "detail/utf8.hpp"
#include "formats.hpp"

namespace polycodec::detail {
namespace {

// ---- opcodes (Lib/pickletools.py) ----

namespace op {
constexpr unsigned char mark = '(';
constexpr unsigned char stop = '.';
constexpr unsigned char pop = '0';
constexpr unsigned char pop_mark = '1';
constexpr unsigned char dup = '2';
constexpr unsigned char float_text = 'F';
constexpr unsigned char int_text = 'I';
constexpr unsigned char binint = 'J';
constexpr unsigned char binint1 = 'K';
constexpr unsigned char long_text = 'L';
constexpr unsigned char binint2 = 'M';
constexpr unsigned char none = 'N';
constexpr unsigned char persid = 'P';
constexpr unsigned char binpersid = 'Q';
constexpr unsigned char reduce = 'R';
constexpr unsigned char string = 'S';
constexpr unsigned char binstring = 'T';
constexpr unsigned char short_binstring = 'U';
constexpr unsigned char unicode = 'V';
constexpr unsigned char binunicode = 'X';
constexpr unsigned char append = 'a';
constexpr unsigned char build = 'b';
constexpr unsigned char global = 'c';
constexpr unsigned char dict = 'd';
constexpr unsigned char empty_dict = '}';
constexpr unsigned char appends = 'e';
constexpr unsigned char get = 'g';
constexpr unsigned char binget = 'h';
constexpr unsigned char inst = 'i';
constexpr unsigned char long_binget = 'j';
constexpr unsigned char list = 'l';
constexpr unsigned char empty_list = ']';
constexpr unsigned char obj = 'o';
constexpr unsigned char put = 'p';
constexpr unsigned char binput = 'q';
constexpr unsigned char long_binput = 'r';
constexpr unsigned char setitem = 's';
constexpr unsigned char tuple = 't';
constexpr unsigned char empty_tuple = ')';
constexpr unsigned char setitems = 'u';
constexpr unsigned char binfloat = 'G';
constexpr unsigned char proto = 0x80;
constexpr unsigned char newobj = 0x81;
constexpr unsigned char ext1 = 0x82;
constexpr unsigned char ext2 = 0x83;
constexpr unsigned char ext4 = 0x84;
constexpr unsigned char tuple1 = 0x85;
constexpr unsigned char tuple2 = 0x86;
constexpr unsigned char tuple3 = 0x87;
constexpr unsigned char newtrue = 0x88;
constexpr unsigned char newfalse = 0x89;
constexpr unsigned char long1 = 0x8a;
constexpr unsigned char long4 = 0x8b;
constexpr unsigned char binbytes = 'B';
constexpr unsigned char short_binbytes = 'C';
constexpr unsigned char short_binunicode = 0x8c;
constexpr unsigned char binunicode8 = 0x8d;
constexpr unsigned char binbytes8 = 0x8e;
constexpr unsigned char empty_set = 0x8f;
constexpr unsigned char additems = 0x90;
constexpr unsigned char frozenset = 0x91;
constexpr unsigned char newobj_ex = 0x92;
constexpr unsigned char stack_global = 0x93;
constexpr unsigned char memoize = 0x94;
constexpr unsigned char frame = 0x95;
constexpr unsigned char bytearray8 = 0x96;
constexpr unsigned char next_buffer = 0x97;
constexpr unsigned char readonly_buffer = 0x98;
}  // namespace op

// ---- limits ----

constexpr std::size_t max_memo = std::size_t{1} << 20;   // memo entries
constexpr std::size_t max_stack = std::size_t{1} << 24;  // values on the stack
constexpr std::size_t max_long_bytes = 1 << 16;          // LONG4 length, text LONG digits

// ---- the arena ----

enum class pk : std::uint8_t {
    none,
    false_,
    true_,
    int_,
    bignum,
    float_,
    str,
    bytes,
    list,
    tuple,
    dict,
    set,
    frozenset,
    global,
};

// The globals recognised as data constructors; any other name is refused.
enum class known_global : std::uint8_t { codecs_encode, bytes, bytearray, set, frozenset };

constexpr std::uint32_t no_link = 0xffffffffu;

struct pnode {
    pk kind = pk::none;
    bool scratch = false;      // payload in scratch_ (else in the input)
    known_global global{};     // for pk::global
    std::uint8_t state = 0;    // emission: 0 not yet, 1 in progress, 2 done
    std::uint32_t height = 0;  // nesting height once emitted
    std::uint64_t a = 0;       // int bits, double bits, payload offset, first link
    std::uint64_t b = 0;       // payload length, last link
    std::uint64_t count = 0;   // children of a container
    std::uint64_t offset = 0;  // source offset of the opcode that made it
    std::size_t tape = 0;      // tape index once emitted
};

struct plink {
    std::uint32_t node;
    std::uint32_t next;
};

const char* refused_name(unsigned char c) {
    switch (c) {
        case op::global:
            return "GLOBAL";
        case op::stack_global:
            return "STACK_GLOBAL";
        case op::reduce:
            return "REDUCE";
        case op::inst:
            return "INST";
        case op::obj:
            return "OBJ";
        case op::newobj:
            return "NEWOBJ";
        case op::newobj_ex:
            return "NEWOBJ_EX";
        case op::build:
            return "BUILD";
        case op::ext1:
            return "EXT1";
        case op::ext2:
            return "EXT2";
        case op::ext4:
            return "EXT4";
        case op::persid:
            return "PERSID";
        case op::binpersid:
            return "BINPERSID";
        default:
            return nullptr;
    }
}

error refused(unsigned char c, std::size_t at) {
    return make_error(
        errc::forbidden, at,
        std::string("pickle opcode ") + refused_name(c) + " refused: it would import or call code");
}

class pickle_reader {
public:
    pickle_reader(std::string_view in, builder& b, const decode_options& opt)
        : in_(in), b_(b), opt_(opt) {}

    result<void> run() {
        if (in_.size() >= 0xffffffffu) {
            return fail(make_error(errc::size_exceeded, 0, "pickle larger than 4 GiB"));
        }
        std::uint32_t root = 0;
        POLYCODEC_TRY(machine(root));
        // Memo references may expand the document: bound that by a multiple of the input.
        std::size_t budget = in_.size() * 64 + (std::size_t{64} << 20);
        expand_budget_ = budget < opt_.limits.max_bytes ? budget : opt_.limits.max_bytes;
        return emit(root, 0);
    }

private:
    // ---- input ----

    error eof(std::size_t need) const {
        return make_error(errc::unexpected_eof, in_.size(),
                          "expected " + std::to_string(need) + " more bytes, saw end of input");
    }
    bool have(std::size_t n) const { return in_.size() - pos_ >= n; }
    std::uint64_t read_le(std::size_t n) {
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < n; ++i) {
            v |= std::uint64_t{static_cast<unsigned char>(in_[pos_ + i])} << (8 * i);
        }
        pos_ += n;
        return v;
    }
    // A text argument ending in '\n' (protocol 0).
    result<std::string_view> read_line() {
        std::size_t nl = in_.find('\n', pos_);
        if (nl == std::string_view::npos) {
            return fail(make_error(errc::unexpected_eof, in_.size(),
                                   "expected a newline-terminated argument, saw end of input"));
        }
        std::string_view s = in_.substr(pos_, nl - pos_);
        pos_ = nl + 1;
        return s;
    }

    // ---- arena ----

    std::uint32_t new_node(pk k, std::size_t at) {
        nodes_.emplace_back();
        nodes_.back().kind = k;
        nodes_.back().offset = at;
        return static_cast<std::uint32_t>(nodes_.size() - 1);
    }
    std::uint32_t new_container(pk k, std::size_t at) {
        std::uint32_t n = new_node(k, at);
        nodes_[n].a = no_link;
        nodes_[n].b = no_link;
        return n;
    }
    void add_child(std::uint32_t parent, std::uint32_t child) {
        links_.push_back({child, no_link});
        auto l = static_cast<std::uint32_t>(links_.size() - 1);
        pnode& p = nodes_[parent];
        detail::append_child<&pnode::a, &pnode::b, &plink::next>(p, links_, l, no_link);
        ++p.count;
    }
    std::uint32_t payload_node(pk k, std::size_t at, std::size_t off, std::size_t len,
                               bool scratch) {
        std::uint32_t n = new_node(k, at);
        nodes_[n].a = off;
        nodes_[n].b = len;
        nodes_[n].scratch = scratch;
        return n;
    }
    std::string_view payload(const pnode& n) const {
        return n.scratch ? std::string_view(scratch_).substr(n.a, n.b) : in_.substr(n.a, n.b);
    }
    std::uint32_t scratch_node(pk k, std::size_t at, std::string_view text) {
        std::size_t off = scratch_.size();
        scratch_.append(text);
        return payload_node(k, at, off, text.size(), true);
    }
    std::uint32_t int_node(std::int64_t v, std::size_t at) {
        std::uint32_t n = new_node(pk::int_, at);
        nodes_[n].a = static_cast<std::uint64_t>(v);
        return n;
    }
    // An integer of any size: int64 in a node, else a uint64 or bignum as text.
    std::uint32_t big_node(const big_integer& v, std::size_t at) {
        std::size_t bits = v.bit_length();
        if (bits <= 63 || (v.neg && bits == 64 && v.low64() == std::uint64_t{1} << 63)) {
            std::uint64_t m = v.low64();
            return int_node(v.neg ? static_cast<std::int64_t>(0 - m) : static_cast<std::int64_t>(m),
                            at);
        }
        return scratch_node(pk::bignum, at, to_decimal(v));
    }

    // ---- stack ----

    result<void> push(std::uint32_t n) {
        if (stack_.size() >= max_stack) {
            return fail(make_error(errc::size_exceeded, op_at_,
                                   "pickle stack deeper than " + std::to_string(max_stack)));
        }
        stack_.push_back(n);
        return {};
    }
    error underflow() const {
        return make_error(errc::malformed, op_at_, "pickle stack underflow");
    }
    // The position of the topmost MARK; pops it.
    result<std::size_t> pop_mark() {
        if (marks_.empty()) {
            return fail(make_error(errc::malformed, op_at_, "expected a MARK on the stack"));
        }
        std::size_t m = marks_.back();
        marks_.pop_back();
        return m;
    }
    // Items above the current mark must exist (no stack underflow into the mark).
    std::size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
    result<std::uint32_t> pop1() {
        if (stack_.size() <= floor()) {
            return fail(underflow());
        }
        std::uint32_t n = stack_.back();
        stack_.pop_back();
        return n;
    }
    bool is(std::uint32_t n, pk k) const { return nodes_[n].kind == k; }
    error expected(const char* what, const char* opname) const {
        return make_error(errc::malformed, op_at_,
                          std::string("expected ") + what + " on the stack for " + opname);
    }

    // ---- memo ----

    result<void> memo_put(std::uint64_t idx) {
        if (stack_.size() <= floor()) {
            return fail(underflow());
        }
        if (idx >= max_memo || idx > in_.size()) {
            return fail(make_error(errc::size_exceeded, op_at_,
                                   "memo index " + std::to_string(idx) + " beyond the limit"));
        }
        if (idx >= memo_.size()) {
            memo_.resize(idx + 1, no_link);
        }
        if (memo_[idx] == no_link) {
            ++memo_entries_;  // MEMOIZE stores at len(memo), as CPython
        }
        memo_[idx] = stack_.back();
        return {};
    }
    result<void> memo_get(std::uint64_t idx) {
        if (idx >= memo_.size() || memo_[idx] == no_link) {
            return fail(make_error(errc::malformed, op_at_,
                                   "memo index " + std::to_string(idx) + " was never stored"));
        }
        return push(memo_[idx]);
    }
    result<std::uint64_t> decimal_arg() {
        POLYCODEC_TRY_ASSIGN(line, read_line());
        std::uint64_t v = 0;
        auto r = std::from_chars(line.data(), line.data() + line.size(), v);
        if (r.ec != std::errc() || r.ptr != line.data() + line.size()) {
            return fail(make_error(errc::malformed, op_at_ + 1, "expected a decimal memo index"));
        }
        return v;
    }

    // ---- protocol 0 text arguments ----

    result<std::uint32_t> text_int(std::string_view s, bool long_form) {
        if (!long_form && s == "00") {
            return new_node(pk::false_, op_at_);
        }
        if (!long_form && s == "01") {
            return new_node(pk::true_, op_at_);
        }
        if (long_form && !s.empty() && s.back() == 'L') {
            s.remove_suffix(1);
        }
        if (s.size() > max_long_bytes) {
            return fail(make_error(errc::size_exceeded, op_at_ + 1, "integer text too long"));
        }
        big_integer v;
        if (!parse_decimal(s, v)) {
            return fail(make_error(errc::invalid_number, op_at_ + 1, "expected a decimal integer"));
        }
        return big_node(v, op_at_);
    }

    // raw-unicode-escape (pickle's UNICODE argument): bytes are Latin-1 code points except
    // \uXXXX and \UXXXXXXXX, which count only after an odd run of backslashes.
    result<std::uint32_t> raw_unicode(std::string_view s, std::size_t at) {
        std::string out;
        out.reserve(s.size());
        for (std::size_t i = 0; i < s.size();) {
            unsigned char c = static_cast<unsigned char>(s[i]);
            if (c != '\\') {
                char buf[4];
                out.append(buf, utf8_encode(c, buf));
                ++i;
                continue;
            }
            std::size_t run = 0;
            while (i + run < s.size() && s[i + run] == '\\') {
                ++run;
            }
            std::size_t after = i + run;
            bool escape =
                (run % 2) == 1 && after < s.size() && (s[after] == 'u' || s[after] == 'U');
            out.append(escape ? run - 1 : run, '\\');
            i = after;
            if (!escape) {
                continue;
            }
            std::size_t digits = s[after] == 'u' ? 4 : 8;
            if (after + 1 + digits > s.size()) {
                return fail(make_error(errc::invalid_string, at + after - 1,
                                       "truncated \\u escape in UNICODE"));
            }
            std::uint32_t cp = 0;
            for (std::size_t k = 0; k < digits; ++k) {
                char h = s[after + 1 + k];
                int d = h >= '0' && h <= '9'   ? h - '0'
                        : h >= 'a' && h <= 'f' ? h - 'a' + 10
                        : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                               : -1;
                if (d < 0) {
                    return fail(make_error(errc::invalid_string, at + after - 1,
                                           "expected hex digits in \\u escape"));
                }
                cp = cp * 16 + static_cast<std::uint32_t>(d);
            }
            if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
                return fail(make_error(errc::invalid_utf8, at + after - 1,
                                       "escape is not a Unicode scalar value"));
            }
            char buf[4];
            out.append(buf, utf8_encode(cp, buf));
            i = after + 1 + digits;
        }
        return scratch_node(pk::str, op_at_, out);
    }

    result<std::uint32_t> utf8_payload(std::size_t len) {
        std::string_view s = in_.substr(pos_, len);
        std::size_t valid = utf8_valid_prefix(s);
        if (valid != s.size()) {
            return fail(make_error(errc::invalid_utf8, pos_ + valid, "invalid UTF-8 in string"));
        }
        std::uint32_t n = payload_node(pk::str, op_at_, pos_, len, false);
        pos_ += len;
        return n;
    }

    // Reads a length of `width` bytes and checks it against the rest of the input.
    result<std::size_t> length(std::size_t width) {
        if (!have(width)) {
            return fail(eof(width));
        }
        std::uint64_t len = read_le(width);
        if (len > in_.size() - pos_) {
            return fail(make_error(errc::size_exceeded, op_at_,
                                   "length " + std::to_string(len) + " beyond the input"));
        }
        return static_cast<std::size_t>(len);
    }

    // ---- REDUCE of the recognised globals ----

    // Latin-1 text (from _codecs.encode(text, 'latin1')) -> bytes.
    result<std::uint32_t> latin1_bytes(std::string_view text) {
        std::string out;
        out.reserve(text.size());
        for (std::size_t i = 0; i < text.size();) {
            unsigned char c = static_cast<unsigned char>(text[i]);
            if (c < 0x80) {
                out.push_back(static_cast<char>(c));
                ++i;
            } else if ((c == 0xC2 || c == 0xC3) && i + 1 < text.size()) {
                out.push_back(static_cast<char>(((c & 0x1F) << 6) |
                                                (static_cast<unsigned char>(text[i + 1]) & 0x3F)));
                i += 2;
            } else {
                return fail(
                    make_error(errc::malformed, op_at_, "_codecs.encode text is not Latin-1"));
            }
        }
        return scratch_node(pk::bytes, op_at_, out);
    }

    // The i-th child of a tuple node.
    std::uint32_t child(std::uint32_t n, std::uint64_t i) const {
        std::uint32_t l = static_cast<std::uint32_t>(nodes_[n].a);
        while (i-- > 0) {
            l = links_[l].next;
        }
        return links_[l].node;
    }

    result<std::uint32_t> reduce(std::uint32_t callable, std::uint32_t args) {
        if (!is(callable, pk::global) || !is(args, pk::tuple)) {
            return fail(refused(op::reduce, op_at_));
        }
        std::uint64_t argc = nodes_[args].count;
        switch (nodes_[callable].global) {
            case known_global::codecs_encode: {
                if (argc != 2 || !is(child(args, 0), pk::str) || !is(child(args, 1), pk::str)) {
                    break;
                }
                std::string_view enc = payload(nodes_[child(args, 1)]);
                if (enc != "latin1" && enc != "latin-1") {
                    break;
                }
                return latin1_bytes(payload(nodes_[child(args, 0)]));
            }
            case known_global::bytes:
                if (argc == 0) {
                    return payload_node(pk::bytes, op_at_, 0, 0, false);
                }
                break;
            case known_global::bytearray:
                if (argc == 0) {
                    return payload_node(pk::bytes, op_at_, 0, 0, false);
                }
                if (argc == 1 && is(child(args, 0), pk::bytes)) {
                    return child(args, 0);
                }
                break;
            case known_global::set:
            case known_global::frozenset: {
                if (argc != 1 || !is(child(args, 0), pk::list)) {
                    break;
                }
                // A copy of the list's items: the list itself stays in the memo, and a later
                // APPEND to it must not change the set.
                std::uint32_t s = new_container(
                    nodes_[callable].global == known_global::set ? pk::set : pk::frozenset, op_at_);
                std::uint32_t list = child(args, 0);
                for (std::uint32_t l = static_cast<std::uint32_t>(nodes_[list].a); l != no_link;
                     l = links_[l].next) {
                    add_child(s, links_[l].node);
                }
                return s;
            }
        }
        return fail(refused(op::reduce, op_at_));
    }

    result<std::uint32_t> global_node(std::string_view module, std::string_view name,
                                      unsigned char opcode) {
        known_global g;
        bool builtin = module == "builtins" || module == "__builtin__";
        if (module == "_codecs" && name == "encode") {
            g = known_global::codecs_encode;
        } else if (builtin && name == "bytes") {
            g = known_global::bytes;
        } else if (builtin && name == "bytearray") {
            g = known_global::bytearray;
        } else if (builtin && name == "set") {
            g = known_global::set;
        } else if (builtin && name == "frozenset") {
            g = known_global::frozenset;
        } else {
            return fail(refused(opcode, op_at_));
        }
        std::uint32_t n = new_node(pk::global, op_at_);
        nodes_[n].global = g;
        nodes_[n].a = opcode;
        return n;
    }

    // ---- the machine ----

    result<void> machine(std::uint32_t& root) {
        for (;;) {
            if (pos_ >= in_.size()) {
                return fail(make_error(errc::unexpected_eof, in_.size(),
                                       "expected an opcode, saw end of input (no STOP)"));
            }
            op_at_ = pos_;
            auto c = static_cast<unsigned char>(in_[pos_++]);
            if (refused_name(c) != nullptr && c != op::global && c != op::stack_global &&
                c != op::reduce) {
                return fail(refused(c, op_at_));
            }
            result<void> r = step(c);
            if (!r) {
                return r;
            }
            if (c == op::stop) {
                if (stack_.size() != 1 || !marks_.empty()) {
                    return fail(make_error(errc::malformed, op_at_,
                                           "expected exactly one value on the stack at STOP"));
                }
                root = stack_.back();
                if (pos_ != in_.size()) {
                    return fail(make_error(errc::trailing_content, pos_,
                                           "expected end of input after STOP"));
                }
                return {};
            }
        }
    }

    result<void> push_result(result<std::uint32_t> n) {
        if (!n) {
            return fail(n.error());
        }
        return push(*n);
    }

    // Pops the items above the topmost mark into container `n`.
    void collect(std::uint32_t n, std::size_t from) {
        for (std::size_t i = from; i < stack_.size(); ++i) {
            add_child(n, stack_[i]);
        }
        stack_.resize(from);
    }

    result<void> step(unsigned char c) {
        switch (c) {
            case op::proto: {
                if (!have(1)) {
                    return fail(eof(1));
                }
                unsigned v = static_cast<unsigned char>(in_[pos_++]);
                if (v > 5) {
                    return fail(make_error(errc::malformed, op_at_ + 1,
                                           "unsupported pickle protocol " + std::to_string(v)));
                }
                return {};
            }
            case op::frame: {
                // Frames only group opcodes for buffering; the length must fit the input.
                auto len = length(8);
                return len ? result<void>{} : fail(len.error());
            }
            case op::stop:
                return {};
            case op::mark:
                if (marks_.size() >= opt_.limits.max_depth) {
                    return fail(make_error(
                        errc::depth_exceeded, op_at_,
                        "more than " + std::to_string(opt_.limits.max_depth) + " open MARKs"));
                }
                marks_.push_back(stack_.size());
                return {};
            case op::pop:
                if (stack_.size() > floor()) {
                    stack_.pop_back();
                    return {};
                }
                if (!marks_.empty()) {  // CPython: POP with nothing above a mark pops the mark
                    marks_.pop_back();
                    return {};
                }
                return fail(underflow());
            case op::pop_mark: {
                POLYCODEC_TRY_ASSIGN(m, pop_mark());
                stack_.resize(m);
                return {};
            }
            case op::dup:
                if (stack_.size() <= floor()) {
                    return fail(underflow());
                }
                return push(stack_.back());
            case op::none:
                return push(new_node(pk::none, op_at_));
            case op::newtrue:
                return push(new_node(pk::true_, op_at_));
            case op::newfalse:
                return push(new_node(pk::false_, op_at_));
            case op::binint:
                if (!have(4)) {
                    return fail(eof(4));
                }
                return push(int_node(static_cast<std::int32_t>(read_le(4)), op_at_));
            case op::binint1:
                if (!have(1)) {
                    return fail(eof(1));
                }
                return push(int_node(static_cast<std::int64_t>(read_le(1)), op_at_));
            case op::binint2:
                if (!have(2)) {
                    return fail(eof(2));
                }
                return push(int_node(static_cast<std::int64_t>(read_le(2)), op_at_));
            case op::int_text:
            case op::long_text: {
                POLYCODEC_TRY_ASSIGN(line, read_line());
                return push_result(text_int(line, c == op::long_text));
            }
            case op::long1:
            case op::long4: {
                POLYCODEC_TRY_ASSIGN(len, length(c == op::long1 ? 1 : 4));
                if (len > max_long_bytes) {
                    return fail(make_error(errc::size_exceeded, op_at_,
                                           "LONG4 of " + std::to_string(len) +
                                               " bytes beyond the limit of " +
                                               std::to_string(max_long_bytes)));
                }
                if (len <= 8) {
                    // The common case fits an int64: sign-extend without a big integer.
                    std::uint64_t u = read_le(len);
                    if (len > 0 && len < 8 && (u >> (8 * len - 1)) != 0) {
                        u |= ~std::uint64_t{0} << (8 * len);
                    }
                    return push(int_node(static_cast<std::int64_t>(u), op_at_));
                }
                big_integer v = from_twos_complement_le(in_.substr(pos_, len));
                pos_ += len;
                return push(big_node(v, op_at_));
            }
            case op::binfloat: {
                if (!have(8)) {
                    return fail(eof(8));
                }
                std::uint64_t bits = 0;
                for (int i = 0; i < 8; ++i) {
                    bits = (bits << 8) | static_cast<unsigned char>(in_[pos_ + i]);
                }
                pos_ += 8;
                std::uint32_t n = new_node(pk::float_, op_at_);
                nodes_[n].a = bits;
                return push(n);
            }
            case op::float_text: {
                POLYCODEC_TRY_ASSIGN(line, read_line());
                double d = 0;
                std::string_view s = line;
                if (!s.empty() && s[0] == '+') {
                    s.remove_prefix(1);
                }
                auto r = std::from_chars(s.data(), s.data() + s.size(), d);
                if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) {
                    return fail(make_error(errc::invalid_number, op_at_ + 1,
                                           "expected a float after FLOAT"));
                }
                std::uint32_t n = new_node(pk::float_, op_at_);
                std::memcpy(&nodes_[n].a, &d, 8);
                return push(n);
            }
            case op::unicode: {
                POLYCODEC_TRY_ASSIGN(line, read_line());
                return push_result(raw_unicode(line, op_at_ + 1));
            }
            case op::short_binunicode:
            case op::binunicode:
            case op::binunicode8: {
                POLYCODEC_TRY_ASSIGN(len, length(c == op::short_binunicode ? 1
                                                 : c == op::binunicode     ? 4
                                                                           : 8));
                return push_result(utf8_payload(len));
            }
            case op::short_binstring:
            case op::binstring: {
                // Python 2 str: text when it is valid UTF-8, else bytes.
                POLYCODEC_TRY_ASSIGN(len, length(c == op::short_binstring ? 1 : 4));
                std::string_view s = in_.substr(pos_, len);
                std::uint32_t n =
                    payload_node(utf8_valid(s) ? pk::str : pk::bytes, op_at_, pos_, len, false);
                pos_ += len;
                return push(n);
            }
            case op::string:
                return fail(make_error(errc::malformed, op_at_,
                                       "the Python 2 STRING opcode is not supported"));
            case op::short_binbytes:
            case op::binbytes:
            case op::binbytes8:
            case op::bytearray8: {
                POLYCODEC_TRY_ASSIGN(len, length(c == op::short_binbytes ? 1
                                                 : c == op::binbytes     ? 4
                                                                         : 8));
                std::uint32_t n = payload_node(pk::bytes, op_at_, pos_, len, false);
                pos_ += len;
                return push(n);
            }
            case op::next_buffer:
            case op::readonly_buffer:
                return fail(
                    make_error(errc::malformed, op_at_,
                               std::string("pickle opcode ") +
                                   (c == op::next_buffer ? "NEXT_BUFFER" : "READONLY_BUFFER") +
                                   " refused: out-of-band buffers are not supported"));
            case op::empty_list:
                return push(new_container(pk::list, op_at_));
            case op::empty_tuple:
                return push(new_container(pk::tuple, op_at_));
            case op::empty_dict:
                return push(new_container(pk::dict, op_at_));
            case op::empty_set:
                return push(new_container(pk::set, op_at_));
            case op::tuple1:
            case op::tuple2:
            case op::tuple3: {
                std::size_t n = c - op::tuple1 + 1;
                if (stack_.size() < floor() + n) {
                    return fail(underflow());
                }
                std::uint32_t t = new_container(pk::tuple, op_at_);
                collect(t, stack_.size() - n);
                return push(t);
            }
            case op::tuple:
            case op::list:
            case op::frozenset: {
                POLYCODEC_TRY_ASSIGN(m, pop_mark());
                std::uint32_t t = new_container(c == op::tuple  ? pk::tuple
                                                : c == op::list ? pk::list
                                                                : pk::frozenset,
                                                op_at_);
                collect(t, m);
                return push(t);
            }
            case op::dict: {
                POLYCODEC_TRY_ASSIGN(m, pop_mark());
                if ((stack_.size() - m) % 2 != 0) {
                    return fail(
                        make_error(errc::malformed, op_at_, "DICT with an odd number of items"));
                }
                std::uint32_t d = new_container(pk::dict, op_at_);
                collect(d, m);
                return push(d);
            }
            case op::append: {
                POLYCODEC_TRY_ASSIGN(v, pop1());
                if (stack_.size() <= floor() || !is(stack_.back(), pk::list)) {
                    return fail(expected("a list", "APPEND"));
                }
                add_child(stack_.back(), v);
                return {};
            }
            case op::appends:
            case op::additems:
            case op::setitems: {
                POLYCODEC_TRY_ASSIGN(m, pop_mark());
                pk want = c == op::appends ? pk::list : c == op::additems ? pk::set : pk::dict;
                if (m == 0 || m <= floor() || !is(stack_[m - 1], want)) {
                    return fail(expected(c == op::appends    ? "a list"
                                         : c == op::additems ? "a set"
                                                             : "a dict",
                                         c == op::appends    ? "APPENDS"
                                         : c == op::additems ? "ADDITEMS"
                                                             : "SETITEMS"));
                }
                if (c == op::setitems && (stack_.size() - m) % 2 != 0) {
                    return fail(make_error(errc::malformed, op_at_,
                                           "SETITEMS with an odd number of items"));
                }
                collect(stack_[m - 1], m);
                return {};
            }
            case op::setitem: {
                if (stack_.size() < floor() + 3 || !is(stack_[stack_.size() - 3], pk::dict)) {
                    return fail(expected("a dict, a key and a value", "SETITEM"));
                }
                collect(stack_[stack_.size() - 3], stack_.size() - 2);
                return {};
            }
            case op::put:
            case op::get: {
                POLYCODEC_TRY_ASSIGN(idx, decimal_arg());
                return c == op::put ? memo_put(idx) : memo_get(idx);
            }
            case op::binput:
            case op::long_binput:
            case op::binget:
            case op::long_binget: {
                std::size_t w = c == op::binput || c == op::binget ? 1 : 4;
                if (!have(w)) {
                    return fail(eof(w));
                }
                const std::uint64_t idx = read_le(w);
                return c == op::binput || c == op::long_binput ? memo_put(idx) : memo_get(idx);
            }
            case op::memoize:
                return memo_put(memo_entries_);
            case op::global: {
                POLYCODEC_TRY_ASSIGN(module, read_line());
                POLYCODEC_TRY_ASSIGN(name, read_line());
                return push_result(global_node(module, name, c));
            }
            case op::stack_global: {
                if (stack_.size() < floor() + 2) {
                    return fail(underflow());
                }
                std::uint32_t module = stack_[stack_.size() - 2];
                std::uint32_t name = stack_.back();
                stack_.resize(stack_.size() - 2);
                if (!is(module, pk::str) || !is(name, pk::str)) {
                    return fail(refused(c, op_at_));
                }
                return push_result(global_node(payload(nodes_[module]), payload(nodes_[name]), c));
            }
            case op::reduce: {
                if (stack_.size() < floor() + 2) {
                    return fail(refused(c, op_at_));
                }
                std::uint32_t callable = stack_[stack_.size() - 2];
                std::uint32_t args = stack_.back();
                stack_.resize(stack_.size() - 2);
                return push_result(reduce(callable, args));
            }
            default: {
                char buf[48];
                std::snprintf(buf, sizeof buf, "unknown pickle opcode 0x%02x", c);
                return fail(make_error(errc::malformed, op_at_, buf));
            }
        }
    }

    // ---- emission into the builder ----

    result<void> container_limit(const pnode& n) {
        return fail(
            make_error(b_.status() == errc::ok ? errc::depth_exceeded : b_.status(), n.offset,
                       b_.status() == errc::size_exceeded
                           ? std::string("document larger than its size budget")
                           : "nesting deeper than " + std::to_string(opt_.limits.max_depth)));
    }

    result<void> emit(std::uint32_t idx, std::uint32_t depth) {
        pnode& n = nodes_[idx];
        if (n.state == 1) {
            return fail(make_error(errc::malformed, n.offset,
                                   "recursive structure: a container that contains itself"));
        }
        if (n.state == 2) {
            // A memo object met again: copy what was emitted the first time.
            if (depth + n.height > opt_.limits.max_depth) {
                return fail(
                    make_error(errc::depth_exceeded, n.offset,
                               "nesting deeper than " + std::to_string(opt_.limits.max_depth)));
            }
            if (b_.doc().content_size() > expand_budget_ ||
                !b_.add_copy(value(&b_.doc(), n.tape))) {
                return fail(make_error(errc::size_exceeded, n.offset,
                                       "memo references expand the document past its budget"));
            }
            return {};
        }
        n.tape = b_.next_index();
        switch (n.kind) {
            case pk::none:
                b_.add_null();
                break;
            case pk::false_:
                b_.add_bool(false);
                break;
            case pk::true_:
                b_.add_bool(true);
                break;
            case pk::int_:
                b_.add_int(static_cast<std::int64_t>(n.a));
                break;
            case pk::float_: {
                double d;
                std::memcpy(&d, &n.a, 8);
                b_.add_double(d);
                break;
            }
            case pk::bignum: {
                std::string_view text = payload(n);
                if (text.size() <= 20 && text[0] != '-') {
                    std::uint64_t u = 0;
                    auto r = std::from_chars(text.data(), text.data() + text.size(), u);
                    if (r.ec == std::errc()) {
                        b_.add_uint(u);
                        break;
                    }
                }
                b_.add_bignum(text);
                break;
            }
            case pk::str:
                b_.add_string(payload(n));
                break;
            case pk::bytes:
                b_.add_bytes(payload(n));
                break;
            case pk::global:
                return fail(refused(static_cast<unsigned char>(n.a), n.offset));
            case pk::list:
            case pk::tuple:
            case pk::set:
            case pk::frozenset:
            case pk::dict: {
                bool map = n.kind == pk::dict;
                if (!(map ? b_.begin_map() : b_.begin_array())) {
                    return container_limit(nodes_[idx]);
                }
                nodes_[idx].state = 1;
                std::uint32_t height = 0;
                bool at_key = map;
                for (std::uint32_t l = static_cast<std::uint32_t>(nodes_[idx].a); l != no_link;
                     l = links_[l].next) {
                    std::uint32_t c = links_[l].node;
                    // A dict, list or set cannot be a dict key in Python (unhashable), and the
                    // encoder could not write it back (found by fuzz_decode_pickle).
                    pk ck = nodes_[c].kind;
                    if (at_key && (ck == pk::dict || ck == pk::list || ck == pk::set)) {
                        return fail(make_error(errc::malformed, nodes_[c].offset,
                                               "unhashable dict key (a dict, list or set)"));
                    }
                    at_key = map && !at_key;
                    POLYCODEC_TRY(emit(c, depth + 1));
                    height = std::max(height, nodes_[c].height);
                }
                if (map) {
                    b_.end_map();
                } else {
                    b_.end_array();
                }
                if (b_.doc().content_size() > expand_budget_) {
                    return fail(make_error(errc::size_exceeded, nodes_[idx].offset,
                                           "memo references expand the document past its budget"));
                }
                nodes_[idx].height = height + 1;
                break;
            }
        }
        nodes_[idx].state = 2;
        return {};
    }

    std::string_view in_;
    builder& b_;
    const decode_options& opt_;
    std::size_t pos_ = 0;
    std::size_t op_at_ = 0;
    std::uint64_t memo_entries_ = 0;
    std::size_t expand_budget_ = 0;
    // Per-thread scratch, reused across documents so steady-state decoding allocates nothing.
    struct scratch_buffers {
        std::vector<pnode> nodes;
        std::vector<plink> links;
        std::vector<std::uint32_t> stack;
        std::vector<std::size_t> marks;
        std::vector<std::uint32_t> memo;
        std::string text;
    };
    static scratch_buffers& thread_scratch() {
        thread_local scratch_buffers s;
        s.nodes.clear();
        s.links.clear();
        s.stack.clear();
        s.marks.clear();
        s.memo.clear();
        s.text.clear();
        return s;
    }
    scratch_buffers& scratch_space_ = thread_scratch();
    std::vector<pnode>& nodes_ = scratch_space_.nodes;
    std::vector<plink>& links_ = scratch_space_.links;
    std::vector<std::uint32_t>& stack_ = scratch_space_.stack;
    std::vector<std::size_t>& marks_ = scratch_space_.marks;
    std::vector<std::uint32_t>& memo_ = scratch_space_.memo;
    std::string& scratch_ = scratch_space_.text;
};

// ---- fast path ----
//
// One pass that writes the tape directly (detail::tape_writer), for the pickles of tree data
// that CPython and our encoder write: scalars, EMPTY_LIST / EMPTY_DICT / EMPTY_SET filled by
// APPEND(S) / SETITEM(S) / ADDITEMS, EMPTY_TUPLE, memo puts, and memo gets of scalars. Every
// value is written to the tape where it is pushed: a container's children are exactly the
// stack entries above it that a later APPEND-family opcode attaches to it, in push order, so
// the tape is in document order without an arena. A container attached to its parent (or left
// as the root at STOP) is closed there. Anything else (an error, a limit, a refused opcode,
// tuples built from the stack, big integers, protocol-0 text, POP / DUP, a memo get of a
// container) returns false, and decode_pickle resets the builder and runs pickle_reader, which
// decides and words every error exactly as before. On success the tape is the one
// pickle_reader emits.

constexpr std::size_t fast_max_marks = 64;
using fast_writer = tape_writer<256, 2048, false>;

enum class fk : std::uint8_t { list, dict, set };

// A container on the stack (EMPTY_LIST, EMPTY_DICT, EMPTY_SET) still open. The open
// containers are not only nested ones: a batch of up to 1000 children waits on the stack for
// its APPENDS, so the nesting depth is their height, known when they are attached.
struct fast_open {
    std::size_t entry;     // its place on the stack
    std::size_t start;     // its header's tape index
    std::uint64_t count;   // children attached so far (a dict: entries)
    std::uint32_t height;  // levels of containers in it, itself included
    fk kind;
};

// The stack holds the tape index of each entry; memo entries are 0 (empty), 1 + the tape
// index of a scalar, or memo_container (a container or a tuple: a get of it takes
// pickle_reader).
struct fast_scratch {
    std::vector<std::uint64_t> stack;
    std::vector<fast_open> open;
    std::vector<std::uint64_t> memo;
};
constexpr std::uint64_t memo_container = ~std::uint64_t{0};

fast_scratch& thread_fast_scratch() {
    thread_local fast_scratch s;
    if (s.stack.size() < 1024) {
        s.stack.resize(1024);
        s.open.resize(256);
    }
    s.memo.clear();
    return s;
}

inline std::uint64_t le_at(const unsigned char* p, int n) noexcept {
    std::uint64_t v = 0;
    if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(&v, p, static_cast<std::size_t>(n));
    } else {
        for (int i = 0; i < n; ++i) {
            v |= std::uint64_t{p[i]} << (8 * i);
        }
    }
    return v;
}

bool decode_pickle_fast(std::string_view in, builder& b, const decode_options& opt) {
    const auto* const p = reinterpret_cast<const unsigned char*>(in.data());
    const std::size_t size = in.size();
    if (size >= 0xffffffffu) {
        return false;
    }
    const std::size_t max_depth = std::min<std::size_t>(b.limits().max_depth, opt.limits.max_depth);
    const std::size_t expand = size * 64 + (std::size_t{64} << 20);
    const std::size_t max_bytes =
        std::min<std::size_t>(b.limits().max_bytes, std::min(expand, opt.limits.max_bytes));
    fast_scratch& s = thread_fast_scratch();
    std::uint64_t* st = s.stack.data();  // the stack: st[0 .. sn)
    std::size_t sn = 0;
    std::vector<std::uint64_t>& memo = s.memo;
    fast_open* cs = s.open.data();  // the open containers: cs[0 .. cn), by stack place
    std::size_t cn = 0;
    std::size_t marks[fast_max_marks];
    std::size_t nmarks = 0;
    std::uint64_t memo_entries = 0;
    fast_writer tw(b);
    std::size_t pos = 0;
    std::uint64_t n = 0;
    std::size_t from = 0;  // the first entry an APPEND-family opcode attaches
    fk want = fk::list;

    for (;;) {
        if (pos >= size) {
            return false;
        }
        const std::size_t here = tw.size();  // the tape index of what this opcode pushes
        std::uint64_t* w = tw.words(4);
        const unsigned c = p[pos++];
        const std::size_t left = size - pos;
        switch (c) {
            case op::binint1:
                if (left < 1) {
                    return false;
                }
                n = p[pos];
                pos += 1;
                goto int_value;
            case op::binint2:
                if (left < 2) {
                    return false;
                }
                n = le_at(p + pos, 2);
                pos += 2;
                goto int_value;
            case op::binint:
                if (left < 4) {
                    return false;
                }
                n = static_cast<std::uint64_t>(
                    static_cast<std::int64_t>(static_cast<std::int32_t>(le_at(p + pos, 4))));
                pos += 4;
                goto int_value;
            case op::long1:
            case op::long4: {
                const int k = c == op::long1 ? 1 : 4;
                if (left < static_cast<std::size_t>(k)) {
                    return false;
                }
                const std::uint64_t len = le_at(p + pos, k);
                pos += static_cast<std::size_t>(k);
                if (len > 8 || len > size - pos) {
                    return false;  // big integers: pickle_reader
                }
                n = len == 0 ? 0 : le_at(p + pos, static_cast<int>(len));
                if (len > 0 && len < 8 && (n >> (8 * len - 1)) != 0) {
                    n |= ~std::uint64_t{0} << (8 * len);
                }
                pos += len;
                goto int_value;
            }
            case op::binfloat:
                if (left < 8) {
                    return false;
                }
                w[0] = tape_word(kind::float64, 0, 0);
                w[1] = load_be(p + pos, 8);
                pos += 8;
                tw.advance(2);
                goto push;
            case op::none:
                w[0] = tape_word(kind::null, 0, 0);
                tw.advance(1);
                goto push;
            case op::newtrue:
                w[0] = tape_word(kind::boolean_true, 0, 0);
                tw.advance(1);
                goto push;
            case op::newfalse:
                w[0] = tape_word(kind::boolean_false, 0, 0);
                tw.advance(1);
                goto push;
            case op::short_binunicode:
                if (left < 1) {
                    return false;
                }
                n = p[pos];
                pos += 1;
                goto text;
            case op::binunicode:
            case op::binunicode8: {
                const int k = c == op::binunicode ? 4 : 8;
                if (left < static_cast<std::size_t>(k)) {
                    return false;
                }
                n = le_at(p + pos, k);
                pos += static_cast<std::size_t>(k);
                goto text;
            }
            case op::short_binbytes:
            case op::binbytes:
            case op::binbytes8:
            case op::bytearray8:
            case op::short_binstring:
            case op::binstring: {
                const int k = c == op::short_binbytes || c == op::short_binstring ? 1
                              : c == op::binbytes || c == op::binstring           ? 4
                                                                                  : 8;
                if (left < static_cast<std::size_t>(k)) {
                    return false;
                }
                n = le_at(p + pos, k);
                pos += static_cast<std::size_t>(k);
                if (n > size - pos) {
                    return false;
                }
                const std::string_view v(reinterpret_cast<const char*>(p + pos), n);
                // Python 2 str: text when it is valid UTF-8, else bytes.
                const bool str = (c == op::short_binstring || c == op::binstring) && utf8_valid(v);
                std::memcpy(tw.bytes(n), v.data(), n);
                tw.payload(w, str ? kind::string : kind::bytes, 0, n);
                pos += n;
                goto push;
            }
            case op::empty_tuple:
                tw.open_empty(w, kind::array);
                goto push;
            case op::empty_list:
            case op::empty_dict:
            case op::empty_set: {
                if (tw.over_budget(max_bytes)) {
                    return false;
                }
                if (cn == s.open.size()) {
                    s.open.resize(2 * cn);
                    cs = s.open.data();
                }
                const fk k = c == op::empty_dict   ? fk::dict
                             : c == op::empty_list ? fk::list
                                                   : fk::set;
                cs[cn++] = {sn, here, 0, 1, k};
                tw.open(w, k == fk::dict ? kind::map : kind::array, 0);
                goto push;
            }
            case op::mark:
                if (nmarks >= fast_max_marks || nmarks >= opt.limits.max_depth) {
                    return false;
                }
                marks[nmarks++] = sn;
                continue;
            case op::append:
                from = sn - 1;
                want = fk::list;
                if (sn < (nmarks == 0 ? 0 : marks[nmarks - 1]) + 2) {
                    return false;
                }
                goto attach;
            case op::setitem:
                from = sn - 2;
                want = fk::dict;
                if (sn < (nmarks == 0 ? 0 : marks[nmarks - 1]) + 3) {
                    return false;
                }
                goto attach;
            case op::appends:
            case op::setitems:
            case op::additems: {
                if (nmarks == 0) {
                    return false;
                }
                from = marks[--nmarks];
                want = c == op::appends ? fk::list : c == op::additems ? fk::set : fk::dict;
                const std::size_t floor = nmarks == 0 ? 0 : marks[nmarks - 1];
                if (from == 0 || from <= floor || (want == fk::dict && (sn - from) % 2 != 0)) {
                    return false;
                }
                goto attach;
            }
            case op::binput:
            case op::long_binput:
            case op::memoize: {
                std::uint64_t idx = memo_entries;
                if (c != op::memoize) {
                    const int k = c == op::binput ? 1 : 4;
                    if (left < static_cast<std::size_t>(k)) {
                        return false;
                    }
                    idx = le_at(p + pos, k);
                    pos += static_cast<std::size_t>(k);
                }
                if (sn <= (nmarks == 0 ? 0 : marks[nmarks - 1]) || idx >= max_memo || idx > size) {
                    return false;
                }
                if (idx >= memo.size()) {
                    memo.resize(idx + 1, 0);
                }
                if (memo[idx] == 0) {
                    ++memo_entries;
                }
                const std::uint64_t at = st[sn - 1];
                const bool container =
                    (cn != 0 && cs[cn - 1].entry == sn - 1) ||
                    static_cast<kind>(tw.at(at) >> document::kind_shift) == kind::array;
                memo[idx] = container ? memo_container : at + 1;
                continue;
            }
            case op::binget:
            case op::long_binget: {
                const int k = c == op::binget ? 1 : 4;
                if (left < static_cast<std::size_t>(k)) {
                    return false;
                }
                const std::uint64_t idx = le_at(p + pos, k);
                pos += static_cast<std::size_t>(k);
                if (idx >= memo.size() || memo[idx] == 0 || memo[idx] == memo_container) {
                    return false;
                }
                // A copy of the scalar (builder::add_copy: its payload bytes too).
                const std::size_t at = memo[idx] - 1;
                const std::uint64_t h = tw.at(at);
                const auto ek = static_cast<kind>(h >> document::kind_shift);
                if (ek == kind::null || ek == kind::boolean_false || ek == kind::boolean_true) {
                    w[0] = h;
                    tw.advance(1);
                } else if (ek == kind::string || ek == kind::bytes) {
                    const std::size_t len = tw.at(at + 1);
                    char* d = tw.bytes(len);
                    std::memmove(d, d - tw.bytes_used() + (h & document::payload_mask), len);
                    tw.payload(w, ek, 0, len);
                    if (tw.over_budget(max_bytes)) {
                        return false;
                    }
                } else {
                    w[0] = h;
                    w[1] = tw.at(at + 1);
                    tw.advance(2);
                }
                goto push;
            }
            case op::proto:
                if (left < 1 || p[pos] > 5) {
                    return false;
                }
                ++pos;
                continue;
            case op::frame:
                if (left < 8 || le_at(p + pos, 8) > left - 8) {
                    return false;
                }
                pos += 8;
                continue;
            case op::stop: {
                if (sn != 1 || nmarks != 0 || pos != size) {
                    return false;
                }
                if (cn != 0) {  // the root container: the builder's depth limit on its height
                    if (cs[0].height > max_depth) {
                        return false;
                    }
                    tw.close(cs[0].start, cs[0].count);
                }
                return fast_finish(tw, pos, size, max_bytes);
            }
            default:  // everything else: pickle_reader takes it or words the refusal
                return false;
        }

    int_value:
        fast_writer::scalar(w, kind::int64, n);
        tw.advance(2);
        goto push;

    text:
        if (!fast_text_at(tw, w, p, size, pos, n)) {
            return false;
        }

    push:
        if (sn == s.stack.size()) {
            if (sn >= max_stack) {
                return false;
            }
            s.stack.resize(2 * sn);
            st = s.stack.data();
        }
        st[sn++] = here;
        continue;

    attach : {
        // Entries from .. sn become children of entry from - 1, which must be an open
        // container of kind `want`. The containers among them are complete: each ends where
        // the next entry starts, the last at the tape's end.
        std::uint32_t height = 0;  // of the tallest container attached
        while (cn != 0 && cs[cn - 1].entry >= from) {
            const fast_open& x = cs[cn - 1];
            if (want == fk::dict && (x.entry - from) % 2 == 0) {
                return false;  // an unhashable key: pickle_reader words it
            }
            tw.close(x.start, x.count);
            if (x.entry + 1 < sn) {
                tw.at(x.start) = (tw.at(x.start) & ~document::payload_mask) | st[x.entry + 1];
            }
            height = std::max(height, x.height);
            --cn;
        }
        if (cn == 0 || cs[cn - 1].entry != from - 1 || cs[cn - 1].kind != want) {
            return false;
        }
        fast_open& parent = cs[cn - 1];
        parent.count += want == fk::dict ? (sn - from) / 2 : sn - from;
        if (height >= max_depth) {
            return false;  // the parent's height would pass the depth limit
        }
        parent.height = std::max(parent.height, height + 1);
        sn = from;
        continue;
    }
    }
}

result<void> decode_pickle(std::string_view in, builder& b, const decode_options& opt) {
    return fast_or_read(
        b, true, [&] { return decode_pickle_fast(in, b, opt); },
        [&] { return pickle_reader(in, b, opt).run(); });
}

// ---- writer: protocol 5 with framing ----

class pickle_writer {
public:
    pickle_writer(output_buffer& out, const encode_options& opt) : out_(out), opt_(opt) {}

    result<void> run(value root) {
        out_.push_back(static_cast<char>(op::proto));
        out_.push_back(5);
        open_frame();
        POLYCODEC_TRY(write_tape(root));
        out_.push_back(static_cast<char>(op::stop));
        close_frame();
        return {};
    }

private:
    // One walk over the tape front to back (the tape lists the elements in the order pickle
    // writes them): null, booleans, integers of 64 bits, floats, strings under 64 KiB and the
    // containers with their batches are written through the cursor, which has room for one
    // element; anything else (a key that is not a string, uint64, bignum, bytes, a tag, long
    // text) commits it and goes through write() / write_key() below for its subtree.
    struct frame {
        std::size_t end;      // the container's end index
        std::uint64_t rest;   // children (dict: entries) after the current batch
        std::uint64_t left;   // children of the current batch still to write
        std::uint64_t batch;  // its size
        bool map;
    };
    static std::vector<frame>& thread_frames() {
        thread_local std::vector<frame> frames(64);
        return frames;
    }
    // An opcode with 8 bytes, a batch end and a MARK; a short string's 32-byte copy.
    static constexpr std::size_t slack = 48;

    // A batch of up to 1000 children starts (MARK before more than one); `left` is set to
    // its size.
    static char* open_batch(char* o, frame& f, std::uint64_t& left) {
        f.batch = f.rest < 1000 ? f.rest : 1000;
        f.rest -= f.batch;
        left = f.batch;
        if (f.batch > 1) {
            *o++ = static_cast<char>(op::mark);
        }
        return o;
    }

    result<void> write_tape(value root) {
        const document& doc = *root.doc();
        // Named variables, not a structured binding: the lambdas below use them (clang 14
        // refuses to capture a binding).
        const tape_view tape = tape_view_of(doc);
        const std::uint64_t* const t = tape.t;
        const char* const payload = tape.payload;
        const std::size_t payload_size = tape.payload_size;
        std::size_t i = root.index();
        std::vector<frame>& storage = thread_frames();
        frame* frames = storage.data();  // the open containers: frames[0 .. sp)
        std::size_t sp = 0;
        // The output cursor, in locals: o writes into room up to end taken from out_; full is
        // where o reaches a frame holding 64 KiB (an address: the buffer moves as it grows).
        char* o = nullptr;
        char* end = nullptr;
        std::uintptr_t full = 0;
        auto acquire = [&](std::size_t need) {
            o = out_.prepare(need);
            char* base = out_.data_mut();
            end = base + out_.capacity();
            full = reinterpret_cast<std::uintptr_t>(base) + frame_start_ + 9 + frame_target;
        };
        auto release = [&]() __attribute__((always_inline)) {
            out_.commit(static_cast<std::size_t>(o - (out_.data_mut() + out_.size())));
        };
        auto room = [&]() __attribute__((always_inline)) {
            if (static_cast<std::size_t>(end - o) < slack) [[unlikely]] {
                release();
                acquire(slack);
            }
        };
        // At the start of a value, as write() does: a frame holding 64 KiB is closed first.
        auto frame_check = [&]() __attribute__((always_inline)) {
            if (reinterpret_cast<std::uintptr_t>(o) >= full) [[unlikely]] {
                release();
                close_frame();
                open_frame();
                acquire(slack);
            }
        };
        // SHORT_BINUNICODE of the string (n < 256 bytes) whose tape word is w: one 32-byte
        // copy when that much payload can be read (the bytes past n are overwritten by what
        // follows).
        auto short_text = [&](std::uint64_t w, std::size_t n) __attribute__((always_inline)) {
            const std::uint64_t off = w & document::payload_mask;
            if (n <= 32 && off + 32 <= payload_size) [[likely]] {
                o[0] = static_cast<char>(op::short_binunicode);
                o[1] = static_cast<char>(n);
                std::memcpy(o + 2, payload + off, 32);
            } else {
                if (static_cast<std::size_t>(end - o) < n + 2) {
                    release();
                    acquire(n + 2);
                }
                o[0] = static_cast<char>(op::short_binunicode);
                o[1] = static_cast<char>(n);
                std::memcpy(o + 2, payload + off, n);
            }
            o += 2 + n;
        };
        acquire(slack);
        // The innermost container: children of its batch still to write, whether a dict, and
        // whether its next element is a key (the outer ones' in frames[].left and .map).
        std::uint64_t left = 0;
        bool in_map = false;
        bool key_next = false;
        do {
            room();
            const std::uint64_t w = t[i];
            const auto k = static_cast<kind>(w >> document::kind_shift);
            if (key_next) {
                key_next = false;
                if (k == kind::string && t[i + 1] < 256) {
                    frame_check();
                    short_text(w, t[i + 1]);
                    i += 2;
                } else {
                    value v(&doc, i);
                    release();
                    POLYCODEC_TRY(write_key(v));
                    acquire(slack);
                    i = v.end_index();
                }
                continue;
            }
            frame_check();
            if (!fixed_scalar_at<scalars>(o, k, t, i)) {
                switch (k) {
                    case kind::array:
                    case kind::map: {
                        const bool map = k == kind::map;
                        *o++ = static_cast<char>(map ? op::empty_dict : op::empty_list);
                        const std::uint64_t n = t[i + 1];
                        i += 2;
                        if (n == 0) {
                            break;
                        }
                        if (sp == storage.size()) {
                            storage.resize(2 * sp);
                            frames = storage.data();
                        }
                        if (sp != 0) {
                            frames[sp - 1].left = left;
                        }
                        frames[sp] = {w & document::payload_mask, n, 0, 0, map};
                        in_map = map;
                        key_next = map;
                        o = open_batch(o, frames[sp++], left);
                        continue;
                    }
                    default: {
                        if (k == kind::string && t[i + 1] < 256) {
                            short_text(w, t[i + 1]);
                            i += 2;
                            break;
                        }
                        value v(&doc, i);
                        release();
                        POLYCODEC_TRY(write(v));
                        acquire(slack);
                        i = v.end_index();
                        break;
                    }
                }
            }
            // A value is complete: it ends batches, and the containers it completes.
            while (sp != 0) {
                room();
                key_next = in_map;
                if (--left != 0) {
                    break;
                }
                frame& f = frames[sp - 1];
                *o++ = static_cast<char>(f.batch > 1 ? (f.map ? op::setitems : op::appends)
                                                     : (f.map ? op::setitem : op::append));
                if (f.rest != 0) {
                    o = open_batch(o, f, left);
                    break;
                }
                if (--sp != 0) {
                    left = frames[sp - 1].left;
                    in_map = frames[sp - 1].map;
                }
            }
        } while (sp != 0);
        release();
        return {};
    }

    // CPython's framer: a frame is closed at the start of a value once it holds 64 KiB; a
    // frame under 4 bytes is written without its FRAME header; payloads of 64 KiB or more
    // are written outside frames.
    static constexpr std::size_t frame_target = 64 * 1024;

    void open_frame() {
        frame_start_ = out_.size();
        char hdr[9] = {static_cast<char>(op::frame)};
        out_.append(hdr, 9);
    }
    void close_frame() {
        std::size_t len = out_.size() - frame_start_ - 9;
        if (len < 4) {
            // Drop the header: move the frame's bytes back over it.
            char* p = out_.data_mut() + frame_start_;
            std::memmove(p, p + 9, len);
            out_.truncate(out_.size() - 9);
            return;
        }
        char le[8];
        for (int i = 0; i < 8; ++i) {
            le[i] = static_cast<char>((len >> (8 * i)) & 0xff);
        }
        out_.overwrite(frame_start_ + 1, le, 8);
    }
    void maybe_commit() {
        if (out_.size() - frame_start_ - 9 >= frame_target) {
            close_frame();
            open_frame();
        }
    }

    void put_le(std::uint64_t v, int n) {
        char buf[8];
        for (int i = 0; i < n; ++i) {
            buf[i] = static_cast<char>((v >> (8 * i)) & 0xff);
        }
        out_.append(buf, static_cast<std::size_t>(n));
    }

    // The smallest opcode of an int64: BININT1, BININT2, BININT, else LONG1 with the shortest
    // two's complement, as CPython's encode_long (at most 10 bytes at o).
    static char* int_at(char* o, std::int64_t v) noexcept {
        const auto u = static_cast<std::uint64_t>(v);
        int n;
        if (v >= 0 && v <= 0xff) {
            *o++ = static_cast<char>(op::binint1);
            n = 1;
        } else if (v >= 0 && v <= 0xffff) {
            *o++ = static_cast<char>(op::binint2);
            n = 2;
        } else if (v >= INT32_MIN && v <= INT32_MAX) {
            *o++ = static_cast<char>(op::binint);
            n = 4;
        } else {
            n = 8;
            while (n > 1) {
                unsigned top = (u >> (8 * (n - 1))) & 0xffu;
                unsigned next = (u >> (8 * (n - 2))) & 0x80u;
                if ((top == 0x00 && next == 0) || (top == 0xff && next != 0)) {
                    --n;
                } else {
                    break;
                }
            }
            *o++ = static_cast<char>(op::long1);
            *o++ = static_cast<char>(n);
        }
        if constexpr (std::endian::native == std::endian::little) {
            std::memcpy(o, &u, 8);  // all 8 stored, n count
        } else {
            for (int i = 0; i < n; ++i) {
                o[i] = static_cast<char>((u >> (8 * i)) & 0xff);
            }
        }
        return o + n;
    }
    // BINFLOAT: the bits big-endian (9 bytes at o).
    static char* float_at(char* o, std::uint64_t bits) noexcept {
        put_be_at(o, op::binfloat, bits, 8);
        return o + 9;
    }
    // The one-byte literals, integers and doubles for detail::fixed_scalar_at.
    struct scalars {
        static constexpr unsigned char null_byte = op::none;
        static constexpr unsigned char false_byte = op::newfalse;
        static constexpr unsigned char true_byte = op::newtrue;
        static char* int64_at(char* o, std::int64_t v) noexcept { return int_at(o, v); }
        static char* float64_at(char* o, std::uint64_t bits) noexcept { return float_at(o, bits); }
    };
    void write_long(const big_integer& b) {
        std::string bytes = to_twos_complement_le(b);
        if (bytes.size() < 256) {
            out_.push_back(static_cast<char>(op::long1));
            put_le(bytes.size(), 1);
        } else {
            out_.push_back(static_cast<char>(op::long4));
            put_le(bytes.size(), 4);
        }
        out_.append(bytes);
    }
    // str or bytes: the short, 4-byte or 8-byte length form.
    void write_payload(std::string_view s, bool text) {
        char hdr[9];
        std::size_t hn;
        if (s.size() < 256) {
            hdr[0] = static_cast<char>(text ? op::short_binunicode : op::short_binbytes);
            hdr[1] = static_cast<char>(s.size());
            hn = 2;
        } else if (s.size() <= 0xffffffffu) {
            hdr[0] = static_cast<char>(text ? op::binunicode : op::binbytes);
            for (int i = 0; i < 4; ++i) {
                hdr[1 + i] = static_cast<char>((s.size() >> (8 * i)) & 0xff);
            }
            hn = 5;
        } else {
            hdr[0] = static_cast<char>(text ? op::binunicode8 : op::binbytes8);
            for (int i = 0; i < 8; ++i) {
                hdr[1 + i] =
                    static_cast<char>((static_cast<std::uint64_t>(s.size()) >> (8 * i)) & 0xff);
            }
            hn = 9;
        }
        if (s.size() >= frame_target) {
            close_frame();
            out_.append(hdr, hn);
            out_.append(s);
            open_frame();
            return;
        }
        out_.append(hdr, hn);
        out_.append(s);
    }

    result<void> write(value v) {
        maybe_commit();
        switch (v.kind()) {
            case kind::null:
                out_.push_back(static_cast<char>(op::none));
                return {};
            case kind::boolean_false:
                out_.push_back(static_cast<char>(op::newfalse));
                return {};
            case kind::boolean_true:
                out_.push_back(static_cast<char>(op::newtrue));
                return {};
            case kind::int64: {
                char* p = out_.prepare(10);
                out_.commit(static_cast<std::size_t>(int_at(p, v.get_int()) - p));
                return {};
            }
            case kind::uint64: {
                big_integer b;
                std::uint64_t m = v.get_uint();
                b.mag = {static_cast<std::uint32_t>(m), static_cast<std::uint32_t>(m >> 32)};
                b.trim();
                write_long(b);
                return {};
            }
            case kind::bignum: {
                big_integer b;
                if (!parse_decimal(v.get_string(), b)) {
                    return fail(unrepresentable(v, "bignum text is not a decimal integer"));
                }
                write_long(b);
                return {};
            }
            case kind::float64: {
                std::uint64_t bits;
                double d = v.get_double();
                std::memcpy(&bits, &d, 8);
                char* p = out_.prepare(9);
                out_.commit(static_cast<std::size_t>(float_at(p, bits) - p));
                return {};
            }
            case kind::string:
            case kind::timestamp:
                write_payload(v.get_string(), true);
                return {};
            case kind::bytes:
                write_payload(v.get_string(), false);
                return {};
            case kind::tagged:
                POLYCODEC_TRY(drop_tag(opt_, v, "pickle"));
                return write(v.tagged_value());
            case kind::array: {
                out_.push_back(static_cast<char>(op::empty_list));
                return write_batches(v, false);
            }
            case kind::map: {
                out_.push_back(static_cast<char>(op::empty_dict));
                return write_batches(v, true);
            }
        }
        return {};
    }

    // CPython's _batch_appends / _batch_setitems: batches of 1000, one item without MARK.
    result<void> write_batches(value v, bool map) {
        std::uint64_t total = v.size();
        auto it = v.items().begin();
        std::uint64_t done = 0;
        while (done < total) {
            std::uint64_t n = total - done < 1000 ? total - done : 1000;
            if (n > 1) {
                out_.push_back(static_cast<char>(op::mark));
            }
            for (std::uint64_t i = 0; i < n; ++i) {
                if (map) {
                    value k = *it;
                    POLYCODEC_TRY(write_key(k));
                    ++it;
                }
                POLYCODEC_TRY(write(*it));
                ++it;
            }
            done += n;
            out_.push_back(static_cast<char>(n > 1 ? (map ? op::setitems : op::appends)
                                                   : (map ? op::setitem : op::append)));
        }
        return {};
    }

    result<void> write_key(value k) {
        if (k.kind() == kind::array) {
            // An array key is a tuple (what a decoded tuple key was), hashable when its items are.
            out_.push_back(static_cast<char>(k.size() == 0 ? op::empty_tuple : op::mark));
            if (k.size() == 0) {
                return {};
            }
            for (value item : k.items()) {
                POLYCODEC_TRY(write_key(item));
            }
            out_.push_back(static_cast<char>(op::tuple));
            return {};
        }
        if (is_container_key(k)) {
            // A Python dict key must be hashable: a list or dict is not (TypeError: unhashable
            // type), nor a tag over one.
            POLYCODEC_TRY_ASSIGN(text, key_fallback(opt_, k, "pickle (unhashable)"));
            write_payload(text, true);
            return {};
        }
        return write(k);
    }

    output_buffer& out_;
    const encode_options& opt_;
    std::size_t frame_start_ = 0;
};

}  // namespace

const codec_functions pickle_codec{decode_pickle, encode_with<pickle_writer, &pickle_writer::run>};

}  // namespace polycodec::detail
