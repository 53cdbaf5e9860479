// libfyaml as the oracle of our YAML decoder (tests/support/yaml_oracle.hpp): every
// yaml-test-suite case and every YAML fixture is parsed by both, and the values must agree.
#include "support/support.hpp"
#include "support/yaml_oracle.hpp"
#include "support/yaml_suite.hpp"

// libfyaml leaks a 512-byte buffer of its own on a run of escaped single quotes
// (LibfyamlMiscountsARunOfEscapedQuotes; docs/formats/yaml.md, the thirteenth). LeakSanitizer
// (the asan preset) ignores leaks whose allocation stack passes through libfyaml.so, as
// fuzz_diff_yaml does; ours are still reported.
extern "C" const char* __lsan_default_suppressions() {
    return "leak:libfyaml.so\n";
}

namespace polycodec {
namespace {

using test::yaml_oracle::compare;
using test::yaml_oracle::fy_stream;
using test::yaml_oracle::oracle;

TEST(YamlOracle, OracleSeesWhatItShould) {
    // The oracle itself: a disagreement must be reported, agreement accepted.
    EXPECT_EQ(compare("a: [1, 1.5, true, null, '1', !!binary aGk=, 0x10]\n", false), "");
    EXPECT_EQ(compare("a: 1\n", true), "ours accepts an error case");
    EXPECT_EQ(compare("[1, 2", true), "");
    // Our own tags' numbers are read as our decoder reads them, leading zeros and all.
    EXPECT_EQ(compare("!msgpack/07777\n", false), "");
    EXPECT_EQ(compare("- !cbor/007 x\n- !tag/99999999999999999999 y\n", false), "");
    oracle o;
    fy_stream fy("[1, x]");
    ASSERT_TRUE(fy.ok);
    document d = test::must_decode(format_id::json, "[1, \"y\"]");
    EXPECT_FALSE(o.match(d.root(), fy_document_root(fy.docs[0]), ""));
    EXPECT_NE(o.why.find("expected a string from \"x\""), std::string::npos) << o.why;
}

// Checks that the strict oracle refuses `ours` against libfyaml's `theirs`, saying `why`, and
// that the tolerant one (tolerate_split_pairs) accepts it; returns the tolerant one.
oracle only_tolerated(value ours, fy_node* theirs, const char* why) {
    oracle strict;
    EXPECT_FALSE(strict.match(ours, theirs, ""));
    EXPECT_NE(strict.why.find(why), std::string::npos) << strict.why;
    oracle tolerant;
    tolerant.tolerate_split_pairs = true;
    EXPECT_TRUE(tolerant.match(ours, theirs, "")) << tolerant.why;
    return tolerant;
}

// libfyaml 0.8's bug met by fuzz_diff_yaml (docs/formats/yaml.md): the ": 23" of this compact
// mapping's explicit key comes out as two pairs, (key, empty) and (empty, 23). Ours reads the
// one pair the grammar gives (as yaml-test-suite 4FJ6, the same nodes in flow style, says).
TEST(YamlOracle, LibfyamlSplitsThisExplicitPair) {
    const std::string text =
        "---\n- ? - a\n    - - ? - - b\n            - c\n        : d\n      - e\n  : 23\n";
    document d = test::must_decode(format_id::yaml, text);
    EXPECT_EQ(to_debug_string(d.root()), R"([{["a",[{[["b","c"]]:"d"},"e"]]:23}])");
    fy_stream fy(text);
    ASSERT_TRUE(fy.ok);
    EXPECT_EQ(
        only_tolerated(d.root(), fy_document_root(fy.docs[0]), "mapping sizes differ").split_pairs,
        1);
}

// libfyaml's second (docs/formats/yaml.md): an empty block scalar at the end of the input.
TEST(YamlOracle, LibfyamlReadsAnEmptyBlockScalarAtTheEndAsANewline) {
    document d = test::must_decode(format_id::yaml, "- |\n");
    EXPECT_EQ(to_debug_string(d.root()), R"([""])");
    fy_stream fy("- |\n");
    ASSERT_TRUE(fy.ok);
    // libfyaml's text here is one byte of fresh memory (NUL in this build, "\n" in the fuzz
    // build): the strict comparison fails, the tolerant one accepts exactly this.
    oracle tolerant;
    tolerant.tolerate_split_pairs = true;
    EXPECT_TRUE(tolerant.match(d.root(), fy_document_root(fy.docs[0]), "")) << tolerant.why;
    EXPECT_EQ(tolerant.empty_block_newlines, 1);
    // The same under `!!binary` (fuzz_diff_yaml at b83eee0): the byte is no base64, ours is
    // no bytes; the strict oracle refuses it, the tolerant one accepts it.
    document b = test::must_decode(format_id::yaml, "a: x\nb: !!binary |\n");
    EXPECT_EQ(to_debug_string(b.root()), R"({"a":"x","b":b64""})");
    fy_stream fb("a: x\nb: !!binary |\n");
    ASSERT_TRUE(fb.ok);
    EXPECT_EQ(
        only_tolerated(b.root(), fy_document_root(fb.docs[0]), "not base64").empty_block_newlines,
        1);
}

// libfyaml's fourth (docs/formats/yaml.md): a block scalar whose last line ends the input
// without a line break. The end of input ends that line as a break would (yaml-test-suite
// L24T/01: `foo: |` / `  x` / `   ` at the end is "x\n \n"; npm yaml agrees), so clip and keep
// chomping give it its line feed; libfyaml's document API drops it here, and agrees once the
// line break is there.
TEST(YamlOracle, LibfyamlDropsTheFinalLineFeedOfABlockScalarEndingTheInput) {
    for (const std::string text : {"- |+\n  kf  ", "- |\n  kf  "}) {
        document d = test::must_decode(format_id::yaml, text);
        EXPECT_EQ(to_debug_string(d.root()), R"(["kf  \u000a"])") << text;
        // Without the break libfyaml gave "kf  " for the keep case in the fuzz build (and in
        // this build); what it gives is not asserted, only that it agrees with the break.
        fy_stream with_break(text + "\n");
        ASSERT_TRUE(with_break.ok);
        oracle o;
        EXPECT_TRUE(o.match(d.root(), fy_document_root(with_break.docs[0]), "")) << o.why;
        EXPECT_EQ(to_debug_string(test::must_decode(format_id::yaml, text + "\n").root()),
                  to_debug_string(d.root()));
    }
}

// libfyaml's fifth (docs/formats/yaml.md): an escaped space at the end of a line of a
// double-quoted scalar. "a\ " / " b" is "a" + the escaped space + the folded break's space +
// "b" (npm yaml and PyYAML agree); libfyaml gives "ab" and two bytes of stale memory.
TEST(YamlOracle, LibfyamlDropsAnEscapedSpaceBeforeALineBreak) {
    for (const std::string text : {"\"a\\ \n b\"\n", "\"a\\\t \n b\"\n"}) {
        document d = test::must_decode(format_id::yaml, text);
        EXPECT_EQ(to_debug_string(d.root()), text[3] == ' ' ? R"("a  b")" : "\"a\\u0009 b\"")
            << text;
    }
    fy_stream fy("\"a\\ \n b\"\n");
    ASSERT_TRUE(fy.ok);
    oracle strict;
    document d = test::must_decode(format_id::yaml, "\"a\\ \n b\"\n");
    EXPECT_FALSE(strict.match(d.root(), fy_document_root(fy.docs[0]), ""));
    // Four bytes, "ab" and two of whatever memory held (the fuzz build showed "ab").
    EXPECT_NE(strict.why.find("expected the string \"ab"), std::string::npos) << strict.why;
}

// A '?' right before a flow indicator has no YAML 1.2 reading (docs/formats/yaml.md); we read
// it as npm yaml and PyYAML do, an empty key with an empty value. libfyaml reads "?".
TEST(YamlOracle, BareQuestionMarkInFlowIsAnEmptyPair) {
    EXPECT_EQ(to_debug_string(test::must_decode(format_id::yaml, "[?]\n").root()),
              "[{null:null}]");
    EXPECT_EQ(to_debug_string(test::must_decode(format_id::yaml, "[?, a]\n").root()),
              "[{null:null},\"a\"]");
}

// libfyaml's ninth (docs/formats/yaml.md): a '#' line at column 0 inside a top-level block
// scalar is content (npm yaml reads "# x\n" too); libfyaml reads a comment.
TEST(YamlOracle, HashLineInATopLevelBlockScalarIsContent) {
    for (const char* text : {" |+\n# x\n", "|\n# x\n"}) {
        EXPECT_EQ(to_debug_string(test::must_decode(format_id::yaml, text).root()),
                  R"("# x\u000a")") << text;
    }
}

TEST(YamlConformance, LibfyamlAgreesOnTheSuite) {
    POLYCODEC_REQUIRE_CORPUS("yaml/data", dir);
    const std::vector<std::filesystem::path> folders = test::yaml_suite_cases(dir);
    int agree = 0;
    for (const auto& f : folders) {
        std::string name = std::filesystem::relative(f, dir).generic_string();
        std::string why = compare(test::read_file(f / "in.yaml"),
                                  std::filesystem::exists(f / "error"));
        if (why.empty()) {
            ++agree;
        } else {
            ADD_FAILURE() << name << ": " << why;
        }
    }
    std::printf("libfyaml agrees with our decoder on %d of %zu yaml-test-suite cases\n", agree,
                folders.size());
    EXPECT_EQ(static_cast<std::size_t>(agree), folders.size());
    EXPECT_GE(folders.size(), 402u);
}

TEST(YamlConformance, LibfyamlAgreesOnTheFixtures) {
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator(test::fixtures_dir())) {
        if (e.path().extension() == ".yaml") {
            EXPECT_EQ(compare(test::read_file(e.path()), false), "") << e.path();
            ++n;
        }
    }
    EXPECT_GE(n, 2);  // bench.yaml, records.yaml
}

// libfyaml's tenth (docs/formats/yaml.md): a block scalar on the `---` line with its content in
// column 0 and a more-indented line after it. We read "a\n  l\n" (npm yaml and fy-tool --mode
// json too); libfyaml's document API cuts the text to "a\n  ". Should a libfyaml release fix
// it, the EXPECT_FALSE fails and fuzz_diff_yaml's tolerance can go.
TEST(YamlOracle, LibfyamlCutsAColumnZeroBlockScalarOnTheMarkerLine) {
    for (const std::string text : {"--- |\na\n  l\n", "--- >\na\n  l\n", "x\n...\n|\na\n  l\n"}) {
        decode_options opt;
        opt.multi = true;
        document d;
        ASSERT_TRUE(static_cast<bool>(decode(format_id::yaml, text, d, opt))) << text;
        value last = d.root();
        for (value doc : d.root().items()) {
            last = doc;  // the last document
        }
        EXPECT_EQ(to_debug_string(last), R"("a\u000a  l\u000a")") << text;
        fy_stream fy(text);
        ASSERT_TRUE(fy.ok);
        oracle strict;
        EXPECT_FALSE(strict.match(last, fy_document_root(fy.docs.back()), "")) << text;
        EXPECT_NE(strict.why.find("expected the string \"a\n  \""), std::string::npos)
            << strict.why;
    }
    // Content indented by one column is read right by both.
    document d = test::must_decode(format_id::yaml, "--- |\n a\n   l\n");
    fy_stream fy("--- |\n a\n   l\n");
    ASSERT_TRUE(fy.ok);
    oracle strict;
    EXPECT_TRUE(strict.match(d.root(), fy_document_root(fy.docs[0]), "")) << strict.why;
}

// The strict oracle's verdict on `text` (one document, which must decode): whether libfyaml
// reads it as we do. With `ours`, our reading must also be that value.
void expect_libfyaml(bool agrees, const std::string& text, const std::string& ours = "") {
    document d = test::must_decode(format_id::yaml, text);
    if (!ours.empty()) {
        EXPECT_EQ(to_debug_string(d.root()), ours) << text;
    }
    fy_stream fy(text);
    ASSERT_TRUE(fy.ok) << text;
    oracle strict;
    EXPECT_EQ(strict.match(d.root(), fy_document_root(fy.docs[0]), ""), agrees)
        << text << strict.why;
}

// libfyaml's eighth (docs/formats/yaml.md): in flow context a ':' after white space and right
// before a plain-safe character is not a value indicator (YAML 1.2
// c-ns-flow-map-separate-value) but starts a plain scalar, after '?' or node properties, on the
// same line or the next one. npm yaml reads these as we do; libfyaml reads an empty key with the
// value "t" / "fo" (PyYAML, a YAML 1.1 reader, too where it parses). Should libfyaml change, a
// disagreement below turns into agreement, the test fails, and fuzz_diff_yaml's
// has_colon_scalar_after_key_or_properties can go.
TEST(YamlOracle, LibfyamlTakesAColonBeforeAPlainCharacterForAValueIndicator) {
    expect_libfyaml(false, "{ ? :fo, o: bar }\n", R"({":fo":null,"o":"bar"})");
    expect_libfyaml(false, "{\n  ? \n  :fo,o : bar,\n}\n", R"({":fo":null,"o":"bar"})");
    expect_libfyaml(false, "[ &x :t ]\n", R"([":t"])");
    expect_libfyaml(false, "{ !!str :t }\n", R"({":t":null})");
    expect_libfyaml(false, "{\n  &f/o :t\n. &ft,\n}\n", R"({":t . &ft":null})");
    // A comment line between the properties and the ':' (fuzz_diff_yaml, 4ddb4cf + 3).
    expect_libfyaml(false, "---\n{&\"\n#\n  :!ar }\n", R"({":!ar":null})");
    // Without '?' or properties before it, without the space, or with a space after the ':', both
    // read the same.
    for (const char* text : {"{ a:b }\n", "{ a :b }\n", "[ :b ]\n", "{ ? a : b }\n"}) {
        expect_libfyaml(true, text);
    }
}

// libfyaml's eleventh (docs/formats/yaml.md): an empty block scalar as the explicit key or a
// value of a block mapping not at column 0. Its content would have to be indented more than the
// mapping, so it is empty and the next line starts the next pair (npm yaml too); libfyaml reads
// the lines after it at the mapping's indentation as the scalar's content. Should libfyaml
// change, the test fails and fuzz_diff_yaml's may_hit_empty_block_key_bug can go.
TEST(YamlOracle, LibfyamlReadsTheNextPairIntoAnEmptyBlockScalar) {
    expect_libfyaml(false, "x:\n  ? >\n  ? a\n  : b\n", R"({"x":{"":null,"a":"b"}})");
    expect_libfyaml(false, "x:\n  ? |\n  ? a\n  : b\n", R"({"x":{"":null,"a":"b"}})");
    expect_libfyaml(false, "- ? >\n  ? a\n  : b\n", R"([{"":null,"a":"b"}])");
    expect_libfyaml(false, "- aaa: |\n  bbb: x\n", R"([{"aaa":"","bbb":"x"}])");
    // An empty block scalar as an entry of a compact sequence in an explicit key (fuzz_diff_yaml
    // at 36951ef): the key is ["", "b"].
    expect_libfyaml(false, "? - >\n  - b\n: 1\n", R"({["","b"]:1})");
    expect_libfyaml(false, "- ? - |\n    - b\n  : 1\n", R"([{["","b"]:1}])");
    expect_libfyaml(false, "- aaa: |\n \n  bbb: |\n    xxx\n",
                    R"([{"aaa":"","bbb":"xxx\u000a"}])");
    // At column 0, or with content indented more than the mapping, both read the same.
    expect_libfyaml(true, "? >\n? a\n: b\n");
    expect_libfyaml(true, "x:\n  ? >\n   a\n  : b\n");
}

// libfyaml's twelfth (docs/formats/yaml.md): a CR LF line break in a quoted scalar right before
// the closing quote folds to a space (npm yaml and PyYAML read "a " too); libfyaml keeps a line
// feed. Should libfyaml change, the test fails and fuzz_diff_yaml's may_hit_quoted_crlf_bug can
// go. With LF, both read "a ".
TEST(YamlOracle, LibfyamlKeepsACrLfBeforeTheClosingQuote) {
    expect_libfyaml(false, "\"a\r\n\"", R"("a ")");
    expect_libfyaml(false, "'a\r\n'", R"("a ")");
    expect_libfyaml(true, "\"a\n\"", R"("a ")");
    expect_libfyaml(true, "'a\n'", R"("a ")");
}

// libfyaml's thirteenth (docs/formats/yaml.md): a run of escaped quotes in a single-quoted
// scalar. Should libfyaml change, the test fails and fuzz_diff_yaml's
// may_hit_escaped_quote_run_bug can go. One escaped quote at a time, both agree.
TEST(YamlOracle, LibfyamlMiscountsARunOfEscapedQuotes) {
    expect_libfyaml(false, "'a''''b'\n", R"("a''b")");
    expect_libfyaml(false, "'ab''''''''cd'\n", R"("ab''''cd")");
    expect_libfyaml(true, "x: 'it''s a ''b'' c'\n", R"({"x":"it's a 'b' c"})");
    // Escaped quotes starting folded lines (fuzz_diff_yaml at f3466b2, 410 s): " ' '".
    expect_libfyaml(false, "'\n''\n'''\n", R"(" ' '")");
}

// libfyaml's fourteenth (docs/formats/yaml.md): an escaped line break followed by two or more
// empty lines in a double-quoted scalar: libfyaml's document API loses the last characters.
// Should libfyaml change, the test fails and fuzz_diff_yaml's may_hit_escaped_break_bug can go.
// With one empty line, both agree.
TEST(YamlOracle, LibfyamlCutsAnEscapedBreakBeforeEmptyLines) {
    expect_libfyaml(false, "\"a\\\n\n\nb\\n\"\n", R"("a\u000a\u000ab\u000a")");
    expect_libfyaml(false, "\"a\\\n \n  \nb\\n\"\n", R"("a\u000a\u000ab\u000a")");
    expect_libfyaml(true, "\"a\\\n \nb\\n\"\n", R"("a\u000ab\u000a")");
}

// libfyaml's fifteenth (docs/formats/yaml.md): an escaped backslash right before an escaped line
// break in a double-quoted scalar. Should libfyaml change, the test fails and fuzz_diff_yaml's
// may_hit_escaped_backslash_break_bug can go. Without the escaped backslash, or with an even run
// (an escaped backslash, then a folded break), both agree.
TEST(YamlOracle, LibfyamlFoldsAnEscapedBreakAfterAnEscapedBackslash) {
    expect_libfyaml(false, "\"\\\\\\\n  xy\"\n", R"("\\xy")");
    expect_libfyaml(false, "k: \"ab\\\\\\\\\\\n  cd\"\n", R"({"k":"ab\\\\cd"})");
    expect_libfyaml(true, "\"\\\n  xy\"\n", R"("xy")");
    expect_libfyaml(true, "\"\\\\\n  xy\"\n", R"("\\ xy")");
}

// libfyaml's sixteenth (docs/formats/yaml.md): it crashes (SIGSEGV in fy_indent_vacuum_internal;
// fy-tool too) on a compact mapping inside an explicit key whose value starts with `:` after a
// tab. The input is valid and we read it as npm yaml does. Should libfyaml stop crashing, the
// death test fails and fuzz_diff_yaml's may_crash_on_indicator_after_tab_in_explicit_key can go.
// With a space instead of the tab, or another scalar after the tab, libfyaml agrees.
TEST(YamlOracle, LibfyamlCrashesOnAColonScalarAfterATabInAnExplicitKey) {
    document d = test::must_decode(format_id::yaml, "? a:\t:x\n");
    EXPECT_EQ(to_debug_string(d.root()), R"({{"a":":x"}:null})");
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH({ fy_stream fy("? a:\t:x\n"); }, "");
    EXPECT_DEATH({ fy_stream fy("?\n  a:\t:x\n"); }, "");
    // A block scalar after the tab too: {{"a": ""}: null}.
    EXPECT_EQ(to_debug_string(test::must_decode(format_id::yaml, "? a:\t>\n").root()),
              R"({{"a":""}:null})");
    EXPECT_DEATH({ fy_stream fy("? a:\t>\n"); }, "");
    expect_libfyaml(true, "? a: :x\n", R"({{"a":":x"}:null})");
    expect_libfyaml(true, "? a:\tx\n");
    expect_libfyaml(true, "- a:\t:x\n", R"([{"a":":x"}])");
}

// libfyaml's seventeenth (docs/formats/yaml.md): a block scalar with an indentation indicator
// whose only lines are spaces, more than the indentation: the spaces past it are content (YAML
// 1.2 l-nb-literal-text; PyYAML agrees), libfyaml reads "". Should libfyaml change, the test
// fails and fuzz_diff_yaml's may_hit_blank_explicit_block_scalar_bug can go. With a line of
// text after the blank one, both agree.
TEST(YamlOracle, LibfyamlDropsSpacesOnlyLinesOfAnExplicitlyIndentedBlockScalar) {
    expect_libfyaml(false, "- |1\n   \n", R"(["  \u000a"])");
    expect_libfyaml(false, "|2\n   \n", R"(" \u000a")");
    // The spaces' line ended by CR LF (fuzz_diff_yaml at 6b2e379).
    expect_libfyaml(false, "aa: |2\n   \r\n\n", R"({"aa":" \u000a"})");
    expect_libfyaml(true, "- |1\n   \n  x\n", R"(["  \u000a x\u000a"])");
    expect_libfyaml(true, "- |1\n  x\n   \n", R"([" x\u000a  \u000a"])");
}

// libfyaml's tenth again (LibfyamlCutsAColumnZeroBlockScalarOnTheMarkerLine): a line starting
// with a tab starts in column 0 too (a tab is no indentation), and a line of one space after it
// is content (fuzz_diff_yaml at 321864e): libfyaml's document API loses the last line.
TEST(YamlOracle, LibfyamlCutsAColumnZeroBlockScalarStartingWithATab) {
    expect_libfyaml(false, "--- |\n\n\n\tx\n \n", R"("\u000a\u000a\u0009x\u000a \u000a")");
    expect_libfyaml(true, "--- |\n\tx\n", R"("\u0009x\u000a")");
    // A line of a tab alone, then a more-indented line (fuzz_diff_yaml at d415580, 389 s).
    expect_libfyaml(false, "--- |\r\n\t\r\r x.\n", R"("\u0009\u000a\u000a x.\u000a")");
}

// libfyaml's eighteenth (docs/formats/yaml.md): an empty line before a line of white space with
// a tab in a block scalar. The tab is content past the detected indentation (npm yaml and
// PyYAML agree); libfyaml drops the empty line. Should libfyaml change, the test fails and
// fuzz_diff_yaml's may_hit_blank_tab_line_bug can go. With text after the tab, both agree.
TEST(YamlOracle, LibfyamlDropsAnEmptyLineBeforeABlankLineWithATab) {
    expect_libfyaml(false, "|\n\n \t\n", R"("\u000a\u0009\u000a")");
    expect_libfyaml(false, "- |\n\n \t\n", R"(["\u000a\u0009\u000a"])");
    expect_libfyaml(true, "|\n\n \tx\n", R"("\u000a\u0009x\u000a")");
}

// libfyaml's nineteenth (docs/formats/yaml.md): the non-specific tag `!` under a redefined
// primary handle. It still forces a string (npm yaml agrees); libfyaml gives the node the
// handle's prefix as its tag. Should libfyaml change, the test fails and fuzz_diff_yaml's
// redefines_primary_tag_handle can go. Without the %TAG directive, both agree.
TEST(YamlOracle, LibfyamlPrefixesTheNonSpecificTagUnderARedefinedPrimaryHandle) {
    expect_libfyaml(false, "%TAG ! tag:example.com,2002:\n---\n- ! 12\n", R"(["12"])");
    expect_libfyaml(true, "- ! 12\n", R"(["12"])");
}

}  // namespace
}  // namespace polycodec
