// xml: XML 1.0 read with expat into a scratch tree, then written to the tape in one of two
// mappings (docs/formats/xml.md):
//   default   the xmltodict convention: an element is null (empty), its text (text only), or
//             a map of "@attr" entries, its children by name (repeated names as one array, at
//             the first one's place; force_list= names always arrays) and "#text" (the
//             element's text, trimmed). Comments, processing instructions and text beside
//             child elements (mixed content) have no place there: refused unless lossy=allow.
//   ordered   JsonML-style, lossless: ["tag", {"@attr": "v"}?, child...], a child being a
//             string (text), an element array, ["#comment", "text"] or ["?target", "data"];
//             a document with comments or PIs outside the root element is ["#document", ...].
// Security: no DTD or external entity is ever loaded (a reference to one is refused), internal
// entity expansion is bounded twice (expat's amplification limit and our budget of the text
// that reaches us: 10 x input + 1 MiB, as YAML aliases), and nesting by the depth limit.
// The writer is our own: names validated, text and attributes escaped, root= for a document
// that is not a map with one key, pretty=true indents.
#define XML_DTD 1  // the Debian library is built with it; declares the billion-laughs settings
#include <expat.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "detail/child_list.hpp"
#include "detail/infer.hpp"
#include "detail/lossy.hpp"
#include "detail/number.hpp"
#include "detail/out_room.hpp"
#include "detail/pointer_token.hpp"
#include "detail/scalar_writer.hpp"
#include "detail/raw_scalar.hpp"
#include "detail/text_reader.hpp"
#include "detail/try.hpp"
#include "detail/utf8.hpp"
#include "formats.hpp"

namespace polycodec::detail {
namespace {

constexpr std::uint32_t npos = 0xffffffffu;
// Namespace mode: expat joins uri and local name with this; we write {uri}local.
constexpr char ns_sep = '\x01';

enum class node_type : std::uint8_t { document, element, text, comment, pi };

struct xnode {
    node_type type;
    bool group_first = false;       // default mapping: the first sibling of its name
    bool has_elems = false;         // element: has a child element
    bool has_text = false;          // element: has text that is not all white space
    std::uint32_t pieces = 0;       // element: its text children
    std::uint32_t first_text = npos;  // element: its first text child node
    std::uint32_t name_off = 0;     // element name, PI target (text_at)
    std::uint32_t name_len = 0;
    std::uint32_t data_off = 0;     // text, comment, PI data (text_at); default mapping: an
                                    // element's first text piece (no node for it)
    std::uint32_t data_len = 0;
    std::uint32_t attr_first = 0;   // element: its attributes in attrs
    std::uint32_t attr_count = 0;
    std::uint32_t first_child = npos;
    std::uint32_t last_child = npos;
    std::uint32_t next = npos;
    std::uint32_t next_same = npos;  // default mapping: the next sibling of the same name
    // Runs of siblings of one name (the previous sibling an element of the same name), linked
    // by next_same as they are read: a run's first element has its last one in run_tail (an
    // index from its own on), the others their first one (an index below their own).
    std::uint32_t run_tail = npos;
};
static_assert(sizeof(xnode) == 56, "the tree budget counts nodes of 56 bytes, as before the runs");

struct xattr {
    std::uint32_t name_off, name_len, val_off, val_len;
};

// Per-thread scratch: the tree of one document and the two reusable expat parsers.
struct xml_scratch {
    std::vector<xnode> nodes;
    std::vector<xattr> attrs;
    std::string arena;
    std::vector<std::uint32_t> stack;
    std::vector<std::uint32_t> group;
    std::string text;
    XML_Parser plain = nullptr;
    XML_Parser ns = nullptr;
    ~xml_scratch() {
        if (plain != nullptr) {
            XML_ParserFree(plain);
        }
        if (ns != nullptr) {
            XML_ParserFree(ns);
        }
    }
};

xml_scratch& scratch() {
    thread_local xml_scratch s;
    return s;
}

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// ASCII bytes allowed as the first byte of a Name (1) and after it (2); 0x80 and up: 4
// (decoded as code points by the slow path).
constexpr auto ascii_name = [] {
    std::array<std::uint8_t, 256> t{};
    for (int c = 'A'; c <= 'Z'; ++c) {
        t[c] = 3;
        t[c + 32] = 3;
    }
    t[':'] = t['_'] = 3;
    for (int c = '0'; c <= '9'; ++c) {
        t[c] = 2;
    }
    t['-'] = t['.'] = 2;
    for (int c = 0x80; c < 0x100; ++c) {
        t[c] = 4;
    }
    return t;
}();

// n bytes at a and b equal; wide: 8 bytes can be read at each (a name of up to 8 bytes is
// then one compare of two words, no loop and no memcmp call).
inline bool same_text(const char* a, const char* b, std::size_t n, bool wide) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (wide && n - 1 < 8) {
        std::uint64_t x;
        std::uint64_t y;
        std::memcpy(&x, a, 8);
        std::memcpy(&y, b, 8);
        return ((x ^ y) << (64 - 8 * n)) == 0;  // the first n bytes are the low ones
    }
#else
    (void)wide;
#endif
    if (n > 16) {
        return std::memcmp(a, b, n) == 0;
    }
    for (std::size_t i = 0; i < n; ++i) {
        if (a[i] != b[i]) {
            return false;
        }
    }
    return true;
}

// White space (XML's S) as a table, for strip's first look.
constexpr auto ws_table = [] {
    std::array<bool, 256> t{};
    t[' '] = t['\t'] = t['\n'] = t['\r'] = true;
    return t;
}();

[[gnu::always_inline]] inline std::string_view strip(std::string_view s) {
    if (s.empty() || (!ws_table[static_cast<unsigned char>(s.front())] &&
                      !ws_table[static_cast<unsigned char>(s.back())])) {
        return s;  // the common case: nothing to trim
    }
    while (!s.empty() && is_ws(s.front())) {
        s.remove_prefix(1);
    }
    while (!s.empty() && is_ws(s.back())) {
        s.remove_suffix(1);
    }
    return s;
}

// The fast path's byte classes (xml_reader::content and its helpers).
enum : std::uint8_t { c_plain = 0, c_lt, c_amp, c_cr, c_rsb, c_high, c_bad, c_dash, c_qm };

// Byte classes in content (text), CDATA sections, comments and PI data.
constexpr std::array<std::uint8_t, 256> fast_classes(int where) {
    std::array<std::uint8_t, 256> t{};
    for (int c = 0; c < 0x20; ++c) {
        t[c] = c_bad;
    }
    t['\t'] = t['\n'] = c_plain;
    t['\r'] = c_cr;
    for (int c = 0x80; c < 0x100; ++c) {
        t[c] = c_high;
    }
    if (where == 0) {  // content
        t['<'] = c_lt;
        t['&'] = c_amp;
        t[']'] = c_rsb;
    } else if (where == 1) {  // CDATA
        t[']'] = c_rsb;
    } else if (where == 2) {  // comment
        t['-'] = c_dash;
    } else {  // PI
        t['?'] = c_qm;
    }
    return t;
}
constexpr auto text_class = fast_classes(0);
constexpr auto cdata_class = fast_classes(1);
constexpr auto comment_class = fast_classes(2);
constexpr auto pi_class = fast_classes(3);

// Copies n bytes with fixed-size moves for short n (names, short texts): no memcpy call, and
// no byte read or written outside [src, src + n) and [dst, dst + n).
[[gnu::always_inline]] inline void copy_small(char* dst, const char* src, std::size_t n) {
    if (n >= 8) {
        if (n > 16) {
            std::memcpy(dst, src, n);
            return;
        }
        std::uint64_t a;
        std::uint64_t b;
        std::memcpy(&a, src, 8);
        std::memcpy(&b, src + n - 8, 8);
        std::memcpy(dst, &a, 8);
        std::memcpy(dst + n - 8, &b, 8);
    } else if (n >= 4) {
        std::uint32_t a;
        std::uint32_t b;
        std::memcpy(&a, src, 4);
        std::memcpy(&b, src + n - 4, 4);
        std::memcpy(dst, &a, 4);
        std::memcpy(dst + n - 4, &b, 4);
    } else if (n > 0) {
        dst[0] = src[0];
        dst[n / 2] = src[n / 2];
        dst[n - 1] = src[n - 1];
    }
}

// tape_sink with the calls that emit() makes per value forced inline (integers, strings: most
// of its cost there), in the builder-shaped interface element() and textinfer::add take.
class hot_tape {
public:
    explicit hot_tape(tape_sink& s) : s_(s) {}
    void add_null() { s_.add_null(); }
    void add_bool(bool v) { s_.add_bool(v); }
    [[gnu::always_inline]] void add_int(std::int64_t v) { s_.hot_int(v); }
    void add_uint(std::uint64_t v) { s_.add_uint(v); }
    void add_double(double d) { s_.add_double(d); }
    [[gnu::always_inline]] void add_string(std::string_view t) {
        char* d = s_.hot_begin_string(t.size());
        copy_small(d, t.data(), t.size());
        s_.hot_end_string(d + t.size());
    }
    void add_bignum(std::string_view t) { s_.add_bignum(t); }
    [[gnu::always_inline]] char* begin_string(std::size_t max_len) {
        return s_.hot_begin_string(max_len);
    }
    [[gnu::always_inline]] void end_string(char* written_end) { s_.hot_end_string(written_end); }
    bool begin_array() { return s_.begin_array(); }
    bool begin_map() { return s_.begin_map(); }
    void end_array() { s_.end_array(); }
    void end_map() { s_.end_map(); }
    bool ok() const noexcept { return s_.ok(); }

private:
    tape_sink& s_;
};

// ---- reader ----

class xml_reader {
public:
    xml_reader(std::string_view in, builder& b, const decode_options& opt)
        : in_(in), b_(b), opt_(opt), s_(scratch()) {
        text_budget_ = in.size() * 10 + (std::size_t{1} << 20);
        max_bytes_ = b.limits().max_bytes;
    }

    void clear_tree() {
        s_.nodes.clear();
        s_.attrs.clear();
        s_.arena.clear();
        s_.stack.clear();
        s_.nodes.push_back(xnode{node_type::document});
        s_.stack.push_back(0);
        base_ = 0;
        refd_ = 0;
        tail_ = npos;
    }

    // which: 0 both readers (the fast path, then expat where it hands off), 1 expat alone,
    // 2 the fast path alone (*handed_off set where it hands off). Expat alone writes the
    // document through the builder only (the reference the tape_sink run is held to).
    result<void> run(int which = 0, bool* handed_off = nullptr) {
        clear_tree();
        tape_ = which != 1;
        if (which != 1) {
            std::size_t report_mark = opt_.report != nullptr ? opt_.report->size() : 0;
            fast_ = true;
            bool ok = fast_scan() && !handoff_;
            fast_ = false;
            if (ok) {
                return emit();
            }
            if (handed_off != nullptr) {
                *handed_off = true;
            }
            if (which == 2) {
                return fail(make_error(errc::malformed, 0, "the fast path hands off"));
            }
            // Whatever the fast path did is forgotten: expat reads the whole input again.
            if (opt_.report != nullptr) {
                opt_.report->erase(opt_.report->begin() +
                                       static_cast<std::ptrdiff_t>(report_mark),
                                   opt_.report->end());
            }
            reported_ = 0;
            handoff_ = false;
            clear_tree();
        }
        XML_Parser& slot = opt_.xml.expand_namespaces ? s_.ns : s_.plain;
        if (slot == nullptr) {
            slot = opt_.xml.expand_namespaces ? XML_ParserCreateNS(nullptr, ns_sep)
                                              : XML_ParserCreate(nullptr);
            if (slot == nullptr) {
                throw std::bad_alloc();
            }
        } else {
            XML_ParserReset(slot, nullptr);
        }
        p_ = slot;
        XML_SetUserData(p_, this);
        XML_SetElementHandler(p_, on_start, on_end);
        XML_SetCharacterDataHandler(p_, on_text);
        XML_SetCommentHandler(p_, on_comment);
        XML_SetProcessingInstructionHandler(p_, on_pi);
        XML_SetExternalEntityRefHandler(p_, on_external);
        XML_SetSkippedEntityHandler(p_, on_skipped);
        XML_SetEntityDeclHandler(p_, on_entity_decl);
        // Parameter entities are processed so that internal ones work; the external DTD
        // subset is never read (on_external skips it), an external parameter entity is refused.
        XML_SetParamEntityParsing(p_, XML_PARAM_ENTITY_PARSING_ALWAYS);
        XML_SetStartDoctypeDeclHandler(p_, on_doctype);
        XML_SetBillionLaughsAttackProtectionMaximumAmplification(p_, 10.0f);
        XML_SetBillionLaughsAttackProtectionActivationThreshold(p_, std::size_t{1} << 20);
        if (in_.size() > static_cast<std::size_t>(INT32_MAX)) {
            return fail(make_error(errc::size_exceeded, 0, "input larger than 2 GiB"));
        }
        XML_Status st = XML_Parse(p_, in_.data(), static_cast<int>(in_.size()), XML_TRUE);
        if (err_.code != errc::ok) {
            return fail(std::move(err_));
        }
        if (st != XML_STATUS_OK) {
            return fail(expat_error());
        }
        if (lossy_.code != errc::ok) {
            return fail(std::move(lossy_));
        }
        return emit();
    }

private:
    // ---- expat callbacks ----
    static xml_reader& self(void* ud) { return *static_cast<xml_reader*>(ud); }

    error here(errc code, std::string msg) {
        if (fast_) {
            return make_error(code, 0, std::move(msg));  // the fast path hands off: not used
        }
        error e = make_error(code, static_cast<std::uint64_t>(std::max<XML_Index>(
                                       0, XML_GetCurrentByteIndex(p_))),
                             std::move(msg));
        e.line = static_cast<std::uint32_t>(XML_GetCurrentLineNumber(p_));
        e.column = static_cast<std::uint32_t>(XML_GetCurrentColumnNumber(p_)) + 1;
        e.path = path();
        e.has_path = true;
        return e;
    }

    void stop(error e) {
        if (fast_) {
            handoff_ = true;  // expat reads the input again and finds this itself
            return;
        }
        if (err_.code == errc::ok) {
            err_ = std::move(e);
        }
        XML_StopParser(p_, XML_FALSE);
    }

