// Tests of the Java properties codec: the examples of the Properties.load javadoc (OpenJDK
// 17), every escape and continuation rule of LineReader/loadConvert worked out by hand, error
// positions, exact encodings (Properties.store with escapeUnicode), flattening and lossy cases.
// tests/differential/test_properties.py checks the same against java.util.Properties itself.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "detail/unflatten.hpp"
#include "detail/utf8.hpp"
#include "formats/formats.hpp"
#include "support/support.hpp"

namespace polycodec::test {
namespace {

std::string props(std::string_view text, decode_options opt = {}) {
    return decoded_as(format_id::properties, text, opt);
}

decode_options unflat(bool infer) {
    decode_options opt;
    opt.unflatten = true;
    opt.infer = infer;
    return opt;
}

std::string nested(std::string_view text, bool infer = false) { return props(text, unflat(infer)); }

std::string encode_props(std::string_view json, const encode_options& opt = {}) {
    return encode_json_as(format_id::properties, json, opt);
}

error encode_error(std::string_view json, const encode_options& opt = {}) {
    return encode_json_error(format_id::properties, json, opt);
}

// The javadoc of Properties.load(Reader): three lines that each give Truth=Beauty, a value
// continued over three lines, and a key with no value.
// utf8_valid_prefix takes 32 ASCII bytes a step: inputs whose ASCII runs end exactly at the
// end of the input (in a buffer of exactly their size, which ASan bounds), and a bad byte at
// every position of the first 100.
TEST(PropertiesDecode, Utf8CheckEndsAtTheEndOfInput) {
    for (std::size_t n : {8u, 31u, 32u, 33u, 63u, 64u, 65u, 96u, 100u}) {
        std::unique_ptr<char[]> buf(new char[n]);
        std::memset(buf.get(), 'a', n);
        buf[n - 1] = '\n';
        EXPECT_EQ(detail::utf8_valid_prefix(std::string_view(buf.get(), n)), n);
        document d;
        EXPECT_TRUE(decode(format_id::properties, std::string_view(buf.get(), n), d)) << n;
        for (std::size_t bad = 0; bad < n; ++bad) {
            std::string s(buf.get(), n);
            s[bad] = '\xff';
            EXPECT_EQ(detail::utf8_valid_prefix(s), bad) << n << " " << bad;
        }
        std::string two(buf.get(), n - 1);
        two += "\xc3\xa9";  // a valid two-byte character at the very end
        EXPECT_EQ(detail::utf8_valid_prefix(two), two.size());
    }
}

TEST(PropertiesDecode, JavadocExamples) {
    const text_case cases[] = {
        {"Truth = Beauty\n"
         " Truth:Beauty\n"
         "Truth                    :Beauty\n",
         R"({"Truth":"Beauty","Truth":"Beauty","Truth":"Beauty"})"},
        {"fruits                           apple, banana, pear, \\\n"
         "                                 cantaloupe, watermelon, \\\n"
         "                                 kiwi, mango\n",
         R"({"fruits":"apple, banana, pear, cantaloupe, watermelon, kiwi, mango"})"},
        {"cheeses\n", R"({"cheeses":""})"},
        {"\\:\\= = x\n", R"({":=":"x"})"},
    };
    expect_decodes(format_id::properties, cases);
}

TEST(PropertiesDecode, Separators) {
    const text_case cases[] = {
        {"a b\nc\td\ne\ff\ng=h\ni:j\n", R"({"a":"b","c":"d","e":"f","g":"h","i":"j"})"},
        // White space, then at most one '=' or ':', then white space.
        {"a = = b\nc:=d\ne  :  f  \ng==\n", R"({"a":"= b","c":"=d","e":"f  ","g":"="})"},
        {"key\\ with\\ spaces = v\nk\\=x\\:y=z\n", R"({"key with spaces":"v","k=x:y":"z"})"},
        {"=no key\n:also\n", R"({"":"no key","":"also"})"},
    };
    expect_decodes(format_id::properties, cases);
}

TEST(PropertiesDecode, Escapes) {
    const text_case cases[] = {
        {"a=\\t\\n\\r\\f\\u0041\\u00e9\\uD83D\\uDE00\\q\\\\\\\"\\ \n",
         "{\"a\":\"\\u0009\\u000a\\u000d\\u000cA\xC3\xA9\xF0\x9F\x98\x80q\\\\\\\" \"}"},
        {"a=\\u0000\n", "{\"a\":\"\\u0000\"}"},
        // A backslash before a non-ASCII character keeps the character.
        {"a=\\\xC3\xA9\n", "{\"a\":\"\xC3\xA9\"}"},
        // UTF-8 text is read as it is (load(Reader) with UTF-8).
        {"\xE6\x9D\xB1=\xE4\xBA\xAC\n", "{\"\xE6\x9D\xB1\":\"\xE4\xBA\xAC\"}"},
    };
    expect_decodes(format_id::properties, cases);
}

TEST(PropertiesDecode, CommentsAndBlankLines) {
    const text_case cases[] = {
        {"# c\n! c\n   # indented\n\n  \t\f\n\r\na=1\n#b=2", R"({"a":"1"})"},
        // '#' past the start of a line is text.
        {"a=b # not a comment\n", R"({"a":"b # not a comment"})"},
        // On a continued line '#' is text; after a line that was only "\" it starts a comment.
        {"a=b\\\n#c\n", R"({"a":"b#c"})"},
        {"\\\n#c=1\nd=2\n", R"({"d":"2"})"},
        {"", "{}"},
        {"# only\n", "{}"},
    };
    expect_decodes(format_id::properties, cases);
}

TEST(PropertiesDecode, LineEndsAndContinuations) {
    const text_case cases[] = {
        {"a=1\rb=2\r\nc=3\n", R"({"a":"1","b":"2","c":"3"})"},
        {"a=x\\\r\n   y\\\r   z\\\n\t w\n", R"({"a":"xyzw"})"},
        // An even number of backslashes is escaped backslashes, not a continuation.
        {"a=x\\\\\nb=y\n", R"({"a":"x\\","b":"y"})"},
        // A final backslash at the end of input is dropped.
        {"a=x\\", R"({"a":"x"})"},
        {"a=x\\\n   ", R"({"a":"x"})"},
        // LineReader's end of input: a final lone backslash, or a continued line whose one-byte
        // line break ends the input, is the entry "" = ""; after CRLF or white space it is nothing.
        {"a=1\n\\", R"({"a":"1","":""})"},
        {"a=1\n\\\n", R"({"a":"1","":""})"},
        {"a=1\n\\\r", R"({"a":"1","":""})"},
        {"a=1\n\\\r\n", R"({"a":"1"})"},
        {"a=1\n\\\n  ", R"({"a":"1"})"},
        {"a=x\\\r\n", R"({"a":"x"})"},
        // An empty continuation line ends the logical line.
        {"a=x\\\n\nb=y\n", R"({"a":"x","b":"y"})"},
        // The key itself may continue; an escape may span the break.
        {"ke\\\n  y=\\u00\\\n   41\n", R"({"key":"A"})"},
        // A continuation line's separators count like any others.
        {"a\\\n  b c\n", R"({"ab":"c"})"},
    };
    expect_decodes(format_id::properties, cases);
}

// Found by fuzz_decode_properties: many lines that come to nothing once ran one recursion each,
// and CR-only lines one scan to the end of input each. Both are one pass now.
TEST(PropertiesDecode, LongRunsOfEmptyContinuationsAndCrOnlyLines) {
    std::string empty;
    for (int i = 0; i < 200000; ++i) {
        empty += "\\\n\n";
    }
    empty += "a=1\n";
    EXPECT_EQ(props(empty), R"({"a":"1"})");
    std::string cr;
    for (int i = 0; i < 100000; ++i) {
        cr += "k=v\r";
    }
    document d = must_decode(format_id::properties, cr);
    EXPECT_EQ(d.root().size(), 100000u);
}

TEST(PropertiesDecode, BomIsPartOfTheFirstKeyAsInJava) {
    EXPECT_EQ(props("\xEF\xBB\xBF" "a=1\n"), "{\"\xEF\xBB\xBF" "a\":\"1\"}");
}

TEST(PropertiesDecode, DuplicatesKeptInOrder) {
    EXPECT_EQ(props("a=1\nb=2\na=3\n"), R"({"a":"1","b":"2","a":"3"})");
}

TEST(PropertiesDecode, Errors) {
    const bad_input bad[] = {
        {"a=1\nb=\\u12\n",
         {errc::invalid_string, 6, 2, 3,
          "malformed \\uxxxx escape: expected 4 hex digits, saw the end of the value"}},
        {"k\\u00G1=v\n",
         {errc::invalid_string, 1, any, any,
          "malformed \\uxxxx escape: expected a hex digit, saw 'G'"}},
        // The key ends at the separator, so \u there has too few digits.
        {"k\\u12=3456\n",
         {errc::invalid_string, 1, any, any,
          "malformed \\uxxxx escape: expected 4 hex digits, saw the end of the key"}},
        // Positions inside a continued line are those of the input.
        {"a=x\\\n  \\uZZZZ\n", {errc::invalid_string, 7, 2, 3}},
        {"a=\\uD800x\n", {errc::invalid_string, 2}},
        {"a=\\uDC00\n", {errc::invalid_string}},
        {"a=\\uD800\\u0041\n", {errc::invalid_string}},
        {"a=1\nb=\xC3\x28\n", {errc::invalid_utf8, 6}},
    };
    expect_decode_errors(format_id::properties, bad);
}

TEST(PropertiesUnflatten, DottedKeysNestArraysAndTypes) {
    EXPECT_EQ(nested("a.b=1\na.c=2\nl.0=x\nl.1=y\nm.1=z\nt=true\n"),
              R"({"a":{"b":"1","c":"2"},"l":["x","y"],"m":{"1":"z"},"t":"true"})");
    EXPECT_EQ(nested("a.b=1\nl.1=2.5\nl.0=true\ns=x\nn=-7\nbig=18446744073709551616\n", true),
              R"({"a":{"b":1},"l":[true,2.5],"s":"x","n":-7,"big":18446744073709551616n})");
    // The root stays a map.
    const text_case cases[] = {
        {"0=x\n1=y\n", R"({"0":"x","1":"y"})"},
        // 01 is not an index: a map.
        {"l.0=a\nl.01=b\n", R"({"l":{"0":"a","01":"b"}})"},
        // Keys with an empty part stay whole.
        {"a..b=1\n.x=2\ny.=3\n=4\n", R"({"a..b":"1",".x":"2","y.":"3","":"4"})"},
    };
    expect_decodes(format_id::properties, cases, unflat(false));
    // infer alone types the flat map.
    const decode_options infer = inferring();
    EXPECT_EQ(props("a.b=1\nc=x\n", infer), R"({"a.b":1,"c":"x"})");
}

TEST(PropertiesUnflatten, LastWinsAsJavaAndConflictsAreErrors) {
    EXPECT_EQ(nested("a=1\nb=2\na=3\n"), R"({"a":"3","b":"2"})");
    decode_options opt;
    opt.unflatten = true;
    const bad_input bad[] = {
        {"a=1\na.b=2\n", {errc::duplicate_key, 4, 2}},
        {"a.b=1\n# c\na=2\n", {errc::duplicate_key, 10}},
    };
    expect_decode_errors(format_id::properties, bad, opt);
}

// The decoder writes the nested document straight from the lines while the keys come in
// document order, and hands anything else (keys out of order, repeats, a value that is also
// a group, arrays not in index order, empty parts) to the general unflatten of the flat map.
// Both must give the same document: here the flat read and detail::unflatten (the general
// path itself) against the decoder, on generated files of every such case, and hand-checked
// documents for the ordered case.
TEST(PropertiesUnflatten, LinePathAgreesWithTheGeneralUnflatten) {
    EXPECT_EQ(nested("r.0.a=1\nr.0.b.0=x\nr.0.b.1=y\nr.1.a=2\nr.1.c.d=\\u0041\ns=t\n", true),
              R"({"r":[{"a":1,"b":["x","y"]},{"a":2,"c":{"d":"A"}}],"s":"t"})");
    const text_case cases[] = {
        {"a.b=1\na.c=2\nd.0=3\nd.1=4\na.e=5\n", R"({"a":{"b":"1","c":"2","e":"5"},"d":["3","4"]})"},
        {"l.1=b\nl.0=a\nm.0=x\nm.01=y\n", R"({"l":["a","b"],"m":{"0":"x","01":"y"}})"},
        {"a..b=1\n.c=2\nd.=3\na.b=4\n", R"({"a..b":"1",".c":"2","d.":"3","a":{"b":"4"}})"},
    };
    expect_decodes(format_id::properties, cases, unflat(false));

    const char* parts[] = {"a", "b", "0", "1", "2", "01", "x", "", "10"};
    const char* values[] = {"1", "-0", "007", "1.5", "true", "v", "", "12345678901234567890",
                            "-9", "1e999", "\\u00e9t\\u00e9", "NaN", "-123456789012345678"};
    std::uint64_t seed = 0x9E3779B97F4A7C15ull;
    auto next = [&](std::uint64_t n) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        return (seed >> 33) % n;
    };
    int fast_like = 0;
    for (int round = 0; round < 3000; ++round) {
        std::string text;
        std::vector<std::uint64_t> offsets;
        const std::uint64_t lines = 1 + next(12);
        const bool ordered = round % 2 == 0;  // keys of an ordered walk, as flattening writes
        for (std::uint64_t i = 0; i < lines; ++i) {
            std::string key;
            if (ordered) {
                key = "r." + std::to_string(i / 3) + "." + parts[i % 3];
                if (next(4) == 0) {
                    key += std::string(".") + parts[next(9)];
                }
            } else {
                const std::uint64_t depth = 1 + next(3);
                for (std::uint64_t d = 0; d < depth; ++d) {
                    key += (d != 0 ? "." : "");
                    key += parts[next(9)];
                }
            }
            offsets.push_back(text.size());
            text += key + "=" + values[next(13)] + "\n";
        }
        for (int mode = 0; mode < 3; ++mode) {
            decode_options opt;
            opt.unflatten = mode != 1;
            opt.infer = mode != 0;
            document flat = must_decode(format_id::properties, text);
            document want;
            builder b(want);
            // What decode_properties hands the general path.
            const detail::unflatten_options uo{".", opt.unflatten, opt.infer, true, true, true,
                                               "key"};
            auto expected = detail::unflatten(flat.root(), b, uo, offsets);
            document got;
            auto r = decode(format_id::properties, text, got, opt);
            ASSERT_EQ(static_cast<bool>(r), static_cast<bool>(expected)) << text;
            if (!r) {
                EXPECT_EQ(r.error().code, expected.error().code) << text;
                EXPECT_EQ(r.error().offset, expected.error().offset) << text;
                continue;
            }
            fast_like += ordered ? 1 : 0;
            EXPECT_TRUE(equal(got, want)) << text << " mode " << mode << ": " << dbg(got) << " vs " << dbg(want);
        }
    }
    EXPECT_GT(fast_like, 1000);
}

// The one-pass fast path (detail::decode_properties_fast) against the general path (the flat
// read and detail::unflatten, what decode_properties falls back to) on generated files: keys
// of an ordered walk with shared prefixes (as flattening writes them) and every disturbance
// of it (index gaps, indexes out of order or with leading zeros, repeated keys, a key both a
// value and a group, empty parts), escapes, continuation lines, comments, blank lines, CR and
// CRLF line ends, the three separators with white space, non-ASCII text, and values of every
// infer case (the int64 edges, floats near the fast float path's limits, booleans, texts that
// look like numbers). Where the fast path finishes, both give the same document (same values,
// kinds, float bits, order); where the general path fails, the fast path must have given way.
TEST(PropertiesUnflatten, FastPathAgreesWithTheGeneralPath) {
    const char* values[] = {
        "0", "-0", "7", "-7", "42", "007", "-01", "123456789012345678", "-123456789012345678",
        "1234567890123456789", "9223372036854775807", "-9223372036854775808",
        "9223372036854775808", "-9223372036854775809", "18446744073709551615",
        "18446744073709551616", "99999999999999999999999", "1.5", "-17.5", "-16.25", "0.1",
        "-0.0", "0.30000000000000004", "123456789012345.6", "1234567890123456.7",
        "0.0000000000000000000001", "0.00000000000000000000001", "1e5", "1.5e-3", "1E+2",
        "5e-324", "1e999", "01.5", "1.", ".5", "-.5", "1.5.", "true", "false", "True", "tru",
        "falsey", "NaN", "Infinity", "-Infinity", "nan", "-", "", "x", "hello world",
        "  lead", "trail  ", "a=b:c", "#not a comment", "caf\xc3\xa9", "\xe2\x82\xac 5",
        "\xf0\x9f\x98\x80", "12 ", "1_000", "+1", "0x10"};
    const char* names[] = {"a", "b", "id", "name", "tags", "x.y", "caf\xc3\xa9", "0", "1", "2"};
    const char* seps[] = {"=", ":", " ", "\t", " = ", " : ", "=\t", "  ", "\f=", " =  "};
    const char* breaks[] = {"\n", "\n", "\n", "\r\n", "\r", "\n\n", "\n   ", "\n# c\n",
                            "\n! c\n", "\n\t\n"};
    std::uint64_t seed = 0x2545F4914F6CDD1Dull;
    auto next = [&](std::uint64_t n) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        return (seed >> 33) % n;
    };
    int handled = 0;
    int runs = 0;
    for (int round = 0; round < 4000; ++round) {
        std::string text;
        if (next(8) == 0) {
            text += next(2) == 0 ? "# header\n" : "\n  \n";
        }
        const std::uint64_t records = 1 + next(4);
        const bool disturb = round % 3 == 0;
        for (std::uint64_t r = 0; r < records; ++r) {
            const std::uint64_t fields = 1 + next(5);
            for (std::uint64_t f = 0; f < fields; ++f) {
                std::string prefix = "rec." + std::to_string(r) + ".";
                const std::uint64_t shape = next(3);
                std::vector<std::string> keys;
                const std::string n_f = std::to_string(f);  // fields differ in a record
                if (shape == 0) {  // a scalar field
                    keys.push_back(prefix + names[next(7)] + n_f);
                } else if (shape == 1) {  // an array
                    const std::uint64_t n = 1 + next(12);
                    const std::string field = prefix + (next(2) == 0 ? "samples" : "list") + n_f;
                    for (std::uint64_t i = 0; i < n; ++i) {
                        keys.push_back(field + "." + std::to_string(i));
                    }
                } else {  // a nested map (its second name differs from its first)
                    const std::uint64_t k = next(10);
                    keys.push_back(prefix + "m" + n_f + "." + names[k]);
                    keys.push_back(prefix + "m" + n_f + "." + names[(k + 1 + next(9)) % 10] + "." +
                                   names[next(4)]);
                }
                for (std::string key : keys) {
                    if (disturb) {
                        switch (next(14)) {
                            case 0:
                                key += "." + std::to_string(next(3));  // value and group
                                break;
                            case 1:
                                key = key.substr(0, key.rfind('.') + 1) + "0" +
                                      std::to_string(next(3));  // a leading zero
                                break;
                            case 2:
                                key = "rec." + std::to_string(next(4)) + ".id";  // maybe again
                                break;
                            case 3:
                                key.insert(key.find('.') + 1, ".");  // an empty part
                                break;
                            case 4:
                                key.insert(next(key.size()), "\\");  // an escape in the key
                                break;
                            case 5:
                                key += ".";
                                break;
                            case 6:
                                key = std::to_string(next(3));  // an index at the root
                                break;
                            default:
                                break;
                        }
                    }
                    if (next(10) == 0) {
                        text += next(2) == 0 ? " " : "\t";
                    }
                    text += key;
                    text += seps[next(10)];
                    std::string value = values[next(sizeof values / sizeof values[0])];
                    if (disturb && next(12) == 0) {
                        value += next(2) == 0 ? "\\\n   more" : "\\u0041";
                    }
                    text += value;
                    if (disturb && next(40) == 0) {
                        text += "\\";  // a continuation (or a dropped backslash at the end)
                    }
                    text += breaks[next(10)];
                }
            }
        }
        if (next(6) == 0) {
            text.pop_back();  // no line break at the end
        }
        for (int mode = 0; mode < 4; ++mode) {
            decode_options opt;
            opt.unflatten = (mode & 1) != 0;
            opt.infer = (mode & 2) != 0;
            document flat;
            builder fb(flat);
            auto flat_ok = detail::properties_codec.decode(text, fb, decode_options{});
            document want;
            builder wb(want);
            result<void> expected = flat_ok;
            if (flat_ok) {
                std::vector<std::uint64_t> offsets;  // only errors use them
                const detail::unflatten_options uo{".", opt.unflatten, opt.infer, true, true,
                                                   true, "key"};
                expected = detail::unflatten(flat.root(), wb, uo, offsets);
            }
            document fast;
            builder b(fast);
            const bool took = detail::decode_properties_fast(text, b, opt);
            ++runs;
            if (mode == 0) {
                EXPECT_FALSE(took);  // the flat read has no fast path of its own
                continue;
            }
            if (!took) {
                EXPECT_TRUE(fast.empty()) << text;
                continue;
            }
            ++handled;
            ASSERT_TRUE(static_cast<bool>(expected)) << text << " mode " << mode;
            EXPECT_TRUE(equal(fast, want)) << text << " mode " << mode << ": " << dbg(fast)
                                           << " vs " << dbg(want);
            EXPECT_EQ(dbg(fast), dbg(want)) << text << " mode " << mode;
            // decode() itself gives the same.
            document got;
            ASSERT_TRUE(decode(format_id::properties, text, got, opt)) << text;
            EXPECT_EQ(dbg(got), dbg(want)) << text;
        }
    }
    EXPECT_GT(handled, runs / 4);  // most undisturbed files take the fast path
    std::fprintf(stderr, "fast path took %d of %d reads\n", handled, runs);
}

TEST(PropertiesUnflatten, DeepKeysStopAtTheDepthLimit) {
    std::string deep;
    for (int i = 0; i < 2000; ++i) {
        deep += "a.";
    }
    deep += "b=1\n";
    decode_options opt;
    opt.unflatten = true;
    expect_decode_error(format_id::properties, deep, {errc::depth_exceeded}, opt);
}

// What Properties.store(OutputStream) writes for the same strings (saveConvert with
// escapeUnicode): worked out from its source by hand.
TEST(PropertiesEncode, EscapesAsStoreDoes) {
    const text_case cases[] = {
        {R"({"k y":" v=:#!\\x  y","\u00e9":"\ud83d\ude00\u0001\u007f~","t\tn\n":"\r\f"})",
         "k\\ y=\\ v\\=\\:\\#\\!\\\\x  y\n"
         "\\u00E9=\\uD83D\\uDE00\\u0001\\u007F~\n"
         "t\\tn\\n=\\r\\f\n"},
        {R"({"":"","a":"\"$%&'()*+,-./;<>?@[]^_`{|}"})", "=\na=\"$%&'()*+,-./;<>?@[]^_`{|}\n"},
        {"{}", ""},
    };
    expect_encodes(format_id::properties, cases);
}

