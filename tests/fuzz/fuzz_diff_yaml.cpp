// Differential fuzz target: the same input to our YAML decoder and to libfyaml
// (tests/support/yaml_oracle.hpp). Where both accept it, the values must agree; a
// disagreement aborts with both readings on stderr. Inputs only one side accepts are not
// reported (libfyaml and we set different limits, and the grammar's corners are checked by
// the yaml-test-suite tests); a disagreement that is libfyaml's bug is documented in
// docs/formats/yaml.md with its input.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "support/yaml_oracle.hpp"

namespace {

// libfyaml's third documented bug (docs/formats/yaml.md): in a folded scalar it drops the line
// break before a more-indented line that follows an empty line. A disagreement on an input
// that holds both a '>' and an empty line (or one of only white space) followed by an
// indented one is not reported; every
// other input is still compared.
bool may_hit_folded_break_bug(std::string_view text) {
    if (text.find('>') == std::string_view::npos) {
        return false;
    }
    // Lines of only spaces and tabs are empty lines of a block scalar too.
    bool after_empty = false;
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t eol = text.find('\n', at);
        std::string_view line = text.substr(at, eol == std::string_view::npos ? eol : eol - at);
        bool blank = line.find_first_not_of(" \t\r") == std::string_view::npos;
        if (!blank && after_empty && (line[0] == ' ' || line[0] == '\t')) {
            return true;
        }
        after_empty = blank;
        if (eol == std::string_view::npos) {
            break;
        }
        at = eol + 1;
    }
    return false;
}

// libfyaml's fourth (docs/formats/yaml.md): through its document API, a literal or folded
// scalar whose last line ends the input without a line break loses the line feed that clip and
// keep chomping give it (`- |+` / `  kf  ` at the end: libfyaml "kf  "; we, npm yaml and
// yaml-test-suite L24T/01 and JEF9/02, where the end of input ends the last line: "kf  \n").
// Where libfyaml disagrees on such an input, it is read again with a line break appended (which
// changes no value in YAML), and that reading must agree.
bool may_hit_final_break_bug(std::string_view text) {
    return !text.empty() && text.back() != '\n' && text.back() != '\r' &&
           text.find_first_of("|>") != std::string_view::npos;
}

// libfyaml's fifth (docs/formats/yaml.md): in a double-quoted scalar, an escaped space or tab
// at the end of a line ("a\ " / " b") is lost with the line folding after it (libfyaml "ab";
// we, npm yaml and PyYAML "a  b"). A disagreement on an input holding a '\' and a space or
// tab with only white space up to a line break after it is not reported.
bool may_hit_escaped_space_bug(std::string_view text) {
    for (std::size_t at = text.find('\\'); at != std::string_view::npos;
         at = text.find('\\', at + 1)) {
        std::size_t k = at + 1;
        if (k >= text.size() || (text[k] != ' ' && text[k] != '\t')) {
            continue;
        }
        while (k < text.size() && (text[k] == ' ' || text[k] == '\t')) {
            ++k;
        }
        if (k < text.size() && (text[k] == '\n' || text[k] == '\r')) {
            return true;
        }
    }
    return false;
}

// libfyaml's sixth (docs/formats/yaml.md): a tag right before a ',' (`[!s,b]`). YAML 1.2's
// tag characters exclude the flow indicators, so the tag is `!s` on an empty node and `b` is
// the next entry (npm yaml agrees); libfyaml takes `!s,b` as the tag. Not reported.
bool has_tag_before_flow_indicator(std::string_view text) {
    for (std::size_t at = text.find('!'); at != std::string_view::npos;
         at = text.find('!', at + 1)) {
        std::size_t k = at + 1;
        while (k < text.size() && text[k] != ' ' && text[k] != '\t' && text[k] != '\n' &&
               text[k] != '\r' && text[k] != ',' && text[k] != '[' && text[k] != ']' &&
               text[k] != '{' && text[k] != '}') {
            ++k;
        }
        if (k < text.size() && text[k] == ',') {
            return true;
        }
    }
    return false;
}