    // The names of the open elements, for error paths: "/catalog/book".
    std::string path() const {
        std::string r;
        for (std::size_t i = 1; i < s_.stack.size(); ++i) {
            const xnode& n = s_.nodes[s_.stack[i]];
            r += '/';
            detail::append_pointer_token(r, str(n.name_off, n.name_len));
        }
        return r;
    }

    // A lossy construct under the default mapping: remembered (the first one) unless allowed.
    void lossy(std::string_view kind, const char* what) {
        if (opt_.lossy) {
            if (opt_.report != nullptr && reported_ < 16) {
                ++reported_;
                opt_.report->push_back({path(), kind, what});
            }
            return;
        }
        if (fast_) {
            handoff_ = true;  // the refusal (and its position) is expat's
            return;
        }
        if (lossy_.code == errc::ok) {
            lossy_ = here(errc::unrepresentable,
                          std::string(what) +
                              " has no place in the default XML mapping; use ordered=true "
                              "(lossless) or lossy=allow");
        }
    }

    // The checks run per callback: inline, their errors out of line. The tree's bytes: its
    // nodes, attributes and the arena's text, counting what the fast path refers to in the
    // input (refd_) as stored: the same count as expat's reading of the same input gives.
    std::size_t tree_bytes() const {
        return s_.nodes.size() * sizeof(xnode) + s_.attrs.size() * sizeof(xattr) +
               s_.arena.size() + refd_;
    }

    // Text offsets: below base_, the fast path's text referred to in the input; from base_ on,
    // the arena's (base_ is 0 for expat, whose text is all stored).
    const char* text_at(std::uint32_t off) const {
        return off < base_ ? in_.data() + off : s_.arena.data() + (off - base_);
    }
    // 8 bytes can be read at text_at(off) (same_text's wide compare).
    bool wide_at(std::uint32_t off) const {
        return off < base_ ? std::size_t{off} + 8 <= base_
                           : std::size_t{off} - base_ + 8 <= s_.arena.size();
    }
    // The offset of the arena's next byte.
    std::uint32_t arena_end() const {
        return static_cast<std::uint32_t>(base_ + s_.arena.size());
    }

    bool over_budget() {
        if (tree_bytes() > max_bytes_) [[unlikely]] {
            stop_over_budget();
            return true;
        }
        return false;
    }

    [[gnu::noinline, gnu::cold]] void stop_over_budget() {
        stop(here(errc::size_exceeded, "document larger than its budget of " +
                                           std::to_string(max_bytes_) + " bytes"));
    }

    bool count_text(std::size_t n) {
        text_bytes_ += n;
        if (text_bytes_ > text_budget_) [[unlikely]] {
            stop_text_budget();
            return false;
        }
        return true;
    }

    [[gnu::noinline, gnu::cold]] void stop_text_budget() {
        stop(here(errc::size_exceeded,
                  "entity expansion beyond the budget of " + std::to_string(text_budget_) +
                      " bytes of text (10 x input + 1 MiB)"));
    }

    std::uint32_t store(std::string_view s) {
        const std::uint32_t off = arena_end();
        s_.arena.append(s);
        return off;
    }

    // Appends a name, as {uri}local in namespace mode.
    void store_name(const char* name, std::uint32_t& off, std::uint32_t& len) {
        std::string_view n(name);
        off = arena_end();
        auto sep = opt_.xml.expand_namespaces ? n.find(ns_sep) : std::string_view::npos;
        if (sep == std::string_view::npos) {
            s_.arena.append(n);
        } else {
            s_.arena += '{';
            s_.arena.append(n.substr(0, sep));
            s_.arena += '}';
            s_.arena.append(n.substr(sep + 1));
        }
        len = arena_end() - off;
    }

    std::uint32_t add_child(xnode n) {
        auto idx = static_cast<std::uint32_t>(s_.nodes.size());
        std::uint32_t parent = s_.stack.back();
        tail_ = n.type == node_type::text ? idx : npos;
        s_.nodes.push_back(n);
        detail::append_child<&xnode::first_child, &xnode::last_child, &xnode::next>(
            s_.nodes[parent], s_.nodes, idx, npos);
        return idx;
    }

    // Element `idx`, the child just added after `prev` (its parent's last child before it,
    // or npos), joins prev's run when `same` (prev is an element of the same name).
    void link_run(std::uint32_t prev, std::uint32_t idx, bool same) {
        xnode& k = s_.nodes[idx];
        if (!same) {
            k.run_tail = idx;
            return;
        }
        xnode& pv = s_.nodes[prev];
        const std::uint32_t head = pv.run_tail < prev ? pv.run_tail : prev;
        pv.next_same = idx;
        k.run_tail = head;
        s_.nodes[head].run_tail = idx;
    }

    static void XMLCALL on_start(void* ud, const XML_Char* name, const XML_Char** atts) {
        xml_reader& r = self(ud);
        if (r.s_.stack.size() > r.opt_.limits.max_depth) {
            r.stop(r.here(errc::depth_exceeded,
                          "nesting deeper than " + std::to_string(r.opt_.limits.max_depth)));
            return;
        }
        xnode n{node_type::element};
        r.store_name(name, n.name_off, n.name_len);
        n.attr_first = static_cast<std::uint32_t>(r.s_.attrs.size());
        for (const XML_Char** a = atts; *a != nullptr; a += 2) {
            xattr at{};
            r.store_name(a[0], at.name_off, at.name_len);
            std::string_view v(a[1]);
            if (!r.count_text(v.size())) {
                return;
            }
            at.val_off = r.store(v);
            at.val_len = static_cast<std::uint32_t>(v.size());
            r.s_.attrs.push_back(at);
        }
        n.attr_count = static_cast<std::uint32_t>(r.s_.attrs.size()) - n.attr_first;
        xnode& parent = r.s_.nodes[r.s_.stack.back()];
        parent.has_elems = true;
        const std::uint32_t prev = parent.last_child;
        const bool same = prev != npos && r.s_.nodes[prev].type == node_type::element &&
                          r.str(r.s_.nodes[prev].name_off, r.s_.nodes[prev].name_len) ==
                              r.str(n.name_off, n.name_len);
        std::uint32_t idx = r.add_child(n);
        r.link_run(prev, idx, same);
        r.s_.stack.push_back(idx);
        r.over_budget();
    }

    static void XMLCALL on_end(void* ud, const XML_Char*) { self(ud).end_element(); }

    void end_element() {
        xml_reader& r = *this;
        if (!r.opt_.xml.ordered) {
            // Mixed content: text that is not white space beside child elements.
            const xnode& e = r.s_.nodes[r.s_.stack.back()];
            if (e.has_elems && e.has_text) {
                r.lossy("mixed_content", "text beside child elements (mixed content)");
            }
        }
        r.s_.stack.pop_back();
    }

    static void XMLCALL on_text(void* ud, const XML_Char* s, int len) {
        xml_reader& r = self(ud);
        auto n = static_cast<std::size_t>(len);
        if (!r.count_text(n)) {
            return;
        }
        r.text_piece(s, n);
    }

    // Character data (expat may deliver one run in several pieces; consecutive pieces join).
    // `off`: where the fast path has the piece in its copy of the input (referred to, not
    // copied), else npos (stored).
    void text_piece(const char* s, std::size_t n, std::uint32_t off = npos) {
        xml_reader& r = *this;
        const std::uint32_t parent_idx = r.s_.stack.back();
        xnode& parent = r.s_.nodes[parent_idx];
        if (!parent.has_text) {
            for (std::size_t k = 0; k < n; ++k) {
                if (!is_ws(s[k])) {
                    parent.has_text = true;
                    break;
                }
            }
        }
        if (!r.opt_.xml.ordered && parent.type == node_type::element) {
            // The default mapping joins an element's text pieces: the first one (and what
            // follows it directly) is kept on the element, without a text node.
            if (parent.pieces == 0) {
                parent.data_off = off != npos ? refer(off, n) : r.store(std::string_view(s, n));
                parent.data_len = static_cast<std::uint32_t>(n);
                parent.pieces = 1;
                tail_ = parent_idx;
                if (!fast_) {
                    r.over_budget();
                }
                return;
            }
            if (parent.first_text == npos && tail_ == parent_idx) {
                join(parent.data_off, parent.data_len, s, n);
                return;
            }
        }
        if (parent.last_child != npos && tail_ == parent.last_child &&
            r.s_.nodes[parent.last_child].type == node_type::text) {
            xnode& last = r.s_.nodes[parent.last_child];
            join(last.data_off, last.data_len, s, n);
            return;
        }
        xnode t{node_type::text};
        t.data_off = off != npos ? refer(off, n) : r.store(std::string_view(s, n));
        t.data_len = static_cast<std::uint32_t>(n);
        std::uint32_t idx = r.add_child(t);
        xnode& p = r.s_.nodes[parent_idx];
        if (p.first_text == npos) {
            p.first_text = idx;
        }
        ++p.pieces;
        r.over_budget();
    }

    // The fast path's text at `off` in the input, referred to (not copied).
    std::uint32_t refer(std::uint32_t off, std::size_t n) {
        refd_ += n;
        return off;
    }

    // Appends a piece to the text at off, len (the last text stored or referred to: copied to
    // the end of the arena first when it is not there).
    void join(std::uint32_t& off, std::uint32_t& len, const char* s, std::size_t n) {
        if (off < base_ || off + len != arena_end()) {
            if (off < base_) {
                refd_ -= len;
            }
            s_.arena.reserve(s_.arena.size() + len + n);
            const char* from = text_at(off);  // the input, or the arena (no reallocation now)
            off = arena_end();
            s_.arena.append(from, len);
        }
        s_.arena.append(s, n);
        len += static_cast<std::uint32_t>(n);
        if (n > 4096) {
            over_budget();
        }
    }

    static void XMLCALL on_comment(void* ud, const XML_Char* data) {
        xml_reader& r = self(ud);
        std::string_view d(data);
        if (r.opt_.xml.ordered && !r.count_text(d.size())) {
            return;
        }
        r.comment(d);
    }

    void comment(std::string_view d) {
        xml_reader& r = *this;
        if (!r.opt_.xml.ordered) {
            r.lossy("xml_comment", "a comment");
            return;
        }
        xnode c{node_type::comment};
        c.data_off = r.store(d);
        c.data_len = static_cast<std::uint32_t>(d.size());
        r.add_child(c);
        r.over_budget();
    }

    static void XMLCALL on_pi(void* ud, const XML_Char* target, const XML_Char* data) {
        xml_reader& r = self(ud);
        std::string_view t(target);
        std::string_view d(data);
        if (r.opt_.xml.ordered && !r.count_text(t.size() + d.size())) {
            return;
        }
        r.pi(t, d);
    }

    void pi(std::string_view t, std::string_view d) {
        xml_reader& r = *this;
        if (!r.opt_.xml.ordered) {
            r.lossy("xml_processing_instruction", "a processing instruction");
            return;
        }
        xnode n{node_type::pi};
        n.name_off = r.store(t);
        n.name_len = static_cast<std::uint32_t>(t.size());
        n.data_off = r.store(d);
        n.data_len = static_cast<std::uint32_t>(d.size());
        r.add_child(n);
        r.over_budget();
    }

    static void XMLCALL on_doctype(void* ud, const XML_Char*, const XML_Char* sysid,
                                   const XML_Char*, int) {
        xml_reader& r = self(ud);
        r.subset_ = sysid != nullptr;
        r.subset_id_ = sysid != nullptr ? sysid : "";
    }

    static int XMLCALL on_external(XML_Parser p, const XML_Char* context, const XML_Char*,
                                   const XML_Char* system_id, const XML_Char*) {
        xml_reader& r = self(XML_GetUserData(p));
        if (context == nullptr && r.subset_ && system_id != nullptr && r.subset_id_ == system_id) {
            // The external DTD subset (<!DOCTYPE d SYSTEM "x.dtd">): not read, as if empty;
            // an entity it would have declared is refused where it is used (on_skipped).
            r.subset_ = false;
            return XML_STATUS_OK;
        }
        std::string what = context != nullptr ? "external entity" : "external parameter entity";
        if (context != nullptr) {
            std::string_view c(context);
            what += " &" + std::string(c.substr(0, std::min<std::size_t>(c.size(), 64))) + ";";
        }
        if (system_id != nullptr) {
            std::string_view s(system_id);
            what += " (SYSTEM \"" + std::string(s.substr(0, std::min<std::size_t>(s.size(), 128))) +
                    "\")";
        }
        r.stop(r.here(errc::forbidden, what + " refused: external entities are never loaded"));
        return XML_STATUS_ERROR;
    }

    static void XMLCALL on_skipped(void* ud, const XML_Char* name, int is_parameter) {
        xml_reader& r = self(ud);
        std::string_view n(name);
        r.stop(r.here(errc::forbidden,
                      std::string(is_parameter ? "parameter entity %" : "entity &") +
                          std::string(n.substr(0, std::min<std::size_t>(n.size(), 64))) +
                          "; is not declared in the internal subset (external DTDs and "
                          "parameter entities are never loaded)"));
    }

    static void XMLCALL on_entity_decl(void* ud, const XML_Char*, int, const XML_Char*, int,
                                       const XML_Char*, const XML_Char*, const XML_Char*,
                                       const XML_Char*) {
        xml_reader& r = self(ud);
        // A document declaring entities by the million costs expat memory: bounded here.
        if (++r.entity_decls_ > 10000) {
            r.stop(r.here(errc::size_exceeded, "more than 10000 entity declarations"));
        }
    }