TEST(PropertiesEncode, ScalarsAsText) {
    EXPECT_EQ(encode_props(R"({"i":-3,"f":2.0,"b":true,"u":18446744073709551615,"r":0.5})"),
              "i=-3\nf=2.0\nb=true\nu=18446744073709551615\nr=0.5\n");
}

TEST(PropertiesEncode, NestedMapsAndArraysFlattenWithDots) {
    std::string text = encode_props(R"({"a":{"b":"x","c":[1,{"d":false}]},"e":"y"})");
    EXPECT_EQ(text, "a.b=x\na.c.0=1\na.c.1.d=false\ne=y\n");
    EXPECT_EQ(nested(text, true), R"({"a":{"b":"x","c":[1,{"d":false}]},"e":"y"})");
    // A flat map keeps any key, dots included, and reads back equal without unflatten.
    EXPECT_EQ(encode_props(R"({"a.b":"1","0":"2"})"), "a.b=1\n0=2\n");
}

TEST(PropertiesEncode, LossyCases) {
    error e = encode_error(R"({"a":{"b":null}})");
    EXPECT_EQ(e.code, errc::unrepresentable);
    EXPECT_EQ(e.path, "/a/b");
    e = encode_error(R"({"a":null})");
    EXPECT_EQ(e.path, "/a");
    e = encode_error(R"({"a":{}})");
    EXPECT_EQ(e.path, "/a");
    e = encode_error(R"({"a":[]})");
    EXPECT_EQ(e.path, "/a");
    e = encode_error(R"({"a":{"b.c":"1"}})");
    EXPECT_EQ(e.path, "/a/b.c");
    e = encode_error(R"({"x.y":"1","a":{"b":"1"}})");
    EXPECT_EQ(e.path, "/x.y");
    e = encode_error(R"({"a":{"0":"x","1":"y"}})");
    EXPECT_EQ(e.path, "/a");
    e = encode_error(R"({"a":{"k":"x","k":"y"}})");
    EXPECT_EQ(e.path, "/a");
    std::string many = R"({"a":{)";
    for (int i = 0; i < 40; ++i) {
        many += "\"k" + std::to_string(i) + "\":\"v\",";
    }
    many += R"("k7":"again"}})";
    e = encode_error(many);
    EXPECT_EQ(e.path, "/a");
    EXPECT_NE(e.message.find("\"k7\" appears twice"), std::string::npos) << e.message;
    e = encode_error(R"([1])");
    EXPECT_EQ(e.path, "");
    e = encode_error(R"("x")");

    encode_options lossy;
    lossy.lossy = true;
    std::vector<lossy_event> events;
    lossy.report = &events;
    EXPECT_EQ(encode_props(R"({"a":{"b":null,"e":{},"l":[],"0":{"0":"z"}},"c.d":"1"})", lossy),
              "a.b=\na.0.0=z\nc.d=1\n");
    expect_report(events, {{"null_to_empty"},
                           {"empty_container_dropped"},
                           {"empty_container_dropped"},
                           {"key_ambiguous"},
                           {"key_ambiguous"}});
}