// libfyaml's seventh (docs/formats/yaml.md): a line starting with '%' inside a document's
// content (`>` / empty lines / `%`). Only a document's prefix holds directives, so it is content
// (npm yaml agrees); libfyaml takes it for a directive and ends the scalar. Not reported.
bool has_percent_line_after_the_first(std::string_view text) {
    return text.find("\n%") != std::string_view::npos;
}

// libfyaml's eighth (docs/formats/yaml.md): in flow context a ':' after white space and right
// before a plain-safe character is not a value indicator (YAML 1.2 c-ns-flow-map-separate-value)
// but starts a plain scalar: `{ ? :a b, : c }` has the key ":a b", `[ &x :t ]` is [":t"], also
// with the '?' or the properties on the line before (comment lines between), as npm yaml reads
// them. libfyaml takes
// such a ':' after '?' or node properties for a value indicator (an empty key). Not reported on
// an input with a flow collection where a '?', an anchor or a tag is followed, after white
// space and comments, by a ':' and a character that is neither white space nor a flow indicator.
bool has_colon_scalar_after_key_or_properties(std::string_view text) {
    if (text.find_first_of("[{") == std::string_view::npos) {
        return false;
    }
    constexpr std::string_view space = " \t\r\n";
    constexpr std::string_view not_plain = " \t\r\n,[]{}";
    for (std::size_t k = text.find(':', 1); k != std::string_view::npos && k + 1 < text.size();
         k = text.find(':', k + 1)) {
        if (space.find(text[k - 1]) == std::string_view::npos ||
            not_plain.find(text[k + 1]) != std::string_view::npos) {
            continue;
        }
        std::size_t last = text.find_last_not_of(space, k - 1);
        while (last != std::string_view::npos) {
            // Comments between the properties and the ':' count as white space.
            const std::size_t bol = text.rfind('\n', last);
            const std::size_t start = bol == std::string_view::npos ? 0 : bol + 1;
            std::size_t hash = std::string_view::npos;
            for (std::size_t i = start; i <= last && hash == std::string_view::npos; ++i) {
                if (text[i] == '#' &&
                    (i == start || space.find(text[i - 1]) != std::string_view::npos)) {
                    hash = i;
                }
            }
            if (hash == std::string_view::npos) {
                break;
            }
            last = hash == 0 ? std::string_view::npos : text.find_last_not_of(space, hash - 1);
        }
        if (last == std::string_view::npos) {
            continue;
        }
        std::size_t first = last;
        while (first > 0 && not_plain.find(text[first - 1]) == std::string_view::npos) {
            --first;
        }
        const std::string_view token = text.substr(first, last + 1 - first);
        if (token == "?" || token[0] == '&' || token[0] == '!') {
            return true;
        }
    }
    return false;
}

// libfyaml's ninth (docs/formats/yaml.md): in a top-level literal or folded scalar, whose
// content may start at column 0, a line starting with '#' is content (` |+` / `# `: "# \n", as
// npm yaml reads it); libfyaml takes it for a comment. Not reported on an input holding a '|'
// or '>' and a line starting with '#'.
bool may_hit_top_level_comment_bug(std::string_view text) {
    return text.find_first_of("|>") != std::string_view::npos &&
           (text.substr(0, 1) == "#" || text.find("\n#") != std::string_view::npos);
}

// A `?` right before a flow indicator (`[?]`, `{?, a}`): YAML 1.2 has no reading of it (the
// explicit key indicator wants white space after it, a plain scalar may not start with `?`
// followed by an indicator). We read it as npm yaml and PyYAML do, an empty key with an empty
// value; libfyaml reads the string "?" (docs/formats/yaml.md). Not reported.
bool has_bare_flow_question_mark(std::string_view text) {
    for (std::size_t at = text.find('?'); at != std::string_view::npos;
         at = text.find('?', at + 1)) {
        if (at + 1 < text.size() && (text[at + 1] == ',' || text[at + 1] == ']' ||
                                     text[at + 1] == '}')) {
            return true;
        }
    }
    return false;
}