    error expat_error() {
        XML_Error code = XML_GetErrorCode(p_);
        errc c = errc::unexpected_char;
        switch (code) {
            case XML_ERROR_NO_ELEMENTS:
            case XML_ERROR_UNCLOSED_TOKEN:
            case XML_ERROR_PARTIAL_CHAR:
            case XML_ERROR_UNCLOSED_CDATA_SECTION:
                c = errc::unexpected_eof;
                break;
            case XML_ERROR_JUNK_AFTER_DOC_ELEMENT:
                c = errc::trailing_content;
                break;
            case XML_ERROR_DUPLICATE_ATTRIBUTE:
                c = errc::duplicate_key;
                break;
            case XML_ERROR_NO_MEMORY:
                throw std::bad_alloc();
#if XML_MAJOR_VERSION > 2 || (XML_MAJOR_VERSION == 2 && XML_MINOR_VERSION >= 4)
            case XML_ERROR_AMPLIFICATION_LIMIT_BREACH:
                c = errc::size_exceeded;
                break;
#endif
            default:
                break;
        }
        std::string msg = XML_ErrorString(code);
        if (code == XML_ERROR_EXTERNAL_ENTITY_HANDLING || code == XML_ERROR_NOT_STANDALONE) {
            msg += ": external entities are never loaded";
        }
#if XML_MAJOR_VERSION > 2 || (XML_MAJOR_VERSION == 2 && XML_MINOR_VERSION >= 4)
        if (code == XML_ERROR_AMPLIFICATION_LIMIT_BREACH) {
            msg += " (entity expansion over 10 x the input past 1 MiB)";
        }
#endif
        return here(c, msg);
    }

    // ---- fast path ----
    // A one-pass scanner of our own for the common subset of XML 1.0 (docs/formats/xml.md
    // "Fast path"): UTF-8 (or ASCII), an optional XML declaration, elements, attributes, text,
    // CDATA sections, comments, processing instructions, the five predefined entities and
    // character references. It builds the scratch tree through the member functions the
    // expat callbacks use (text_piece, end_element, comment, pi; start tags as on_start), so
    // both readers give the same tree and emit() the same tape. Well-formedness is checked
    // in full for what it accepts; anything else (a DOCTYPE, another entity or encoding, a
    // non-ASCII name, namespaces=expand, any error, any refusal) returns false: the whole
    // input goes to expat, whose errors, limits and DTD and entity rules stay the only ones.

    using cptr = const unsigned char*;


    // Attribute values: 0 a byte copied as it is; else a look (quotes, '<', '&', white space
    // normalised to a space, non-ASCII, control characters).
    static constexpr auto attr_class = [] {
        std::array<std::uint8_t, 256> t{};
        for (int c = 0; c < 0x20; ++c) {
            t[c] = 1;
        }
        for (int c = 0x80; c < 0x100; ++c) {
            t[c] = 1;
        }
        t['"'] = t['\''] = t['<'] = t['&'] = 1;
        return t;
    }();

    static std::string_view view(cptr a, cptr b) {
        return {reinterpret_cast<const char*>(a), static_cast<std::size_t>(b - a)};
    }

    // The offset of p in the input (text_at's offsets below base_).
    std::uint32_t offset(cptr p) const {
        return static_cast<std::uint32_t>(reinterpret_cast<const char*>(p) - in_.data());
    }

    // The fast path's text from run to p: text_piece, with its most common case inline (the
    // first piece of an element's text under the default mapping).
    [[gnu::always_inline]] void text_run(cptr run, cptr p) {
        const auto n = static_cast<std::size_t>(p - run);
        const std::uint32_t parent_idx = s_.stack.back();
        xnode& parent = s_.nodes[parent_idx];
        if (parent.pieces != 0 || opt_.xml.ordered || parent.type != node_type::element) {
            text_piece(reinterpret_cast<const char*>(run), n, offset(run));
            return;
        }
        if (!parent.has_text) {
            for (cptr k = run; k != p; ++k) {
                if (!ws_table[*k]) {
                    parent.has_text = true;
                    break;
                }
            }
        }
        parent.data_off = refer(offset(run), n);
        parent.data_len = static_cast<std::uint32_t>(n);
        parent.pieces = 1;
        tail_ = parent_idx;
    }

    // The length of the UTF-8 sequence at p (lead byte 0x80 or more) when it is well formed
    // and an XML Char (not a surrogate, U+FFFE or U+FFFF); 0 otherwise.
    static std::size_t utf8_char(cptr p, cptr end) {
        const unsigned c = p[0];
        const auto left = end - p;
        auto cont = [&](int i) { return (p[i] & 0xC0) == 0x80; };
        if (c < 0xC2) {
            return 0;
        }
        if (c < 0xE0) {
            return left >= 2 && cont(1) ? 2 : 0;
        }
        if (c < 0xF0) {
            if (left < 3 || !cont(1) || !cont(2) || (c == 0xE0 && p[1] < 0xA0) ||
                (c == 0xED && p[1] >= 0xA0) || (c == 0xEF && p[1] == 0xBF && p[2] >= 0xBE)) {
                return 0;
            }
            return 3;
        }
        if (c < 0xF5) {
            if (left < 4 || !cont(1) || !cont(2) || !cont(3) || (c == 0xF0 && p[1] < 0x90) ||
                (c == 0xF4 && p[1] >= 0x90)) {
                return 0;
            }
            return 4;
        }
        return 0;
    }

    // An ASCII Name at p: its end, or nullptr (no name, or a non-ASCII byte in it: expat's).
    static cptr scan_name(cptr p, cptr end) {
        if (p == end || (ascii_name[*p] & 1) == 0) {
            return nullptr;
        }
        ++p;
        while (p != end && (ascii_name[*p] & 2) != 0) {
            ++p;
        }
        if (p != end && *p >= 0x80) {
            return nullptr;
        }
        return p;
    }

    static cptr skip_ws(cptr p, cptr end) {
        while (p != end && is_ws(static_cast<char>(*p))) {
            ++p;
        }
        return p;
    }