// The writer copies runs of plain bytes (16 at a time past 16), writes short plain keys as the
// line's tail, counts array indexes in place at the end of the key prefix and writes numbers
// where they go: all against a reference that escapes character by character as saveConvert
// does and builds every key anew, on generated documents (keys and values of every special
// byte, non-ASCII text, lengths about 16 and 32, indexes past 9 and 99, nested and flat maps).
std::string ref_escape(std::string_view s, bool key) {
    std::string out;
    char buf[8];
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c == ' ') {
            out += key || i == 0 ? "\\ " : " ";
        } else if (c == '\\' || c == '=' || c == ':' || c == '#' || c == '!') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c == '\t' || c == '\n' || c == '\r' || c == '\f') {
            out += c == '\t' ? "\\t" : c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\f";
        } else if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
        } else {
            std::uint32_t cp = c;
            std::size_t len = 1;
            if (c >= 0xF0) {
                cp = c & 7, len = 4;
            } else if (c >= 0xE0) {
                cp = c & 15, len = 3;
            } else if (c >= 0xC0) {
                cp = c & 31, len = 2;
            }
            for (std::size_t k = 1; k < len; ++k) {
                cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
            }
            auto unit = [&](std::uint32_t u) {
                std::snprintf(buf, sizeof buf, "\\u%04X", u);
                out += buf;
            };
            if (cp >= 0x10000) {
                unit(0xD800 + ((cp - 0x10000) >> 10));
                unit(0xDC00 + ((cp - 0x10000) & 0x3FF));
            } else {
                unit(cp);
            }
            i += len;
            continue;
        }
        ++i;
    }
    return out;
}