// libfyaml's tenth (docs/formats/yaml.md): a literal or folded scalar on a `---` line whose
// content starts in column 0, followed by a more-indented line (`--- |` / `a` / `  l`): its
// scalar text (document API and event tokens alike) is cut short, "a\n  " where we, npm yaml
// and its own `fy-tool --mode json` read "a\n  l\n"; with an empty line between them the
// text also ends in bytes libfyaml never wrote. The same with the header alone on its line in a
// document after the first (`x` / `...` / `|` / `a` / `  l`). Not reported on an input with a
// line starting `---` that holds a '|' or '>', or after a `---` or `...` line a line starting
// with '|' or '>', followed by a line starting in column 0 (a line starting with a tab too).
bool may_hit_column_zero_block_scalar_bug(std::string_view text) {
    std::size_t at = 0;
    bool seen_marker = false;
    while (at < text.size()) {
        std::size_t eol = text.find('\n', at);
        if (eol == std::string_view::npos) {
            return false;
        }
        std::string_view line = text.substr(at, eol - at);
        at = eol + 1;
        const bool marker = line.substr(0, 3) == "---" || line.substr(0, 3) == "...";
        const bool header =
            (line.substr(0, 3) == "---" && line.find_first_of("|>") != std::string_view::npos) ||
            (seen_marker && !line.empty() && (line[0] == '|' || line[0] == '>'));
        seen_marker = seen_marker || marker;
        if (!header) {
            continue;
        }
        // the next line that is not empty (nor only spaces)
        while (at < text.size()) {
            std::size_t next = text.find('\n', at);
            std::string_view l = text.substr(at, next == std::string_view::npos ? next : next - at);
            // A tab is no indentation: a line of a tab, or `\tx`, starts in column 0.
            if (l.find_first_not_of(" \r") != std::string_view::npos) {
                if (l[0] != ' ') {
                    return true;
                }
                break;
            }
            if (next == std::string_view::npos) {
                return false;
            }
            at = next + 1;
        }
    }
    return false;
}

// libfyaml's eleventh (docs/formats/yaml.md): an empty literal or folded scalar in a block
// mapping that is not at column 0, as an explicit key (`x:` / `  ? >` / `  ? a` / `  : b`) or a
// value (`- aaa: |` / `  bbb: x`). Its content must be indented more than the mapping, so it is
// empty and the next line is the next pair, as npm yaml reads it; libfyaml takes the following
// lines at the mapping's own indentation for its content ("? a\n: b\n", "bbb: x\n"). Not
// reported on an input where a line indented by spaces or "- " entries or "? " keys holds '|' or
// '>' and the next line that is not empty is indented no more than that line's content. The
// same in a compact sequence in an explicit key (`? - >` / `  - b` / `: 1`: the key is ["", "b"]).
bool may_hit_empty_block_key_bug(std::string_view text) {
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t eol = text.find('\n', at);
        if (eol == std::string_view::npos) {
            return false;
        }
        const std::string_view line = text.substr(at, eol - at);
        at = eol + 1;
        std::size_t q = 0;
        while (q < line.size() &&
               (line[q] == ' ' || ((line[q] == '-' || line[q] == '?') && q + 1 < line.size() &&
                                   line[q + 1] == ' '))) {
            ++q;
        }
        if (q == 0 || q >= line.size() || line.find_first_of("|>", q) == std::string_view::npos) {
            continue;
        }
        for (std::size_t n = at; n < text.size();) {
            const std::size_t next = text.find('\n', n);
            const std::string_view l =
                text.substr(n, next == std::string_view::npos ? next : next - n);
            const std::size_t indent = l.find_first_not_of(' ');
            if (indent != std::string_view::npos && l.find_first_not_of(" \t\r") !=
                                                        std::string_view::npos) {
                if (indent <= q) {
                    return true;
                }
                break;
            }
            if (next == std::string_view::npos) {
                break;
            }
            n = next + 1;
        }
    }
    return false;
}