    // A reference at p ('&'): the predefined entities and character references of an XML
    // Char, written as UTF-8 to buf (n bytes); the byte after ';', or nullptr.
    static cptr reference(cptr p, cptr end, char* buf, std::size_t& n) {
        ++p;
        if (p != end && *p == '#') {
            ++p;
            bool hex = p != end && *p == 'x';
            if (hex) {
                ++p;
            }
            cptr digits = p;
            std::uint32_t cp = 0;
            for (; p != end && *p != ';'; ++p) {
                unsigned c = *p;
                unsigned v = 0;
                if (c >= '0' && c <= '9') {
                    v = c - '0';
                } else if (hex && (c | 0x20) >= 'a' && (c | 0x20) <= 'f') {
                    v = (c | 0x20) - 'a' + 10;
                } else {
                    return nullptr;
                }
                cp = cp * (hex ? 16 : 10) + v;
                if (cp > 0x10FFFF) {
                    return nullptr;
                }
            }
            if (p == end || p == digits) {
                return nullptr;
            }
            if (!(cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
                  (cp >= 0xE000 && cp <= 0xFFFD) || cp >= 0x10000)) {
                return nullptr;
            }
            if (cp < 0x80) {
                buf[0] = static_cast<char>(cp);
                n = 1;
            } else if (cp < 0x800) {
                buf[0] = static_cast<char>(0xC0 | (cp >> 6));
                buf[1] = static_cast<char>(0x80 | (cp & 0x3F));
                n = 2;
            } else if (cp < 0x10000) {
                buf[0] = static_cast<char>(0xE0 | (cp >> 12));
                buf[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
                buf[2] = static_cast<char>(0x80 | (cp & 0x3F));
                n = 3;
            } else {
                buf[0] = static_cast<char>(0xF0 | (cp >> 18));
                buf[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
                buf[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
                buf[3] = static_cast<char>(0x80 | (cp & 0x3F));
                n = 4;
            }
            return p + 1;
        }
        static constexpr std::pair<std::string_view, char> named[] = {
            {"lt;", '<'}, {"gt;", '>'}, {"amp;", '&'}, {"apos;", '\''}, {"quot;", '"'}};
        for (const auto& [name, ch] : named) {
            if (static_cast<std::size_t>(end - p) >= name.size() &&
                std::memcmp(p, name.data(), name.size()) == 0) {
                buf[0] = ch;
                n = 1;
                return p + name.size();
            }
        }
        return nullptr;
    }

    // Line ends normalised (CR LF and CR to LF) into s_.text (free until emit()), for
    // comments and PI data.
    std::string_view lf(std::string_view s, bool cr) {
        if (!cr) {
            return s;
        }
        s_.text.clear();
        for (std::size_t i = 0; i < s.size(); ++i) {
            if (s[i] == '\r') {
                s_.text += '\n';
                if (i + 1 < s.size() && s[i + 1] == '\n') {
                    ++i;
                }
            } else {
                s_.text += s[i];
            }
        }
        return s_.text;
    }

    // The XML declaration at p ("<?xml" and white space): version 1.0, encoding UTF-8 (any
    // case) or none, standalone yes or no.
    static bool xml_decl(cptr& p, cptr end) {
        p += 5;
        auto ws = [&] {
            cptr s = p;
            p = skip_ws(p, end);
            return p != s;
        };
        auto word = [&](std::string_view w) {
            if (static_cast<std::size_t>(end - p) >= w.size() &&
                std::memcmp(p, w.data(), w.size()) == 0) {
                p += w.size();
                return true;
            }
            return false;
        };
        auto value = [&](std::string_view& v) {
            ws();
            if (p == end || *p != '=') {
                return false;
            }
            ++p;
            ws();
            if (p == end || (*p != '"' && *p != '\'')) {
                return false;
            }
            unsigned char q = *p++;
            cptr s = p;
            while (p != end && *p != q && *p != '<' && *p != '>') {
                ++p;
            }
            if (p == end || *p != q) {
                return false;
            }
            v = view(s, p);
            ++p;
            return true;
        };
        std::string_view v;
        if (!ws() || !word("version") || !value(v) || v != "1.0") {
            return false;
        }
        bool sp = ws();
        if (sp && word("encoding")) {
            if (!value(v) || v.size() != 5 || (v[0] | 0x20) != 'u' || (v[1] | 0x20) != 't' ||
                (v[2] | 0x20) != 'f' || v[3] != '-' || v[4] != '8') {
                return false;
            }
            sp = ws();
        }
        if (sp && word("standalone")) {
            if (!value(v) || (v != "yes" && v != "no")) {
                return false;
            }
            ws();
        }
        return word("?>");
    }

    // The rest of a start tag from p (just after the name), attributes first, to past its
    // '>' or "/>" (empty set): the attributes in s_.attrs from attr_first on.
    [[gnu::noinline]] bool attributes(cptr& p, cptr end, std::uint32_t attr_first, bool& empty) {
        for (;;) {
            if (p == end) {
                return false;
            }
            unsigned c = *p;
            if (c == '>') {
                ++p;
                break;
            }
            if (c == '/') {
                if (end - p < 2 || p[1] != '>') {
                    return false;
                }
                p += 2;
                empty = true;
                break;
            }
            if (!is_ws(static_cast<char>(c))) {
                return false;  // an attribute needs white space before it
            }
            p = skip_ws(p, end);
            if (p == end) {
                return false;
            }
            if (*p == '>' || *p == '/') {
                continue;
            }
            cptr an = scan_name(p, end);
            if (an == nullptr) {
                return false;
            }
            xattr at{};
            std::string_view aname = view(p, an);
            for (std::size_t k = attr_first; k < s_.attrs.size(); ++k) {
                if (str(s_.attrs[k].name_off, s_.attrs[k].name_len) == aname) {
                    return false;  // a duplicate attribute: expat's error
                }
            }
            if (s_.attrs.size() - attr_first >= 256) {
                return false;  // the pairwise check stays small
            }
            at.name_len = static_cast<std::uint32_t>(aname.size());
            at.name_off = refer(offset(p), at.name_len);
            p = skip_ws(an, end);
            if (p == end || *p != '=') {
                return false;
            }
            p = skip_ws(p + 1, end);
            if (p == end || (*p != '"' && *p != '\'')) {
                return false;
            }
            const unsigned char q = *p++;
            cptr run = p;
            while (p != end && attr_class[*p] == 0) {
                ++p;
            }
            if (p != end && *p == q) {  // nothing to normalise: referred to
                at.val_len = static_cast<std::uint32_t>(p - run);
                at.val_off = refer(offset(run), at.val_len);
                ++p;
                s_.attrs.push_back(at);
                continue;
            }
            at.val_off = arena_end();
            // The value, normalised as for an attribute of type CDATA (no DTD declares one):
            // references replaced, each white space character (CR LF as one) a space.
            for (bool first = true;; first = false) {
                if (!first) {
                    run = p;
                    while (p != end && attr_class[*p] == 0) {
                        ++p;
                    }
                }
                s_.arena.append(view(run, p));
                if (p == end) {
                    return false;
                }
                unsigned v = *p;
                if (v == q) {
                    ++p;
                    break;
                }
                if (v == '"' || v == '\'') {
                    s_.arena += static_cast<char>(v);
                    ++p;
                } else if (v == '\t' || v == '\n') {
                    s_.arena += ' ';
                    ++p;
                } else if (v == '\r') {
                    s_.arena += ' ';
                    ++p;
                    if (p != end && *p == '\n') {
                        ++p;
                    }
                } else if (v == '&') {
                    char buf[4];
                    std::size_t k = 0;
                    cptr r = reference(p, end, buf, k);
                    if (r == nullptr) {
                        return false;
                    }
                    s_.arena.append(buf, k);
                    p = r;
                } else if (v >= 0x80) {
                    std::size_t k = utf8_char(p, end);
                    if (k == 0) {
                        return false;
                    }
                    s_.arena.append(view(p, p + k));
                    p += k;
                } else {
                    return false;  // '<' or a control character
                }
            }
            at.val_len = arena_end() - at.val_off;
            s_.attrs.push_back(at);
        }
        return true;
    }

    // A start tag from p (just after '<'): the element opened (and closed for "/>").
    bool start_tag(cptr& p, cptr end) {
        const std::uint32_t parent_idx = s_.stack.back();
        const std::uint32_t prev = s_.nodes[parent_idx].last_child;
        // The name: most often the previous sibling's (repeated children), compared instead of
        // scanned. It ends where a byte that is no name byte follows, as scan_name's would.
        cptr ne = nullptr;
        bool same = false;
        if (prev != npos && s_.nodes[prev].type == node_type::element) {
            // The fast path's names are all in the input, before p: 8 bytes can be read at
            // the previous name when they can be at p.
            const xnode& pv = s_.nodes[prev];
            const std::uint32_t k = pv.name_len;
            if (static_cast<std::size_t>(end - p) > k &&
                same_text(reinterpret_cast<const char*>(p), in_.data() + pv.name_off, k,
                          end - p >= 8) &&
                ascii_name[p[k]] == 0) {
                ne = p + k;
                same = true;
            }
        }
        if (!same) {
            ne = scan_name(p, end);
        }
        if (ne == nullptr || s_.stack.size() > opt_.limits.max_depth) {
            return false;
        }
        const auto name_len = static_cast<std::uint32_t>(ne - p);
        const std::uint32_t name_off = refer(offset(p), name_len);
        const auto attr_first = static_cast<std::uint32_t>(s_.attrs.size());
        p = ne;
        bool empty = false;
        if (p != end && *p == '>') {
            ++p;
        } else if (end - p >= 2 && p[0] == '/' && p[1] == '>') {
            p += 2;
            empty = true;
        } else if (!attributes(p, end, attr_first, empty)) {
            return false;
        }
        // The element, built in place and linked as add_child and link_run do.
        const auto idx = static_cast<std::uint32_t>(s_.nodes.size());
        {
            xnode& n = s_.nodes.emplace_back(xnode{node_type::element});
            n.name_off = name_off;
            n.name_len = name_len;
            n.attr_first = attr_first;
            n.attr_count = static_cast<std::uint32_t>(s_.attrs.size()) - attr_first;
        }
        xnode& parent = s_.nodes[parent_idx];
        parent.has_elems = true;
        if (prev == npos) {
            parent.first_child = idx;
        } else {
            s_.nodes[prev].next = idx;
        }
        parent.last_child = idx;
        tail_ = npos;
        link_run(prev, idx, same);
        s_.stack.push_back(idx);
        // The tree only grows while the fast path reads: checked now and then against memory
        // running away, and at the end (fast_scan).
        if ((idx & 1023) == 0 && over_budget()) {
            return false;
        }
        if (empty) {
            end_element();
        }
        return !handoff_;
    }

    // The body of a comment or a PI from p: where its end ("-->" or "?>") starts, or nullptr
    // (the input ends, a byte it cannot hold, "--" inside a comment); cr: it has a CR.
    static cptr body_end(cptr p, cptr end, const std::array<std::uint8_t, 256>& cls, bool& cr) {
        for (;;) {
            while (p != end && cls[*p] == c_plain) {
                ++p;
            }
            if (p == end) {
                return nullptr;
            }
            switch (cls[*p]) {
                case c_dash:
                    if (end - p >= 2 && p[1] == '-') {
                        return end - p >= 3 && p[2] == '>' ? p : nullptr;
                    }
                    ++p;
                    break;
                case c_qm:
                    if (end - p >= 2 && p[1] == '>') {
                        return p;
                    }
                    ++p;
                    break;
                case c_cr:
                    cr = true;
                    ++p;
                    break;
                case c_high: {
                    std::size_t k = utf8_char(p, end);
                    if (k == 0) {
                        return nullptr;
                    }
                    p += k;
                    break;
                }
                default:
                    return nullptr;
            }
        }
    }

    // A comment from p (just after "<!--").
    bool comment_fast(cptr& p, cptr end) {
        bool cr = false;
        cptr e = body_end(p, end, comment_class, cr);
        if (e == nullptr) {
            return false;
        }
        comment(lf(view(p, e), cr));
        p = e + 3;
        return !handoff_;
    }

    // A processing instruction from p (just after "<?").
    bool pi_fast(cptr& p, cptr end) {
        cptr ne = scan_name(p, end);
        if (ne == nullptr) {
            return false;
        }
        std::string_view target = view(p, ne);
        if (target.size() == 3 && (target[0] | 0x20) == 'x' && (target[1] | 0x20) == 'm' &&
            (target[2] | 0x20) == 'l') {
            return false;  // an XML declaration out of place, or a reserved target
        }
        p = ne;
        if (p == end) {
            return false;
        }
        if (*p == '?') {
            if (end - p < 2 || p[1] != '>') {
                return false;
            }
            p += 2;
            pi(target, {});
            return !handoff_;
        }
        if (!is_ws(static_cast<char>(*p))) {
            return false;
        }
        p = skip_ws(p, end);
        bool cr = false;
        cptr e = body_end(p, end, pi_class, cr);
        if (e == nullptr) {
            return false;
        }
        pi(target, lf(view(p, e), cr));
        p = e + 2;
        return !handoff_;
    }

    // A CDATA section from p (just after "<![CDATA["): its text, as expat gives it.
    bool cdata_fast(cptr& p, cptr end) {
        cptr run = p;
        for (;;) {
            while (p != end && cdata_class[*p] == c_plain) {
                ++p;
            }
            if (p == end) {
                return false;
            }
            switch (cdata_class[*p]) {
                case c_rsb:
                    if (end - p >= 3 && p[1] == ']' && p[2] == '>') {
                        if (p != run) {
                            text_piece(reinterpret_cast<const char*>(run),
                                       static_cast<std::size_t>(p - run), offset(run));
                        }
                        p += 3;
                        return true;
                    }
                    ++p;
                    break;
                case c_cr:
                    if (p != run) {
                        text_piece(reinterpret_cast<const char*>(run),
                                   static_cast<std::size_t>(p - run), offset(run));
                    }
                    text_piece("\n", 1);
                    ++p;
                    if (p != end && *p == '\n') {
                        ++p;
                    }
                    run = p;
                    break;
                case c_high: {
                    std::size_t k = utf8_char(p, end);
                    if (k == 0) {
                        return false;
                    }
                    p += k;
                    break;
                }
                default:
                    return false;
            }
        }
    }

    // The first byte from q on that is not c_plain in text_class (or end): 16 bytes a step
    // with SSE2 past a first plain byte (most text is short, and no text is most common).
    [[gnu::always_inline]] static cptr text_end(cptr q, cptr end) {
        if (q == end || text_class[*q] != c_plain) {
            return q;
        }
        ++q;
#if defined(__SSE2__)
        // '<', '&', ']', bytes below 0x20 and from 0x80 on: a superset of what is not plain
        // (TAB and LF go on below, a byte at a time).
        const __m128i lt = _mm_set1_epi8('<');
        const __m128i amp = _mm_set1_epi8('&');
        const __m128i rsb = _mm_set1_epi8(']');
        const __m128i ctl = _mm_set1_epi8(0x1F);
        while (end - q >= 16) {
            const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
            const __m128i hit = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(x, lt), _mm_cmpeq_epi8(x, amp)),
                _mm_or_si128(_mm_cmpeq_epi8(x, rsb), _mm_cmpeq_epi8(_mm_min_epu8(x, ctl), x)));
            const auto mask = static_cast<unsigned>(_mm_movemask_epi8(hit) | _mm_movemask_epi8(x));
            if (mask != 0) {
                q += __builtin_ctz(mask);
                break;
            }
            q += 16;
        }
#endif
        while (q != end && text_class[*q] == c_plain) {
            ++q;
        }
        return q;
    }

    // The content of the element just opened, from `at` to its end tag (and the elements in
    // it); `at` is moved past it when it returns true.
    bool content(cptr& at, cptr end) {
        const std::size_t base = s_.stack.size() - 1;  // the stack once it is closed
        // A local position: `t` goes to the calls that move it, so p stays in a register.
        cptr p = at;
        cptr t = nullptr;
        cptr run = p;
        for (;;) {
            p = text_end(p, end);
            if (p == end) {
                return false;
            }
            const unsigned c = *p;
            switch (text_class[c]) {
                case c_high: {
                    std::size_t k = utf8_char(p, end);
                    if (k == 0) {
                        return false;
                    }
                    p += k;
                    continue;
                }
                case c_rsb:
                    if (end - p >= 3 && p[1] == ']' && p[2] == '>') {
                        return false;  // "]]>" in text
                    }
                    ++p;
                    continue;
                case c_bad:
                    return false;
                default:
                    break;
            }
            if (p != run) {
                text_run(run, p);
            }
            if (c == '\r') {
                text_piece("\n", 1);
                ++p;
                if (p != end && *p == '\n') {
                    ++p;
                }
            } else if (c == '&') {
                char buf[4];
                std::size_t k = 0;
                cptr r = reference(p, end, buf, k);
                if (r == nullptr) {
                    return false;
                }
                text_piece(buf, k);
                p = r;
            } else {  // '<'
                ++p;
                if (p == end) {
                    return false;
                }
                const unsigned m = *p;
                if (m == '/') {
                    ++p;
                    // The open element's name (a Name already, in the input before p: 8
                    // bytes can be read there when they can be at p) and a byte that ends it.
                    const xnode& top = s_.nodes[s_.stack.back()];
                    if (static_cast<std::size_t>(end - p) <= top.name_len ||
                        !same_text(reinterpret_cast<const char*>(p), in_.data() + top.name_off,
                                   top.name_len, end - p >= 8) ||
                        ascii_name[p[top.name_len]] != 0) {
                        return false;  // not the open element's end tag
                    }
                    cptr ne = p + top.name_len;
                    p = skip_ws(ne, end);
                    if (p == end || *p != '>') {
                        return false;
                    }
                    ++p;
                    end_element();
                    if (s_.stack.size() == base) {
                        at = p;
                        return !handoff_;
                    }
                } else if (m == '!') {
                    if (end - p >= 3 && p[1] == '-' && p[2] == '-') {
                        t = p + 3;
                        if (!comment_fast(t, end)) {
                            return false;
                        }
                    } else if (end - p >= 8 && std::memcmp(p, "![CDATA[", 8) == 0) {
                        t = p + 8;
                        if (!cdata_fast(t, end)) {
                            return false;
                        }
                    } else {
                        return false;
                    }
                    p = t;
                } else if (m == '?') {
                    t = p + 1;
                    if (!pi_fast(t, end)) {
                        return false;
                    }
                    p = t;
                } else {
                    t = p;
                    if (!start_tag(t, end)) {
                        return false;
                    }
                    p = t;
                }
                if (handoff_) {
                    return false;
                }
            }
            run = p;
        }
    }

    // The whole document: true when the tree is built, false to hand off to expat.
    bool fast_scan() {
        if (opt_.xml.expand_namespaces || in_.size() > static_cast<std::size_t>(INT32_MAX)) {
            return false;
        }
        // Names, attribute values and text are referred to in the input (by offset, below
        // base_); only what differs from the input is stored, in the arena.
        base_ = in_.size();
        auto p = reinterpret_cast<cptr>(in_.data());
        cptr end = p + in_.size();
        if (end - p >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) {
            p += 3;  // a UTF-8 byte order mark
        }
        if (end - p >= 6 && std::memcmp(p, "<?xml", 5) == 0 && is_ws(static_cast<char>(p[5])) &&
            !xml_decl(p, end)) {
            return false;
        }
        bool root = false;
        for (;;) {
            p = skip_ws(p, end);
            if (p == end) {
                return root && !over_budget();
            }
            if (*p != '<' || end - p < 2) {
                return false;
            }
            if (p[1] == '?') {
                p += 2;
                if (!pi_fast(p, end)) {
                    return false;
                }
            } else if (p[1] == '!') {
                if (end - p < 4 || p[2] != '-' || p[3] != '-') {
                    return false;  // a DOCTYPE (or an error): expat's
                }
                p += 4;
                if (!comment_fast(p, end)) {
                    return false;
                }
            } else {
                if (root) {
                    return false;  // a second root element
                }
                ++p;
                if (!start_tag(p, end) || (s_.stack.size() > 1 && !content(p, end))) {
                    return false;
                }
                root = true;
            }
        }
    }

    // ---- tape ----

    std::string_view str(std::uint32_t off, std::uint32_t len) const {
        return {text_at(off), len};  // within the input or the arena: stored so
    }

    // Two element names equal (short names compared inline, no memcmp call).
    bool same_name(std::uint32_t a, std::uint32_t b) const {
        const xnode& x = s_.nodes[a];
        const xnode& y = s_.nodes[b];
        if (x.name_len != y.name_len) {
            return false;
        }
        return same_text(text_at(x.name_off), text_at(y.name_off), x.name_len,
                         wide_at(x.name_off) && wide_at(y.name_off));
    }

    template <class Sink>
    static void add_key(Sink& b, std::string_view prefix, std::string_view name) {
        char* p = b.begin_string(prefix.size() + name.size());
        std::memcpy(p, prefix.data(), prefix.size());
        std::memcpy(p + prefix.size(), name.data(), name.size());
        b.end_string(p + prefix.size() + name.size());
    }
    void add_key(std::string_view prefix, std::string_view name) { add_key(b_, prefix, name); }

    template <class Sink>
    void add_text(Sink& b, std::string_view t) {
        if (opt_.infer) {
            textinfer::add(b, t);
        } else {
            b.add_string(t);
        }
    }

    bool forced(std::string_view name) const {
        for (const std::string& f : opt_.xml.force_list) {
            if (f == name) {
                return true;
            }
        }
        return false;
    }

    error emit_error() {
        errc c = b_.status() == errc::ok ? errc::size_exceeded : b_.status();
        return make_error(c, in_.size(),
                          c == errc::depth_exceeded
                              ? "nesting deeper than " + std::to_string(b_.limits().max_depth)
                              : "document larger than its budget of " +
                                    std::to_string(b_.limits().max_bytes) + " bytes");
    }

    result<void> emit() {
        const xnode& d = s_.nodes[0];
        std::uint32_t root = npos;
        bool misc = false;
        for (std::uint32_t c = d.first_child; c != npos; c = s_.nodes[c].next) {
            if (s_.nodes[c].type == node_type::element) {
                root = c;
            } else {
                misc = true;
            }
        }
        if (root == npos) {
            return fail(make_error(errc::unexpected_eof, in_.size(), "no root element"));
        }
        if (opt_.xml.ordered) {
            if (misc) {
                if (!b_.begin_array()) {
                    return fail(emit_error());
                }
                b_.add_string("#document");
                for (std::uint32_t c = d.first_child; c != npos; c = s_.nodes[c].next) {
                    if (!ordered(c)) {
                        return fail(emit_error());
                    }
                }
                b_.end_array();
            } else if (!ordered(root)) {
                return fail(emit_error());
            }
            return {};
        }
        const xnode& r = s_.nodes[root];
        std::string_view name = str(r.name_off, r.name_len);
        if (!opt_.xml.root.empty() && name != opt_.xml.root) {
            return fail(make_error(errc::malformed, 0,
                                   "the root element is <" + std::string(name) + ">, root=" +
                                       opt_.xml.root + " expects <" + opt_.xml.root + ">"));
        }
        // Straight to the tape first (detail::tape_sink, without the builder's bookkeeping per
        // element); where that run does not finish (the depth limit, the size budget) the
        // builder writes the document again and words the error as before.
        if (tape_ && b_.depth() == 0 && b_.ok() && b_.doc().empty() && b_.doc().bytes().empty()) {
            tape_sink ts(b_);
            hot_tape hot(ts);
            if (default_document(hot, root, name) && ts.finish()) {
                return {};
            }
            b_.reset();
        }
        if (!default_document(b_, root, name)) {
            return fail(emit_error());
        }
        return {};
    }

    // The default mapping of the document whose root element is `root`, named `name`.
    template <class Sink>
    bool default_document(Sink& b, std::uint32_t root, std::string_view name) {
        if (!opt_.xml.root.empty()) {
            return element(b, root);
        }
        if (!b.begin_map()) {
            return false;
        }
        b.add_string(name);
        bool ok = forced(name) ? b.begin_array() && element(b, root) : element(b, root);
        if (!ok) {
            return false;
        }
        if (forced(name)) {
            b.end_array();
        }
        b.end_map();
        return true;
    }

    // Links the element children of `e` into groups of one name (next_same, group_first on
    // the first; a group of more than one when the first has a next_same). The runs of one name were linked while reading (link_run):
    // one pass over the runs, a run joining the group of its name among the distinct names so
    // far; past 32 distinct names, a sort by name instead. Run again on the same tree (the
    // builder after tape_sink), it gives the same links.
    void group_children(const xnode& e) {
        constexpr std::size_t few = 32;
        std::uint32_t heads[few];  // the first child of each name so far
        std::uint32_t tails[few];  // its group's last child
        std::size_t groups = 0;
        for (std::uint32_t c = e.first_child; c != npos; c = s_.nodes[c].next) {
            xnode& k = s_.nodes[c];
            if (k.type != node_type::element) {
                continue;
            }
            // k starts a run (the loop steps over the rest of it).
            std::size_t g = groups;
            for (std::size_t i = 0; i < groups; ++i) {
                if (same_name(heads[i], c)) {
                    g = i;
                    break;
                }
            }
            if (g == groups) {
                if (groups == few) {
                    group_sorted(e);
                    return;
                }
                heads[groups] = c;
                ++groups;
                k.group_first = true;
            } else {
                s_.nodes[tails[g]].next_same = c;
                k.group_first = false;
            }
            tails[g] = k.run_tail;
            c = k.run_tail;
        }
    }

    // group_children for many distinct names: by name, then by index (document order);
    // std::sort needs no buffer, where stable_sort allocates one per element.
    void group_sorted(const xnode& e) {
        std::vector<std::uint32_t>& g = s_.group;
        g.clear();
        for (std::uint32_t c = e.first_child; c != npos; c = s_.nodes[c].next) {
            if (s_.nodes[c].type == node_type::element) {
                g.push_back(c);
            }
        }
        auto name_of = [this](std::uint32_t i) {
            return str(s_.nodes[i].name_off, s_.nodes[i].name_len);
        };
        std::sort(g.begin(), g.end(), [&](std::uint32_t a, std::uint32_t b) {
            int c = name_of(a).compare(name_of(b));
            return c < 0 || (c == 0 && a < b);
        });
        for (std::size_t i = 0; i < g.size();) {
            std::size_t j = i + 1;
            while (j < g.size() && name_of(g[j]) == name_of(g[i])) {
                s_.nodes[g[j - 1]].next_same = g[j];
                s_.nodes[g[j]].group_first = false;
                ++j;
            }
            s_.nodes[g[j - 1]].next_same = npos;
            s_.nodes[g[i]].group_first = true;
            i = j;
        }
    }

    // element() of a child element, a leaf's (no attributes, no child elements) inline.
    template <class Sink>
    [[gnu::always_inline]] bool child(Sink& b, std::uint32_t idx) {
        const xnode& k = s_.nodes[idx];
        if (k.attr_count != 0 || k.has_elems) {
            return element(b, idx);
        }
        if (!k.has_text) {
            b.add_null();
        } else {
            add_text(b, joined_text(k, k.pieces));
        }
        return true;
    }

    // The xmltodict value of element `idx`.
    template <class Sink>
    bool element(Sink& b, std::uint32_t idx) {
        const xnode& e = s_.nodes[idx];
        const bool elems = e.has_elems;
        const bool text = e.has_text;
        const std::uint32_t pieces = e.pieces;
        if (e.attr_count == 0 && !elems) {
            if (!text) {
                b.add_null();
            } else {
                add_text(b, joined_text(e, pieces));
            }
            return true;
        }
        if (!b.begin_map()) {
            return false;
        }
        for (std::uint32_t a = e.attr_first; a < e.attr_first + e.attr_count; ++a) {
            const xattr& at = s_.attrs[a];
            add_key(b, opt_.xml.attr_prefix, str(at.name_off, at.name_len));
            add_text(b, str(at.val_off, at.val_len));
        }
        if (elems) {
            group_children(e);
            for (std::uint32_t c = e.first_child; c != npos; c = s_.nodes[c].next) {
                const xnode& k = s_.nodes[c];
                if (k.type != node_type::element) {
                    continue;
                }
                const std::uint32_t run_end = k.run_tail;  // k starts a run: stepped over
                if (!k.group_first) {
                    c = run_end;
                    continue;
                }
                std::string_view name = str(k.name_off, k.name_len);
                b.add_string(name);
                if (k.next_same != npos || forced(name)) {
                    if (!b.begin_array()) {
                        return false;
                    }
                    for (std::uint32_t m = c; m != npos; m = s_.nodes[m].next_same) {
                        if (!child(b, m)) {
                            return false;
                        }
                    }
                    b.end_array();
                } else if (!child(b, c)) {
                    return false;
                }
                c = run_end;
            }
        }
        if (text) {
            b.add_string(opt_.xml.text_key);
            add_text(b, joined_text(s_.nodes[idx], pieces));
        }
        b.end_map();
        return b.ok();
    }

    // The element's text pieces joined, trimmed as xmltodict does.
    [[gnu::always_inline]] std::string_view joined_text(const xnode& e, std::uint32_t pieces) {
        if (pieces == 1 && e.first_text == npos) {
            return strip(str(e.data_off, e.data_len));  // kept on the element
        }
        return joined_pieces(e, pieces);
    }

    [[gnu::noinline]] std::string_view joined_pieces(const xnode& e, std::uint32_t pieces) {
        if (pieces == 1) {
            const xnode& t = s_.nodes[e.first_text];
            return strip(str(t.data_off, t.data_len));
        }
        s_.text.clear();
        s_.text.append(str(e.data_off, e.data_len));  // the first piece (none: empty)
        for (std::uint32_t c = e.first_child; c != npos; c = s_.nodes[c].next) {
            if (s_.nodes[c].type == node_type::text) {
                s_.text.append(str(s_.nodes[c].data_off, s_.nodes[c].data_len));
            }
        }
        return strip(s_.text);
    }

    // The JsonML-style form of node `idx`.
    bool ordered(std::uint32_t idx) {
        const xnode& n = s_.nodes[idx];
        switch (n.type) {
            case node_type::text:
                b_.add_string(str(n.data_off, n.data_len));
                return true;
            case node_type::comment:
                if (!b_.begin_array()) {
                    return false;
                }
                b_.add_string("#comment");
                b_.add_string(str(n.data_off, n.data_len));
                b_.end_array();
                return true;
            case node_type::pi:
                if (!b_.begin_array()) {
                    return false;
                }
                add_key("?", str(n.name_off, n.name_len));
                b_.add_string(str(n.data_off, n.data_len));
                b_.end_array();
                return true;
            default:
                break;
        }
        if (!b_.begin_array()) {
            return false;
        }
        b_.add_string(str(n.name_off, n.name_len));
        if (n.attr_count != 0) {
            if (!b_.begin_map()) {
                return false;
            }
            for (std::uint32_t a = n.attr_first; a < n.attr_first + n.attr_count; ++a) {
                const xattr& at = s_.attrs[a];
                add_key(opt_.xml.attr_prefix, str(at.name_off, at.name_len));
                b_.add_string(str(at.val_off, at.val_len));
            }
            b_.end_map();
        }
        for (std::uint32_t c = n.first_child; c != npos; c = s_.nodes[c].next) {
            if (!ordered(c)) {
                return false;
            }
        }
        b_.end_array();
        return b_.ok();
    }

    std::string_view in_;
    builder& b_;
    const decode_options& opt_;
    xml_scratch& s_;
    XML_Parser p_ = nullptr;
    error err_;
    error lossy_;
    std::size_t text_bytes_ = 0;
    std::size_t text_budget_ = 0;
    std::size_t max_bytes_ = 0;
    std::size_t entity_decls_ = 0;
    std::size_t base_ = 0;  // the fast path: offsets below it are in the input
    std::size_t refd_ = 0;  // the bytes of text and names it refers to there
    std::uint32_t tail_ = npos;  // the node whose text was stored last (nothing since)
    int reported_ = 0;
    bool fast_ = false;     // the fast path is reading: errors and refusals hand off
    bool tape_ = true;      // emit() tries tape_sink before the builder
    bool handoff_ = false;  // it met something it leaves to expat
    bool subset_ = false;     // a DOCTYPE with an external subset, not yet skipped
    std::string subset_id_;  // its system id
};

result<void> decode_xml_reader(std::string_view in, builder& b, const decode_options& opt,
                               int which, bool* handed_off) {
    xml_reader r(in, b, opt);
    result<void> res = r.run(which, handed_off);
    // The scratch tree of a large document is given back, so that one big request does not
    // pin its peak per thread; a steady stream of small ones keeps its buffers.
    constexpr std::size_t keep = std::size_t{4} << 20;
    xml_scratch& s = scratch();
    if (s.arena.capacity() > keep) {
        std::string().swap(s.arena);
    }
    if (s.nodes.capacity() * sizeof(xnode) > keep) {
        std::vector<xnode>().swap(s.nodes);
    }
    if (s.attrs.capacity() * sizeof(xattr) > keep) {
        std::vector<xattr>().swap(s.attrs);
    }
    return res;
}

result<void> decode_xml(std::string_view in, builder& b, const decode_options& opt) {
    return decode_xml_reader(in, b, opt, 0, nullptr);
}

// ---- writer ----

// The code point at s[i] (valid UTF-8, as every document string is); advances i.
std::uint32_t next_cp(std::string_view s, std::size_t& i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
        ++i;
        return c;
    }
    int n = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;
    std::uint32_t cp = c & (0x3f >> n);
    for (int k = 1; k <= n && i + k < s.size(); ++k) {
        cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
    }
    i += n + 1;
    return cp;
}

bool name_start(std::uint32_t c) {
    return c == ':' || (c >= 'A' && c <= 'Z') || c == '_' || (c >= 'a' && c <= 'z') ||
           (c >= 0xC0 && c <= 0xD6) || (c >= 0xD8 && c <= 0xF6) || (c >= 0xF8 && c <= 0x2FF) ||
           (c >= 0x370 && c <= 0x37D) || (c >= 0x37F && c <= 0x1FFF) ||
           (c >= 0x200C && c <= 0x200D) || (c >= 0x2070 && c <= 0x218F) ||
           (c >= 0x2C00 && c <= 0x2FEF) || (c >= 0x3001 && c <= 0xD7FF) ||
           (c >= 0xF900 && c <= 0xFDCF) || (c >= 0xFDF0 && c <= 0xFFFD) ||
           (c >= 0x10000 && c <= 0xEFFFF);
}

bool name_char(std::uint32_t c) {
    return name_start(c) || c == '-' || c == '.' || (c >= '0' && c <= '9') || c == 0xB7 ||
           (c >= 0x300 && c <= 0x36F) || (c >= 0x203F && c <= 0x2040);
}


/// XML 1.0 (fifth edition) production [5] Name.
bool valid_name(std::string_view s) {
    if (s.empty()) {
        return false;
    }
    // ASCII names (the common case) by table; any other byte sends the whole name through
    // the code point check below.
    {
        std::uint8_t all = ascii_name[static_cast<unsigned char>(s[0])];
        bool ok = (all & 1) != 0;
        for (std::size_t k = 1; k < s.size(); ++k) {
            std::uint8_t t = ascii_name[static_cast<unsigned char>(s[k])];
            all |= t;
            ok = ok && (t & 2) != 0;
        }
        if ((all & 4) == 0) {
            return ok;
        }
    }
    std::size_t i = 0;
    if (!name_start(next_cp(s, i))) {
        return false;
    }
    while (i < s.size()) {
        if (!name_char(next_cp(s, i))) {
            return false;
        }
    }
    return true;
}

// Bytes that need a look in text (1) and in attribute values (2).
constexpr auto special = [] {
    std::array<std::uint8_t, 256> t{};
    for (int c = 0; c < 0x20; ++c) {
        t[c] = 3;
    }
    t['&'] = t['<'] = t['>'] = 3;
    t['"'] = 2;
    t[0xEF] = 3;  // U+FFFE, U+FFFF start with EF BF
    return t;
}();

// The scalars xml_writer::scalar writes straight to the output (null and bignums go through
// textinfer::scalar_text).
constexpr scalar_spelling xml_spelling{{}, "false", "true", "NaN", "Infinity", "-Infinity"};

class xml_writer {
public:
    /// `fast`: the fast path where it applies (false: the general functions alone, for
    /// encode_xml_only and the agreement test).
    xml_writer(output_buffer& out, const encode_options& opt, bool fast = true)
        : out_(out), opt_(opt), fast_(fast) {
        for (tag_slot& s : tag_cache_) {
            s.len = 0;
        }
    }