struct gen_doc {
    std::uint64_t seed;
    std::uint64_t next(std::uint64_t n) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        return (seed >> 33) % n;
    }
    std::string text(std::size_t max) {
        static const char* pieces[] = {"a", "b", "z", "0", "9", " ", "=", ":", "#", "!", "\\",
                                       "\t", "\n", "\r", "\f", "(NUL)",
                                       "\x1f", "\x7f", "~", "\"", "\xc3\xa9", "\xe6\x9d\xb1",
                                       "\xf0\x9f\x98\x80", "xxxxxxxxxxxxxxxx"};
        std::string s;
        const std::size_t n = next(4) == 0 ? next(max + 1) : next(6);
        for (std::size_t i = 0; i < n && s.size() < max; ++i) {
            const std::uint64_t k = next(4) == 0 ? next(24) : 0;
            s += k == 15 ? std::string(1, '\0') : k == 0 ? std::string(1, "abcdefgh"[next(8)]) : pieces[k];
        }
        return s;
    }
    // A key: no dot, never empty, never an index, unique in its map (it ends in k<i>).
    std::string key(std::size_t i) { return text(40) + "k" + std::to_string(i); }
    void scalar(builder& b, std::string& line, std::string& want) {
        switch (next(7)) {
            case 0: {
                const std::string s = text(48);
                b.add_string(s);
                want += line + "=" + ref_escape(s, false) + "\n";
                return;
            }
            case 1: {
                static const std::int64_t ints[] = {0, -1, 9, 10, 99, 100, -99, -100, 12345,
                                                    INT64_MAX, INT64_MIN};
                const std::int64_t v = next(2) == 0 ? ints[next(11)]
                                                    : static_cast<std::int64_t>(next(2000000)) - 1000000;
                b.add_int(v);
                want += line + "=" + std::to_string(v) + "\n";
                return;
            }
            case 2:
                b.add_uint(UINT64_MAX);
                want += line + "=18446744073709551615\n";
                return;
            case 3: {
                const bool t = next(2) == 0;
                b.add_bool(t);
                want += line + (t ? "=true\n" : "=false\n");
                return;
            }
            case 4: {
                static const double ds[] = {0.5, -17.25, 2.0, 1e21, 1e-7};
                static const char* texts[] = {"0.5", "-17.25", "2.0", "1e21", "1e-7"};
                const std::uint64_t k = next(5);
                b.add_double(ds[k]);
                want += line + "=" + texts[k] + "\n";
                return;
            }
            default: {
                const std::string s = text(20);
                b.add_string(s);
                want += line + "=" + ref_escape(s, false) + "\n";
                return;
            }
        }
    }
    void value(builder& b, const std::string& line, std::string& want, int depth) {
        std::string l = line;
        const std::uint64_t r = next(10);
        if (depth >= 4 || r < 5) {
            scalar(b, l, want);
        } else if (r < 8) {
            const std::uint64_t n = depth < 2 && next(8) == 0 ? 101 : 1 + next(13);
            b.begin_array();
            for (std::uint64_t i = 0; i < n; ++i) {
                value(b, line + "." + std::to_string(i), want, depth + 1);
            }
            b.end_array();
        } else {
            map(b, line, want, depth + 1);
        }
    }
    void map(builder& b, const std::string& line, std::string& want, int depth) {
        const std::uint64_t n = 1 + next(7);
        b.begin_map();
        for (std::uint64_t i = 0; i < n; ++i) {
            const std::string k = key(i);
            b.add_string(k);
            value(b, line.empty() ? ref_escape(k, true) : line + "." + ref_escape(k, true), want,
                  depth);
        }
        b.end_map();
    }
};