// libfyaml's twelfth (docs/formats/yaml.md): CR LF line breaks inside a quoted scalar. `"a` CR LF
// `"` folds to "a " (YAML 1.2 s-flow-folded; npm yaml and PyYAML agree with us); libfyaml keeps
// "a\n", and in a longer double-quoted scalar with CR LF among its empty lines it dropped the
// final character. Not reported on an input holding a CR and a quote character.
bool may_hit_quoted_crlf_bug(std::string_view text) {
    return text.find('\r') != std::string_view::npos &&
           text.find_first_of("\"'") != std::string_view::npos;
}

// libfyaml's thirteenth (docs/formats/yaml.md): two or more escaped quotes in a row in a
// single-quoted scalar (four or more quote characters). `'a` + four quotes + `b'` is "a''b" (npm
// yaml agrees); libfyaml's document API gives "a" and three quotes (fy-tool shows more quotes
// still): one quote more per pair and short of its end. Not reported on an input holding four
// quote characters in a row.
bool may_hit_escaped_quote_run_bug(std::string_view text) {
    if (text.find("''''") != std::string_view::npos) {
        return true;
    }
    // The same over line folds: two escaped quotes or more, one of them starting a line
    // (`'` / `''` / `'''` is " ' '", as npm yaml and PyYAML read it; libfyaml loses a quote).
    const std::size_t first = text.find("''");
    if (first == std::string_view::npos || text.find("''", first + 2) == std::string_view::npos) {
        return false;
    }
    for (std::size_t at = text.find('\n'); at != std::string_view::npos;
         at = text.find('\n', at + 1)) {
        const std::size_t k = text.find_first_not_of(" \t", at + 1);
        if (k != std::string_view::npos && text.compare(k, 2, "''") == 0) {
            return true;
        }
    }
    return false;
}

// libfyaml's fourteenth (docs/formats/yaml.md): in a double-quoted scalar, an escaped line
// break followed by two or more empty lines (`"a\` / empty / empty / `b\n"`). Each empty line is
// a line feed (YAML 1.2 s-double-escaped), so it is "a\n\nb\n", as fy-tool --mode json reads it
// too; libfyaml's document API keeps the line feeds but loses the scalar's last characters
// ("a\n\nb"). Not reported on an input where a '\' ends a line and the next two lines hold
// nothing but white space.
bool may_hit_escaped_break_bug(std::string_view text) {
    constexpr std::string_view blank = " \t\r";
    for (std::size_t at = text.find("\\\n"); at != std::string_view::npos;
         at = text.find("\\\n", at + 1)) {
        std::size_t k = at + 2;
        int empty = 0;
        while (k < text.size() && empty < 2) {
            const std::size_t eol = text.find('\n', k);
            if (eol == std::string_view::npos) {
                break;
            }
            const std::string_view line = text.substr(k, eol - k);
            if (line.find_first_not_of(blank) != std::string_view::npos) {
                break;
            }
            ++empty;
            k = eol + 1;
        }
        if (empty >= 2) {
            return true;
        }
    }
    return false;
}

// libfyaml's fifteenth (docs/formats/yaml.md): in a double-quoted scalar, an escaped backslash
// right before an escaped line break (a line ending in three, five, ... backslashes). `"\\\`
// / `  xy"` is a backslash, then the escaped break joins the lines without a space: "\\xy" (YAML
// 1.2 s-double-escaped; npm yaml agrees). libfyaml takes the last backslash for an escaped one
// and folds the break to a space ("\\ xy"), and its document API loses the last characters.
// Not reported on an input where a line ends in an odd run of three or more backslashes.
bool may_hit_escaped_backslash_break_bug(std::string_view text) {
    for (std::size_t at = text.find("\\\n"); at != std::string_view::npos;
         at = text.find("\\\n", at + 1)) {
        std::size_t run = 1;
        while (run <= at && text[at - run] == '\\') {
            ++run;
        }
        if (run >= 3 && run % 2 == 1) {
            return true;
        }
    }
    return false;
}