    result<void> run(value root) {
        out_.append("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
        if (opt_.xml.ordered) {
            if (root.kind() == kind::array && root.size() > 0 &&
                (*root.items().begin()).kind() == kind::string &&
                (*root.items().begin()).get_string() == "#document") {
                bool first = true;
                bool elem = false;
                for (value v : root.items()) {
                    if (first) {
                        first = false;
                        continue;
                    }
                    bool is_elem = v.kind() == kind::array && v.size() > 0 &&
                                   (*v.items().begin()).kind() == kind::string &&
                                   valid_name((*v.items().begin()).get_string());
                    if (is_elem && elem) {
                        return fail(unrepresentable(v, "a second root element"));
                    }
                    if (!is_elem && v.kind() == kind::string) {
                        return fail(unrepresentable(v, "text outside the root element"));
                    }
                    elem = elem || is_elem;
                    POLYCODEC_TRY(node(v, 0));
                    if (opt_.pretty) {
                        out_.push_back('\n');
                    }
                }
                if (!elem) {
                    return fail(unrepresentable(root, "a #document without a root element"));
                }
                return {};
            }
            POLYCODEC_TRY(node(root, 0));
        } else if (!opt_.xml.root.empty()) {
            POLYCODEC_TRY(fast() ? fast_root(opt_.xml.root, root)
                                 : element(opt_.xml.root, root, 0));
        } else if (root.kind() == kind::map && root.size() == 1 &&
                   (*root.entries().begin()).val.kind() != kind::array) {
            entry e = *root.entries().begin();
            POLYCODEC_TRY(fast() ? fast_member(e.key, e.val) : member(e.key, e.val, 0));
        } else if (allow_lossy(opt_, root, "xml_root_wrapped",
                               "wrapped in a <root> element (no root= given)")) {
            POLYCODEC_TRY(fast() ? fast_root("root", root) : element("root", root, 0));
        } else {
            return fail(unrepresentable(
                root, "an XML document has one root element: a map with one key whose value is "
                      "not an array, or root=NAME to wrap anything else"));
        }
        if (opt_.pretty) {
            out_.push_back('\n');
        }
        return {};
    }

private:
    result<void> check_name(value at, std::string_view name) {
        if (!valid_name(name)) [[unlikely]] {
            return not_a_name(at, name);
        }
        return {};
    }
    [[gnu::noinline]] [[gnu::cold]] static result<void> not_a_name(value at,
                                                                   std::string_view name) {
        return fail(unrepresentable(at, "\"" + std::string(name.substr(0, 64)) +
                                            "\" is not an XML name"));
    }

    // `name` as written: "{uri}local" under namespaces=expand becomes "nsN:local", with
    // xmlns:nsN declared (in pending_) on the element being opened unless a parent did.
    // `qn` views `name` (or part of it) unless a prefix is added, then `store`; `checked`:
    // the caller already validated this very name (the items of one array).
    result<void> qualify(value at, std::string_view name, std::string& store,
                         std::string_view& qn, bool checked = false) {
        if (!opt_.xml.expand_namespaces || name.empty() || name[0] != '{') {
            if (!checked) {
                POLYCODEC_TRY(check_name(at, name));
            }
            qn = name;
            return {};
        }
        auto close = name.find('}');
        if (close == std::string_view::npos) {
            return fail(unrepresentable(at, "\"" + std::string(name.substr(0, 64)) +
                                                "\" is not {uri}local"));
        }
        std::string_view uri = name.substr(1, close - 1);
        std::string_view local = name.substr(close + 1);
        POLYCODEC_TRY(check_name(at, local));
        if (local.find(':') != std::string_view::npos) {
            return fail(unrepresentable(at, "the local name of \"" +
                                                std::string(name.substr(0, 64)) +
                                                "\" has a ':'"));
        }
        if (uri.empty()) {
            qn = local;
            return {};
        }
        const std::string* prefix = nullptr;
        for (auto it = ns_.rbegin(); it != ns_.rend(); ++it) {
            if (it->first == uri) {
                prefix = &it->second;
                break;
            }
        }
        if (prefix == nullptr) {
            ns_.emplace_back(std::string(uri), "ns" + std::to_string(ns_counter_++));
            prefix = &ns_.back().second;
            output_buffer& o = out_;
            o.append(" xmlns:");
            o.append(*prefix);
            o.append("=\"");
            POLYCODEC_TRY(escaped(at, uri, true));
            o.push_back('"');
        }
        store.assign(*prefix);
        store += ':';
        store.append(local);
        qn = store;
        return {};
    }

    // Writes "<qname" and the declarations it needs; the scope ends with the element.
    result<void> open_tag(value at, std::string_view name, std::string& store,
                          std::string_view& qn, bool checked = false) {
        out_.push_back('<');
        std::size_t mark = out_.size();
        POLYCODEC_TRY(qualify(at, name, store, qn, checked));
        if (out_.size() == mark) {
            out_.append(qn);
            return {};
        }
        // Declarations were written first: move the name in front of them.
        std::string decls(out_.view().substr(mark));
        out_.truncate(mark);
        out_.append(qn);
        out_.append(decls);
        return {};
    }

    struct ns_scope {
        std::vector<std::pair<std::string, std::string>>& ns;
        std::size_t mark;
        ~ns_scope() { ns.resize(mark); }
    };

    void indent(int depth) {
        out_.push_back('\n');
        for (int i = 0; i < depth; ++i) {
            out_.append("  ");
        }
    }

    // Escaped text or attribute value; refuses characters XML 1.0 cannot hold at all. Runs
    // without a special byte are found 16 bytes at a time (SSE2) and copied in one append.
    result<void> escaped(value at, std::string_view s, bool attr) {
        const std::uint8_t mask = attr ? 2 : 1;
        const std::size_t n = s.size();
        std::size_t run = 0;
        std::size_t i = 0;
        for (;;) {
#if defined(__SSE2__)
            {
                const __m128i ctl = _mm_set1_epi8(0x1F);
                const __m128i amp = _mm_set1_epi8('&');
                const __m128i lt = _mm_set1_epi8('<');
                const __m128i gt = _mm_set1_epi8('>');
                const __m128i ef = _mm_set1_epi8(static_cast<char>(0xEF));
                const __m128i quot = _mm_set1_epi8(attr ? '"' : '<');
                while (i + 16 <= n) {
                    const __m128i v =
                        _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
                    __m128i m = _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v);  // v <= 0x1F
                    m = _mm_or_si128(m, _mm_or_si128(_mm_cmpeq_epi8(v, amp),
                                                     _mm_cmpeq_epi8(v, lt)));
                    m = _mm_or_si128(m, _mm_or_si128(_mm_cmpeq_epi8(v, gt),
                                                     _mm_cmpeq_epi8(v, ef)));
                    m = _mm_or_si128(m, _mm_cmpeq_epi8(v, quot));
                    auto bits = static_cast<unsigned>(_mm_movemask_epi8(m));
                    if (bits != 0) {
                        i += static_cast<std::size_t>(__builtin_ctz(bits));
                        break;
                    }
                    i += 16;
                }
            }
#endif
            while (i < n && (special[static_cast<unsigned char>(s[i])] & mask) == 0) {
                ++i;
            }
            if (i >= n) {
                break;
            }
            auto c = static_cast<unsigned char>(s[i]);
            const char* rep = nullptr;
            std::size_t skip = 1;
            char buf[8];
            switch (c) {
                case '&': rep = "&amp;"; break;
                case '<': rep = "&lt;"; break;
                case '>': rep = "&gt;"; break;
                case '"': rep = "&quot;"; break;
                case '\t': rep = attr ? "&#9;" : nullptr; break;
                case '\n': rep = attr ? "&#10;" : nullptr; break;
                case '\r': rep = "&#13;"; break;
                case 0xEF:
                    if (i + 2 < n && static_cast<unsigned char>(s[i + 1]) == 0xBF &&
                        (static_cast<unsigned char>(s[i + 2]) & 0xFE) == 0xBE) {
                        if (!allow_lossy(opt_, at, "xml_invalid_char",
                                         "U+FFFE/U+FFFF written as U+FFFD")) {
                            return fail(unrepresentable(
                                at, "U+FFFE and U+FFFF are not XML characters"));
                        }
                        rep = "\xEF\xBF\xBD";  // U+FFFE/U+FFFF -> U+FFFD
                        skip = 3;
                    }
                    break;
                default:
                    if (!allow_lossy(opt_, at, "xml_invalid_char",
                                     "a control character written as U+FFFD")) {
                        std::snprintf(buf, sizeof buf, "%02X", c);
                        return fail(unrepresentable(at, std::string("the control character U+00") +
                                                            buf + " is not an XML character"));
                    }
                    rep = "\xEF\xBF\xBD";
                    break;
            }
            if (rep != nullptr) {
                out_.append(s.substr(run, i - run));
                out_.append(rep);
                run = i + skip;
            }
            i += skip;
        }
        const std::size_t rest = n - run;
        copy_small(out_.prepare(rest), s.data() + run, rest);
        out_.commit(rest);
        return {};
    }