TEST(PropertiesEncode, FastWriterAgreesWithAReferenceOnGeneratedDocuments) {
    gen_doc g{0x2545F4914F6CDD1Dull};
    int nested = 0;
    for (int round = 0; round < 900; ++round) {
        document doc;
        builder b(doc);
        std::string want;
        if (round % 3 == 0) {  // a flat map: any key, dots and empty ones included
            b.begin_map();
            const std::uint64_t n = g.next(10);
            for (std::uint64_t i = 0; i < n; ++i) {
                const std::string k = g.next(3) == 0 ? g.text(40) + "." + g.text(3) : g.text(40);
                b.add_string(k);
                std::string line = ref_escape(k, true);
                g.scalar(b, line, want);
            }
            b.end_map();
        } else {  // nested below the root's one key
            b.begin_map();
            b.add_string("r");
            g.map(b, "r", want, 0);
            b.end_map();
            ++nested;
        }
        output_buffer out;
        auto r = encode(format_id::properties, doc, out);
        ASSERT_TRUE(r) << describe(r.error());
        ASSERT_EQ(out.str(), want) << dbg(doc);
    }
    EXPECT_GT(nested, 500);
}

TEST(PropertiesEncode, DecodeOfEncodeIsTheFlatMap) {
    const char* json = R"({" lead":"  two","k=:#!":"v=:#!","\\":"\\\\","nl":"a\nb\r\nc",)"
                       R"("u":"\u00e9\u6771\ud83d\ude00","ctl":"\u0000\u001f\u007f"})";
    document src = must_decode(format_id::json, json);
    document back = must_decode(format_id::properties, must_encode(format_id::properties, src));
    EXPECT_TRUE(equal(src, back)) << dbg(back);
}

}  // namespace
}  // namespace polycodec::test