// Whether a line of `text` holds nothing but spaces, tabs and CRs, `c` among them.
bool has_blank_line_holding(std::string_view text, char c) {
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t eol = text.find('\n', start);
        if (eol == std::string_view::npos) {
            eol = text.size();
        }
        const std::string_view line = text.substr(start, eol - start);
        if (line.find(c) != std::string_view::npos &&
            line.find_first_not_of(" \t\r") == std::string_view::npos) {
            return true;
        }
        start = eol + 1;
    }
    return false;
}

// libfyaml's seventeenth (docs/formats/yaml.md): a block scalar with an indentation indicator
// whose lines hold nothing but spaces, some more than the indentation (`- |1` / three spaces).
// The spaces past the indentation are content (YAML 1.2 l-nb-literal-text: s-indent(n)
// nb-char+), so it is "  \n", as PyYAML reads it too; libfyaml (and npm yaml) take the lines
// for empty ones and give "". With a line of text after them all agree. Not reported on an
// input holding a `|` or `>` right before an indentation indicator and a line of white space.
bool may_hit_blank_explicit_block_scalar_bug(std::string_view text) {
    bool header = false;
    for (std::size_t k = 0; k + 1 < text.size() && !header; ++k) {
        if (text[k] == '|' || text[k] == '>') {
            std::size_t d = k + 1;
            if (text[d] == '-' || text[d] == '+') {
                ++d;
            }
            header = d < text.size() && text[d] >= '1' && text[d] <= '9';
        }
    }
    if (!header) {
        return false;
    }
    return has_blank_line_holding(text, ' ');
}

// libfyaml's eighteenth (docs/formats/yaml.md): a literal or folded scalar with an empty line
// before a line of white space holding a tab (`|` / empty / ` ` tab): the tab is content past the
// detected indentation, so it is "\n\t\n", as npm yaml and PyYAML read it; libfyaml drops the
// empty line ("\t\n"). Not reported on an input holding a `|` or `>` and a line of spaces and
// tabs with a tab in it.
bool may_hit_blank_tab_line_bug(std::string_view text) {
    if (text.find_first_of("|>") == std::string_view::npos) {
        return false;
    }
    return has_blank_line_holding(text, '\t');
}

// libfyaml's nineteenth (docs/formats/yaml.md): with the primary handle redefined (`%TAG !
// tag:x,2002:`), a node's non-specific tag `!` (`- ! 12`) still forces a string (YAML 1.2
// c-non-specific-tag is its own production; npm yaml agrees: "12"); libfyaml applies the prefix
// to it and the oracle sees a plain scalar of another tag (an integer). Not reported on an input
// holding `%TAG ! `.
bool redefines_primary_tag_handle(std::string_view text) {
    return text.find("%TAG ! ") != std::string_view::npos;
}

// libfyaml's sixteenth (docs/formats/yaml.md): it crashes (SIGSEGV in fy_indent_vacuum_internal,
// fy-tool too) on a compact mapping inside an explicit key whose value, after a tab, is a plain
// scalar starting with `:` (`? a:` tab `:x`, which is {{"a": ":x"}: null}; npm yaml agrees),
// also with the `?` on a line of its own before the key, and the same with `-` or `?` after the
// tab, which we refuse, and a block scalar's `>` or `|` after the tab. Checked before libfyaml is
// called: not run on an input where a `:` after a `?` is followed by white space with a tab in
// it, then one of `-`, `:`, `?`, `>` or `|`.
bool may_crash_on_indicator_after_tab_in_explicit_key(std::string_view text) {
    const std::size_t q = text.find('?');
    for (std::size_t c = q == std::string_view::npos ? q : text.find(':', q + 1);
         c != std::string_view::npos; c = text.find(':', c + 1)) {
        std::size_t k = c + 1;
        bool tab = false;
        while (k < text.size() && (text[k] == ' ' || text[k] == '\t')) {
            tab = tab || text[k] == '\t';
            ++k;
        }
        constexpr std::string_view starts = "-:?>|";
        if (tab && k < text.size() && starts.find(text[k]) != std::string_view::npos) {
            return true;
        }
    }
    return false;
}