    // The text of a scalar; false for null, containers and tags.
    result<bool> scalar(value v, bool attr) {
        if (v.kind() == kind::tagged) {
            if (!allow_lossy(opt_, v, "tag_dropped", "the tag dropped, its value kept")) {
                return fail(unrepresentable(v, "a tagged value has no XML form"));
            }
            return scalar(v.tagged_value(), attr);
        }
        // Numbers and booleans written straight to the output: their text (the same as
        // textinfer::scalar_text's) has nothing to escape.
        if (v.kind() == kind::string) {
            POLYCODEC_TRY(escaped(v, v.get_string(), attr));
            return true;
        }
        if (v.kind() != kind::bignum && write_scalar(out_, v, xml_spelling)) {
            return true;
        }
        if (!textinfer::scalar_text(v, tmp_)) {
            return false;
        }
        POLYCODEC_TRY(escaped(v, tmp_, attr));
        return true;
    }

    std::string_view key_text(value k) {
        if (k.kind() == kind::string) {
            return k.get_string();
        }
        if (k.kind() != kind::map && k.kind() != kind::array && textinfer::scalar_text(k, key_)) {
            return key_;
        }
        return {};
    }

    // Key `k` with value `v`: an array is one element per item.
    result<void> member(value k, value v, int depth) {
        // A string key is viewed in the document; another scalar's text is copied, as key_
        // is reused by the elements below.
        std::string own;
        std::string_view name;
        if (k.kind() == kind::string) {
            name = k.get_string();
        } else {
            own.assign(key_text(k));
            name = own;
        }
        if (name.empty()) {
            return fail(unrepresentable(k, "this map key is not an XML name"));
        }
        if (v.kind() != kind::array) {
            return element(name, v, depth);
        }
        if (v.size() == 0) {
            if (!allow_lossy(opt_, v, "xml_empty_array", "an empty array written as nothing")) {
                return fail(unrepresentable(v, "an empty array has no XML form (it would read "
                                               "back as no element)"));
            }
            return {};
        }
        if (v.size() == 1 && !forced(name) &&
            !allow_lossy(opt_, v, "xml_single_item_array",
                         "an array of one element written as one element")) {
            return fail(unrepresentable(v, "an array of one element reads back as a single "
                                           "value; name it in force_list=" +
                                               std::string(name) + " or use lossy=allow"));
        }
        bool first = true;
        bool checked = false;  // the name is validated at the first element, once
        for (value item : v.items()) {
            if (item.kind() == kind::array) {
                POLYCODEC_TRY(nested_array(item));
                continue;
            }
            if (!first && opt_.pretty) {
                indent(depth);
            }
            first = false;
            POLYCODEC_TRY(element(name, item, depth, checked));
            checked = true;
        }
        return {};
    }

    bool forced(std::string_view name) const {
        for (const std::string& f : opt_.xml.force_list) {
            if (f == name) {
                return true;
            }
        }
        return false;
    }

    bool is_attr_key(value k) const {
        const std::string& p = opt_.xml.attr_prefix;
        if (k.kind() != kind::string || p.empty()) {
            return false;
        }
        std::string_view s = k.get_string();
        return s.size() > p.size() && s.compare(0, p.size(), p) == 0;
    }

    // A scalar or null element without namespaces (most elements): "<name>text</name>" or
    // "<name/>", the tags written in one piece each.
    [[gnu::always_inline]] result<void> leaf(std::string_view name, value v, bool checked) {
        if (!checked) {
            POLYCODEC_TRY(check_name(v, name));
        }
        const std::size_t n = name.size();
        if (v.kind() == kind::null) {
            char* p = out_.prepare(n + 3);
            p[0] = '<';
            copy_small(p + 1, name.data(), n);
            p[n + 1] = '/';
            p[n + 2] = '>';
            out_.commit(n + 3);
            return {};
        }
        char* p = out_.prepare(n + 2);
        p[0] = '<';
        copy_small(p + 1, name.data(), n);
        p[n + 1] = '>';
        out_.commit(n + 2);
        POLYCODEC_TRY(scalar(v, false));  // true: a scalar kind
        p = out_.prepare(n + 3);
        p[0] = '<';
        p[1] = '/';
        copy_small(p + 2, name.data(), n);
        p[n + 2] = '>';
        out_.commit(n + 3);
        return {};
    }

    result<void> element(std::string_view raw_name, value v, int depth, bool checked = false) {
        if (!opt_.xml.expand_namespaces) {
            switch (v.kind()) {
                case kind::null:
                case kind::boolean_false:
                case kind::boolean_true:
                case kind::int64:
                case kind::uint64:
                case kind::float64:
                case kind::string:
                    return leaf(raw_name, v, checked);
                default:
                    break;
            }
        }
        ns_scope scope{ns_, ns_.size()};
        std::string qstore;  // only a prefixed name (namespaces=expand) is built here
        std::string_view name;
        POLYCODEC_TRY(open_tag(v, raw_name, qstore, name, checked));
        if (v.kind() != kind::map) {
            if (v.kind() == kind::null) {
                out_.append("/>");
                return {};
            }
            if (v.kind() == kind::array) {
                // root=NAME around an array: one <item> per element.
                out_.push_back('>');
                for (value item : v.items()) {
                    if (opt_.pretty) {
                        indent(depth + 1);
                    }
                    POLYCODEC_TRY(member_item(item, depth + 1));
                }
                if (opt_.pretty && v.size() > 0) {
                    indent(depth);
                }
            } else {
                out_.push_back('>');
                POLYCODEC_TRY(scalar(v, false));
            }
            out_.append("</");
            out_.append(name);
            out_.push_back('>');
            return {};
        }
        // Attributes first, then text and children in their order.
        bool children = false;
        bool text = false;
        std::vector<std::string_view>& seen = attr_names_;
        std::size_t seen_base = seen.size();
        for (auto [k, val] : v.entries()) {
            if (is_attr_key(k)) {
                std::string_view an = k.get_string().substr(opt_.xml.attr_prefix.size());
                std::size_t mark = out_.size();
                std::size_t ns_mark = ns_.size();
                std::string_view aq;
                POLYCODEC_TRY(qualify(k, an, aqn_, aq));
                for (std::size_t i = seen_base; i < seen.size() && seen.size() - seen_base < 64;
                     ++i) {
                    if (seen[i] == an) {
                        return fail(unrepresentable(k, "attribute " + std::string(an) +
                                                           " appears twice"));
                    }
                }
                seen.push_back(an);
                out_.push_back(' ');
                out_.append(aq);
                out_.append("=\"");
                auto r = scalar(val, true);
                if (!r) {
                    return fail(std::move(r.error()));
                }
                if (!*r) {
                    out_.truncate(mark);  // with any declaration made for it
                    ns_.resize(ns_mark);
                    if (!allow_lossy(opt_, val, "xml_attribute_dropped",
                                     "an attribute that is null or a container dropped")) {
                        return fail(unrepresentable(val, "an attribute's value must be a scalar"));
                    }
                    continue;
                }
                out_.push_back('"');
            } else if (k.kind() == kind::string && k.get_string() == opt_.xml.text_key) {
                text = true;
            } else {
                children = true;
            }
        }
        if (seen.size() - seen_base >= 64) {
            // Many attributes: the pairwise check above stopped; sort to find duplicates.
            std::vector<std::string_view> all(seen.begin() + static_cast<std::ptrdiff_t>(seen_base),
                                              seen.end());
            std::sort(all.begin(), all.end());
            if (std::adjacent_find(all.begin(), all.end()) != all.end()) {
                return fail(unrepresentable(v, "an attribute appears twice"));
            }
        }
        seen.resize(seen_base);
        if (!children && !text) {
            out_.append("/>");
            return {};
        }
        out_.push_back('>');
        bool layout = opt_.pretty && children && !text;
        for (auto [k, val] : v.entries()) {
            if (is_attr_key(k)) {
                continue;
            }
            if (k.kind() == kind::string && k.get_string() == opt_.xml.text_key) {
                auto r = scalar(val, false);
                if (!r) {
                    return fail(std::move(r.error()));
                }
                if (!*r && val.kind() != kind::null) {
                    return fail(unrepresentable(val, "an element's text must be a scalar"));
                }
                continue;
            }
            if (layout) {
                indent(depth + 1);
            }
            POLYCODEC_TRY(member(k, val, depth + 1));
        }
        if (layout) {
            indent(depth);
        }
        out_.append("</");
        out_.append(name);
        out_.push_back('>');
        return {};
    }

    result<void> member_item(value item, int depth) {
        if (item.kind() == kind::array) {
            return nested_array(item);
        }
        return element("item", item, depth);
    }

    // An array inside an array has no XML form: dropped under lossy=allow.
    result<void> nested_array(value item) {
        if (!allow_lossy(opt_, item, "xml_nested_array", "a nested array dropped")) {
            return fail(unrepresentable(item, "an array inside an array has no XML form"));
        }
        return {};
    }

    // ---- the fast path (docs/formats/xml.md "Encoding: the fast path") ----

    // run()'s root element when neither pretty=true nor namespaces=expand is set: without them
    // an element's bytes do not depend on where it stands, so an element the fast path does
    // not take is written by the general functions above, in place, with the same bytes,
    // errors and lossy fallbacks.
    bool fast() const { return fast_ && !opt_.pretty && !opt_.xml.expand_namespaces; }

    // element(name, v, 0) for root=NAME and the <root> wrapper.
    result<void> fast_root(std::string_view name, value v) {
        if (!valid_name(name)) {
            return element(name, v, 0);  // refused there
        }
        if (v.kind() != kind::array) {
            return fast_element(name, v);
        }
        // An array: one <item> per element, as element() writes it.
        out_.push_back('<');
        out_.append(name);
        out_.push_back('>');
        for (value item : v.items()) {
            if (item.kind() == kind::array) {
                POLYCODEC_TRY(nested_array(item));
                continue;
            }
            POLYCODEC_TRY(fast_element("item", item));
        }
        out_.append("</");
        out_.append(name);
        out_.push_back('>');
        return {};
    }

    // member(k, v, 0) for the root's one entry (v is not an array).
    result<void> fast_member(value k, value v) {
        if (k.kind() == kind::string && valid_name(k.get_string())) {
            return fast_element(k.get_string(), v);
        }
        return member(k, v, 0);  // the name refused there, or a key's text
    }

    // The output cursor: detail/out_room.hpp.
    using room = detail::out_room;
    room refill(char* w, std::size_t need) { return detail::out_refill(out_, w, need); }
    void sync(char* w) { detail::out_sync(out_, w); }

    // Tape index just past the element at i.
    static std::size_t skip(const document* doc, const std::uint64_t* /*t*/, std::size_t i) {
        return value(doc, i).end_index();
    }

    // The escaped text of s[0, n) at w, which has room for n * 5 bytes (the longest
    // replacement, "&amp;", is 5 bytes for 1); null at a character the fast path leaves to
    // escaped() (a control character other than tab, LF and CR; U+FFFE, U+FFFF).
    static char* fast_text(char* w, const char* s, std::size_t n) {
        const char* p = s;
        const char* const end = s + n;
        const char* run = s;
        for (;;) {
#if defined(__SSE2__)
            {
                const __m128i ctl = _mm_set1_epi8(0x1F);
                const __m128i amp = _mm_set1_epi8('&');
                const __m128i lt = _mm_set1_epi8('<');
                const __m128i gt = _mm_set1_epi8('>');
                const __m128i ef = _mm_set1_epi8(static_cast<char>(0xEF));
                while (end - p >= 16) {
                    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
                    __m128i m = _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v);  // v <= 0x1F
                    m = _mm_or_si128(m, _mm_or_si128(_mm_cmpeq_epi8(v, amp),
                                                     _mm_cmpeq_epi8(v, lt)));
                    m = _mm_or_si128(m, _mm_or_si128(_mm_cmpeq_epi8(v, gt),
                                                     _mm_cmpeq_epi8(v, ef)));
                    auto bits = static_cast<unsigned>(_mm_movemask_epi8(m));
                    if (bits != 0) {
                        p += __builtin_ctz(bits);
                        break;
                    }
                    p += 16;
                }
            }
#endif
            while (p != end && (special[static_cast<unsigned char>(*p)] & 1) == 0) {
                ++p;
            }
            if (p == end) {
                break;
            }
            const char* rep;
            std::size_t len;
            switch (static_cast<unsigned char>(*p)) {
                case '&':
                    rep = "&amp;";
                    len = 5;
                    break;
                case '<':
                    rep = "&lt;";
                    len = 4;
                    break;
                case '>':
                    rep = "&gt;";
                    len = 4;
                    break;
                case '\r':
                    rep = "&#13;";
                    len = 5;
                    break;
                case '\t':
                case '\n':
                    ++p;
                    continue;
                case 0xEF:
                    if (end - p >= 3 && static_cast<unsigned char>(p[1]) == 0xBF &&
                        (static_cast<unsigned char>(p[2]) & 0xFE) == 0xBE) {
                        return nullptr;
                    }
                    ++p;
                    continue;
                default:
                    return nullptr;
            }
            const auto k = static_cast<std::size_t>(p - run);
            copy_small(w, run, k);
            w += k;
            std::memcpy(w, rep, 5);  // the room holds 5 bytes here whatever len is
            w += len;
            run = ++p;
        }
        const auto k = static_cast<std::size_t>(end - run);
        copy_small(w, run, k);
        return w + k;
    }

    // The tags of element names of 1 to 16 bytes, "<name>" and "</name>" padded to 24 bytes
    // so that each is written by one fixed-size copy; a name is entered once it passed
    // valid_name, so a hit needs no check. Looked up by the name's bytes (`a`, `b`: the
    // overlapping loads of copy_small, which with the length determine the name).
    struct tag_slot {
        std::uint64_t a;
        std::uint64_t b;
        std::size_t len;  // 0: empty
        char open[24];
        char close[24];
    };
    static constexpr std::size_t tag_slots = 64;

    // An element name as the fast path writes it: the cached tags, or (a name over 16
    // bytes) none.
    struct tag_ref {
        const char* name;
        std::size_t len;
        const char* open;   // null: no cached tags
        const char* close;
    };

    static void name_words(const char* s, std::size_t n, std::uint64_t& a, std::uint64_t& b) {
        if (n >= 8) {
            std::memcpy(&a, s, 8);
            std::memcpy(&b, s + n - 8, 8);
        } else if (n >= 4) {
            std::uint32_t x;
            std::uint32_t y;
            std::memcpy(&x, s, 4);
            std::memcpy(&y, s + n - 4, 4);
            a = x | (std::uint64_t{y} << 32);
            b = 0;
        } else {
            a = static_cast<unsigned char>(s[0]) |
                (std::uint64_t{static_cast<unsigned char>(s[n / 2])} << 8) |
                (std::uint64_t{static_cast<unsigned char>(s[n - 1])} << 16);
            b = 0;
        }
    }

    // The cached tags of `name` (1 to 16 bytes), validating and entering it on a miss; null
    // when it is no XML name.
    const tag_slot* tags_of(const char* s, std::size_t n) {
        std::uint64_t a;
        std::uint64_t b;
        name_words(s, n, a, b);
        tag_slot& slot =
            tag_cache_[((a ^ (b * 0x9E3779B97F4A7C15ull) ^ n) * 0xFF51AFD7ED558CCDull) >> 58];
        if (slot.len == n && slot.a == a && slot.b == b) [[likely]] {
            return &slot;
        }
        if (!valid_name(std::string_view(s, n))) {
            return nullptr;
        }
        slot.a = a;
        slot.b = b;
        slot.len = n;
        std::memset(slot.open, 0, sizeof slot.open);
        std::memset(slot.close, 0, sizeof slot.close);
        slot.open[0] = '<';
        std::memcpy(slot.open + 1, s, n);
        slot.open[n + 1] = '>';
        slot.close[0] = '<';
        slot.close[1] = '/';
        std::memcpy(slot.close + 2, s, n);
        slot.close[n + 2] = '>';
        return &slot;
    }

    // The tags of `name`, validated; false when it is no XML name.
    bool resolve(const char* s, std::size_t n, tag_ref& r) {
        r.name = s;
        r.len = n;
        if (n - 1 < 16) {
            const tag_slot* slot = tags_of(s, n);
            if (slot == nullptr) {
                return false;
            }
            r.open = slot->open;
            r.close = slot->close;
            return true;
        }
        r.open = r.close = nullptr;
        return valid_name(std::string_view(s, n));
    }

    [[gnu::always_inline]] static char* put_open(char* w, const tag_ref& c) {
        if (c.open != nullptr) [[likely]] {
            std::memcpy(w, c.open, 24);
        } else {
            w[0] = '<';
            copy_small(w + 1, c.name, c.len);
            w[c.len + 1] = '>';
        }
        return w + c.len + 2;
    }
    [[gnu::always_inline]] static char* put_close(char* w, const tag_ref& c) {
        if (c.close != nullptr) [[likely]] {
            std::memcpy(w, c.close, 24);
        } else {
            w[0] = '<';
            w[1] = '/';
            copy_small(w + 2, c.name, c.len);
            w[c.len + 2] = '>';
        }
        return w + c.len + 3;
    }

    static bool is_leaf(kind k) {
        return static_cast<unsigned>(k) - static_cast<unsigned>(kind::null) <=
               static_cast<unsigned>(kind::string) - static_cast<unsigned>(kind::null);
    }
    // The room put_leaf needs for the leaf with header h at t[i].
    static std::size_t leaf_room(std::uint64_t h, const std::uint64_t* t, std::size_t i,
                                 std::size_t nl) {
        std::size_t n = 0;
        if (static_cast<kind>(h >> document::kind_shift) == kind::string &&
            t[i + 1] <= max_fast_text) {
            n = static_cast<std::size_t>(t[i + 1]) * 5;
        }
        return n + 2 * nl + 80;
    }
    static constexpr std::uint64_t max_fast_text = 65536;

    // The leaf element (null, boolean, number or string; header h at t[i]) named c at w,
    // which has leaf_room; returns the end, or null (what was written at w is garbage) for a
    // string that escaped() must write: one with a character it refuses or replaces, or one
    // over 64 KiB.
    [[gnu::always_inline]] static char* put_leaf(char* w, const tag_ref& c, std::uint64_t h,
                                                 const std::uint64_t* t, std::size_t i,
                                                 const char* bytes) {
        const auto k = static_cast<kind>(h >> document::kind_shift);
        w = put_open(w, c);
        switch (k) {
            case kind::null:
                w[-1] = '/';  // "<name/>"
                *w++ = '>';
                return w;
            case kind::boolean_false:
                std::memcpy(w, "false", 5);
                w += 5;
                break;
            case kind::boolean_true:
                std::memcpy(w, "true", 4);
                w += 4;
                break;
            case kind::int64:
                w = put_int64_digits(w, t[i + 1]);
                break;
            case kind::uint64:
                w = write_uint_digits(w, t[i + 1]);
                break;
            case kind::float64: {
                double d;
                std::memcpy(&d, &t[i + 1], 8);
                if (std::isfinite(d)) [[likely]] {
                    w += json_float_chars(w, d);
                } else if (std::isnan(d)) {
                    std::memcpy(w, "NaN", 3);
                    w += 3;
                } else if (d > 0) {
                    std::memcpy(w, "Infinity", 8);
                    w += 8;
                } else {
                    std::memcpy(w, "-Infinity", 9);
                    w += 9;
                }
                break;
            }
            default: {  // string
                const std::uint64_t n = t[i + 1];
                if (n > max_fast_text) [[unlikely]] {
                    return nullptr;
                }
                w = fast_text(w, bytes + (h & document::payload_mask),
                              static_cast<std::size_t>(n));
                if (w == nullptr) [[unlikely]] {
                    return nullptr;
                }
                break;
            }
        }
        return put_close(w, c);
    }