// Whether libfyaml reads `text` as `d` holds it: true when it agrees, or refuses the text (an
// input only one side accepts is not reported); else false with the difference in `why`.
bool agrees(const polycodec::document& d, const std::string& text, std::string& why,
            bool block_ends) {
    polycodec::test::yaml_oracle::fy_stream fy(text);
    if (!fy.ok) {
        return true;
    }
    if (d.root().size() != fy.docs.size()) {
        why = "document counts differ: ours " + std::to_string(d.root().size()) +
              ", libfyaml " + std::to_string(fy.docs.size());
        return false;
    }
    std::size_t i = 0;
    for (polycodec::value doc : d.root().items()) {
        polycodec::test::yaml_oracle::oracle o;
        o.tolerate_split_pairs = true;  // libfyaml's documented bug (docs/formats/yaml.md)
        o.tolerate_block_scalar_ends = block_ends;  // its fourth
        if (!o.match(doc, fy_document_root(fy.docs[i]), "doc" + std::to_string(i))) {
            why = "value disagreement: " + o.why;
            return false;
        }
        ++i;
    }
    return true;
}

}  // namespace

// libfyaml leaks a buffer of its own on some inputs (`---` and a single-quoted scalar of
// escaped quotes, fourteen `'`: 512 bytes from a realloc inside libfyaml.so, freed by
// nothing of ours). LeakSanitizer ignores leaks whose allocation stack passes through libfyaml;
// ours are still caught here and by fuzz_decode_yaml, which does not link libfyaml.
extern "C" const char* __lsan_default_suppressions() {
    return "leak:libfyaml.so\n";
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 4096) {
        return 0;  // the oracle's regexes and tree are slow on big inputs; size is not the point
    }
    std::string text(reinterpret_cast<const char*>(data), size);
    polycodec::decode_options opt;
    opt.multi = true;
    polycodec::document d;
    auto r = polycodec::decode(polycodec::format_id::yaml, text, d, opt);
    if (!r) {
        return 0;
    }
    if (may_crash_on_indicator_after_tab_in_explicit_key(text)) {
        return 0;  // libfyaml's sixteenth: it would crash, ours is checked by fuzz_decode_yaml
    }
    // libfyaml reads the text as it is; where its fourth bug may apply, a reading of the text
    // with a line break appended may agree instead.
    std::string why;
    bool final_break = may_hit_final_break_bug(text);
    if (agrees(d, text, why, final_break) ||
        (final_break && agrees(d, text + '\n', why, true))) {
        return 0;
    }
    // The predicates below look at lines; a lone CR is a line break too (YAML 1.2 b-break), so
    // they see the text with each lone CR as LF, and without a leading BOM.
    std::string lines = text;
    if (lines.compare(0, 3, "\xEF\xBB\xBF") == 0) {
        lines.erase(0, 3);  // a BOM before the first line is no part of it
    }
    for (std::size_t k = 0; k < lines.size(); ++k) {
        if (lines[k] == '\r' && (k + 1 == lines.size() || lines[k + 1] != '\n')) {
            lines[k] = '\n';
        }
    }
    if (may_hit_folded_break_bug(lines) || has_bare_flow_question_mark(lines) ||
        may_hit_escaped_space_bug(lines) || has_tag_before_flow_indicator(lines) ||
        has_percent_line_after_the_first(lines) || has_colon_scalar_after_key_or_properties(lines) ||
        may_hit_top_level_comment_bug(lines) || may_hit_column_zero_block_scalar_bug(lines) ||
        may_hit_empty_block_key_bug(lines) || may_hit_quoted_crlf_bug(text) ||
        may_hit_escaped_quote_run_bug(text) || may_hit_escaped_break_bug(lines) ||
        may_hit_escaped_backslash_break_bug(lines) ||
        may_hit_blank_explicit_block_scalar_bug(lines) ||
        may_hit_blank_tab_line_bug(lines) || redefines_primary_tag_handle(lines)) {
        return 0;
    }
    std::fprintf(stderr, "%s\nours: %s\n", why.c_str(),
                 polycodec::to_debug_string(d.root()).c_str());
    std::abort();
    return 0;
}