    // leaf() for the fast path, out of line: leaf() stays inlined in element().
    [[gnu::noinline]] result<void> leaf_general(std::string_view name, value v) {
        return leaf(name, v, true);
    }

    // element(name, v, 0, true) for a valid `name`, by one pass over the tape with an
    // explicit stack, writing through a local pointer into room reserved per element. Taken
    // here: null, booleans, numbers, strings (but those with a character escaped() refuses
    // or replaces, or over 64 KiB), maps whose keys are all non-empty element names (no
    // attribute, no text key), and as map values arrays of two or more elements, or of one
    // in force_list. The rest goes to element(), member(), leaf() and nested_array(), for
    // that element only.
    result<void> fast_element(std::string_view root_name, value root) {
        struct frame {
            tag_ref tag;        // a map: its element's (the end tag); an array: its items'
            std::uint64_t rem;  // entries or items still to write
            bool array;         // the items of an array (one element per item, no tags of its own)
            bool checked;       // an array: its name was validated (at its first element)
            char close[24];     // a map: its end tag, when cached (tag.close points here)
            char open[24];      // an array: its items' start tag, when cached
        };
        constexpr int max_stack = 128;
        frame st[max_stack];
        int sp = 0;
        const document* doc = root.doc();
        const std::uint64_t* t = doc->tape().data();
        const char* bytes = doc->bytes().data();
        const std::string& prefix = opt_.xml.attr_prefix;
        const std::string& text_key = opt_.xml.text_key;
        const std::size_t plen = prefix.size();
        const std::size_t tlen = text_key.size();
        const char p0 = plen != 0 ? prefix[0] : 0;
        const char t0 = tlen != 0 ? text_key[0] : 0;
        std::size_t i = root.index();
        tag_ref cur{};
        if (!resolve(root_name.data(), root_name.size(), cur)) {
            return element(root_name, root, 0);  // refused there
        }
        room r = refill(nullptr, 256);
        char* w = r.w;
        char* lim = r.lim;
        // Hands the element at i (named cur) to `call`, a general function, and goes on past it.
#define POLYCODEC_XML_GENERAL(call)      \
    do {                                 \
        sync(w);                         \
        std::size_t past_ = skip(doc, t, i); \
        POLYCODEC_TRY(call);             \
        r = refill(nullptr, 256);        \
        w = r.w;                         \
        lim = r.lim;                     \
        i = past_;                       \
    } while (false)
        enum class at { value, entry, item };
        at next = at::value;
        for (;;) {
            if (next == at::item) {
                frame& f = st[sp - 1];
                if (static_cast<kind>(t[i] >> document::kind_shift) == kind::array) {
                    POLYCODEC_XML_GENERAL(nested_array(value(doc, i)));
                    goto finished;
                }
                if (!f.checked) {
                    if (!resolve(f.tag.name, f.tag.len, f.tag)) {
                        cur = f.tag;
                        POLYCODEC_XML_GENERAL(  // refused there
                            element(std::string_view(cur.name, cur.len), value(doc, i), 0));
                        goto finished;
                    }
                    if (f.tag.open != nullptr) {
                        std::memcpy(f.open, f.tag.open, 24);
                        std::memcpy(f.close, f.tag.close, 24);
                        f.tag.open = f.open;
                        f.tag.close = f.close;
                    }
                    f.checked = true;
                }
                cur = f.tag;
                // Leaf items in a row (most arrays) without the dispatch below; the last one
                // goes there.
                while (f.rem > 1) {
                    const std::uint64_t h = t[i];
                    if (!is_leaf(static_cast<kind>(h >> document::kind_shift))) {
                        break;
                    }
                    const std::size_t need = leaf_room(h, t, i, cur.len);
                    if (static_cast<std::size_t>(lim - w) < need) [[unlikely]] {
                        r = refill(w, need);
                        w = r.w;
                        lim = r.lim;
                    }
                    char* e = put_leaf(w, cur, h, t, i, bytes);
                    if (e == nullptr) [[unlikely]] {
                        break;  // the dispatch below hands it to leaf()
                    }
                    w = e;
                    i += static_cast<kind>(h >> document::kind_shift) <= kind::boolean_true ? 1 : 2;
                    --f.rem;
                }
                if (static_cast<kind>(t[i] >> document::kind_shift) == kind::array) {
                    POLYCODEC_XML_GENERAL(nested_array(value(doc, i)));
                    goto finished;
                }
            } else if (next == at::entry) {
                // i: a key of the map on top, a non-empty string that is neither an
                // attribute nor the text key (the map was checked when it was opened).
                const std::uint64_t kh = t[i];
                const std::size_t ki = i;
                const char* nm = bytes + (kh & document::payload_mask);
                const auto nl = static_cast<std::size_t>(t[i + 1]);
                i += 2;
                const std::uint64_t h = t[i];
                if (static_cast<kind>(h >> document::kind_shift) == kind::array) {
                    const std::uint64_t count = t[i + 1];
                    if ((count < 2 && (count == 0 || !forced(std::string_view(nm, nl)))) ||
                        sp == max_stack) {
                        // refused, or a lossy fallback: member() decides
                        POLYCODEC_XML_GENERAL(member(value(doc, ki), value(doc, i), 0));
                        goto finished;
                    }
                    frame& f = st[sp++];
                    f.tag = {nm, nl, nullptr, nullptr};
                    f.rem = count;
                    f.array = true;
                    f.checked = false;
                    i += 2;
                    next = at::item;
                    continue;
                }
                if (!resolve(nm, nl, cur)) {
                    POLYCODEC_XML_GENERAL(member(value(doc, ki), value(doc, i), 0));  // refused
                    goto finished;
                }
            }
            // The element named cur (a valid name) whose value is at i.
            {
                const std::uint64_t h = t[i];
                const auto k = static_cast<kind>(h >> document::kind_shift);
                if (is_leaf(k)) [[likely]] {
                    const std::size_t need = leaf_room(h, t, i, cur.len);
                    if (static_cast<std::size_t>(lim - w) < need) [[unlikely]] {
                        r = refill(w, need);
                        w = r.w;
                        lim = r.lim;
                    }
                    char* e = put_leaf(w, cur, h, t, i, bytes);
                    if (e == nullptr) [[unlikely]] {
                        // escaped() decides: refused, replaced, or a long text
                        POLYCODEC_XML_GENERAL(
                            leaf_general(std::string_view(cur.name, cur.len), value(doc, i)));
                        goto finished;
                    }
                    w = e;
                    i += k <= kind::boolean_true ? 1 : 2;
                } else if (k == kind::map) {
                    const std::uint64_t count = t[i + 1];
                    const auto end = static_cast<std::size_t>(h & document::payload_mask);
                    // Only child elements by non-empty string keys, or element() decides.
                    bool plain = sp < max_stack;
                    for (std::size_t j = i + 2; plain && j < end;) {
                        const std::uint64_t kh = t[j];
                        if (static_cast<kind>(kh >> document::kind_shift) != kind::string) {
                            plain = false;
                            break;
                        }
                        const char* ks = bytes + (kh & document::payload_mask);
                        const auto kn = static_cast<std::size_t>(t[j + 1]);
                        if (kn == 0 ||
                            (kn > plen && plen != 0 && ks[0] == p0 &&
                             std::memcmp(ks, prefix.data(), plen) == 0) ||
                            (kn == tlen && ks[0] == t0 &&
                             std::memcmp(ks, text_key.data(), kn) == 0)) {
                            plain = false;
                            break;
                        }
                        j = skip(doc, t, j + 2);
                    }
                    if (!plain) {
                        POLYCODEC_XML_GENERAL(
                            element(std::string_view(cur.name, cur.len), value(doc, i), 0, true));
                        goto finished;
                    }
                    if (static_cast<std::size_t>(lim - w) < cur.len + 32) [[unlikely]] {
                        r = refill(w, cur.len + 32);
                        w = r.w;
                        lim = r.lim;
                    }
                    w = put_open(w, cur);
                    if (count == 0) {
                        w[-1] = '/';  // "<name/>"
                        *w++ = '>';
                        i += 2;
                        goto finished;
                    }
                    frame& f = st[sp++];
                    f.tag = cur;
                    if (cur.close != nullptr) {
                        std::memcpy(f.close, cur.close, 24);
                        f.tag.close = f.close;
                        f.tag.open = nullptr;  // not needed, not kept
                    }
                    f.rem = count;
                    f.array = false;
                    f.checked = true;
                    i += 2;
                    next = at::entry;
                    continue;
                } else {  // bytes, bignum, timestamp, tagged (and a root array)
                    POLYCODEC_XML_GENERAL(
                        element(std::string_view(cur.name, cur.len), value(doc, i), 0, true));
                }
            }
        finished:
            // After an element: end the containers it finished, then the next entry or item.
            for (;;) {
                if (sp == 0) {
                    sync(w);
                    return {};
                }
                frame& f = st[sp - 1];
                if (--f.rem != 0) {
                    next = f.array ? at::item : at::entry;
                    break;
                }
                if (!f.array) {
                    if (static_cast<std::size_t>(lim - w) < f.tag.len + 32) [[unlikely]] {
                        r = refill(w, f.tag.len + 32);
                        w = r.w;
                        lim = r.lim;
                    }
                    w = put_close(w, f.tag);
                }
                --sp;
            }
        }
#undef POLYCODEC_XML_GENERAL
    }

    // ---- ordered (JsonML-style) ----

    static bool is_string(value v, std::string_view s) {
        return v.kind() == kind::string && v.get_string() == s;
    }

    result<void> node(value v, int depth) {
        if (v.kind() != kind::array) {
            if (v.kind() == kind::string) {
                return escaped(v, v.get_string(), false);
            }
            auto r = scalar(v, false);
            if (!r) {
                return fail(std::move(r.error()));
            }
            if (!*r) {
                return fail(unrepresentable(v, "ordered=true: a node is a string (text) or an "
                                               "array [\"tag\", {attributes}, children...]"));
            }
            return {};
        }
        auto it = v.items().begin();
        auto end = v.items().end();
        if (it == end || (*it).kind() != kind::string) {
            return fail(unrepresentable(v, "ordered=true: an element array starts with its name"));
        }
        std::string_view head = (*it).get_string();
        ++it;
        if (head == "#comment") {
            if (it == end || (*it).kind() != kind::string) {
                return fail(unrepresentable(v, "[\"#comment\", text] needs its text"));
            }
            std::string_view c = (*it).get_string();
            if (c.find("--") != std::string_view::npos || (!c.empty() && c.back() == '-')) {
                return fail(unrepresentable(*it, "a comment cannot contain \"--\" or end in '-'"));
            }
            out_.append("<!--");
            out_.append(c);
            out_.append("-->");
            return {};
        }
        if (!head.empty() && head[0] == '?') {
            std::string_view target = head.substr(1);
            POLYCODEC_TRY(check_name(v, target));
            if (target.size() == 3 && (target[0] | 0x20) == 'x' && (target[1] | 0x20) == 'm' &&
                (target[2] | 0x20) == 'l') {
                return fail(unrepresentable(v, "a processing instruction cannot be named xml"));
            }
            out_.append("<?");
            out_.append(target);
            if (it != end && (*it).kind() == kind::string && !(*it).get_string().empty()) {
                std::string_view d = (*it).get_string();
                if (d.find("?>") != std::string_view::npos) {
                    return fail(unrepresentable(*it, "a processing instruction cannot contain ?>"));
                }
                out_.push_back(' ');
                out_.append(d);
            }
            out_.append("?>");
            return {};
        }
        ns_scope scope{ns_, ns_.size()};
        std::string qstore;
        std::string_view qn;
        POLYCODEC_TRY(open_tag(v, head, qstore, qn));
        if (it != end && (*it).kind() == kind::map) {
            for (auto [k, val] : (*it).entries()) {
                std::string_view an = key_text(k);
                const std::string& p = opt_.xml.attr_prefix;
                if (!p.empty() && an.substr(0, p.size()) == p) {
                    an.remove_prefix(p.size());
                }
                std::string_view aq;
                POLYCODEC_TRY(qualify(k, an, aqn_, aq));
                out_.push_back(' ');
                out_.append(aq);
                out_.append("=\"");
                auto r = scalar(val, true);
                if (!r) {
                    return fail(std::move(r.error()));
                }
                if (!*r) {
                    return fail(unrepresentable(val, "an attribute's value must be a scalar"));
                }
                out_.push_back('"');
            }
            ++it;
        }
        if (it == end) {
            out_.append("/>");
            return {};
        }
        out_.push_back('>');
        bool layout = opt_.pretty;
        for (auto j = it; j != end; ++j) {
            if ((*j).kind() != kind::array) {
                layout = false;  // text children: white space would change them
            }
        }
        for (; it != end; ++it) {
            if (layout) {
                indent(depth + 1);
            }
            POLYCODEC_TRY(node(*it, depth + 1));
        }
        if (layout) {
            indent(depth);
        }
        out_.append("</");
        out_.append(qn);
        out_.push_back('>');
        return {};
    }

    output_buffer& out_;
    const encode_options& opt_;
    std::string tmp_;
    std::string key_;
    std::vector<std::string_view> attr_names_;
    std::string aqn_;
    std::vector<std::pair<std::string, std::string>> ns_;  // uri, prefix in scope
    int ns_counter_ = 0;
    bool fast_;
    tag_slot tag_cache_[tag_slots];  // the fast path's tags (tags_of)
};

result<void> encode_xml(const document& doc, output_buffer& out, const encode_options& opt) {
    xml_writer w(out, opt);
    return w.run(doc.root());
}

}  // namespace

const codec_functions xml_codec{decode_xml, encode_xml};

result<void> decode_xml_only(xml_reader_kind which, std::string_view in, builder& b,
                             const decode_options& opt, bool* handed_off) {
    return decode_xml_reader(in, b, opt, which == xml_reader_kind::expat ? 1 : 2, handed_off);
}

result<void> encode_xml_only(xml_writer_kind which, const document& doc, output_buffer& out,
                             const encode_options& opt) {
    xml_writer w(out, opt, which == xml_writer_kind::fast);
    return w.run(doc.root());
}

}  // namespace polycodec::detail
