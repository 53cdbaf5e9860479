// toml++ (an independent TOML 1.0 parser) checks the values of our TOML decoder on every
// toml-test case, on every TOML fixture, and on every line-boundary prefix of the valid cases:
// both accept with equal documents (keys in source order), or both refuse.
#include <filesystem>
#include <fstream>

#include "oracle/tomlpp_oracle.hpp"
#include "support/support.hpp"

namespace polycodec {
namespace {

struct tally {
    int accepted_equal = 0;
    int refused_both = 0;
    std::vector<std::string> disagreements;
};

void compare(const std::string& name, std::string_view input, tally& t) {
    document ours;
    auto r = decode(format_id::toml, input, ours);
    document oracle;
    std::string why;
    bool ok = test::parse_with_tomlpp(input, oracle, why);
    if (!r && !ok) {
        ++t.refused_both;
        return;
    }
    if (!r) {
        t.disagreements.push_back(name + ": we refuse (" + describe(r.error()) +
                                  "), toml++ accepts " + to_debug_string(oracle.root()));
        return;
    }
    if (!ok) {
        t.disagreements.push_back(name + ": we accept " + to_debug_string(ours.root()) +
                                  ", toml++ refuses (" + why + ")");
        return;
    }
    document cut;
    builder cb(cut);
    test::cut_fractions(ours.root(), cb);
    if (!equal(cut, oracle)) {
        t.disagreements.push_back(name + ": ours " + to_debug_string(cut.root()) + " toml++ " +
                                  to_debug_string(oracle.root()));
        return;
    }
    ++t.accepted_equal;
}

TEST(TomlOracleConformance, EveryTomlTestCase) {
    POLYCODEC_REQUIRE_CORPUS("toml/tests", dir);
    std::ifstream list(dir / "files-toml-1.0.0");
    ASSERT_TRUE(list);
    std::string rel;
    tally t;
    int valid = 0, invalid = 0;
    while (std::getline(list, rel)) {
        if (rel.size() < 5 || rel.substr(rel.size() - 5) != ".toml") {
            continue;
        }
        (rel.rfind("valid/", 0) == 0 ? valid : invalid)++;
        compare(rel, test::read_file(dir / rel), t);
    }
    std::printf("toml++ oracle on toml-test: %d accepted and equal, %d refused by both\n",
                t.accepted_equal, t.refused_both);
    EXPECT_EQ(t.accepted_equal, valid);
    EXPECT_EQ(t.refused_both, invalid);
    for (const auto& d : t.disagreements) {
        ADD_FAILURE() << d;
    }
}

TEST(TomlOracleConformance, LinePrefixesOfValidCases) {
    POLYCODEC_REQUIRE_CORPUS("toml/tests", dir);
    std::ifstream list(dir / "files-toml-1.0.0");
    ASSERT_TRUE(list);
    std::string rel;
    tally t;
    while (std::getline(list, rel)) {
        if (rel.rfind("valid/", 0) != 0 || rel.substr(rel.size() - 5) != ".toml") {
            continue;
        }
        std::string input = test::read_file(dir / rel);
        for (std::size_t i = 0; i < input.size(); ++i) {
            if (input[i] == '\n') {
                compare(rel + " (first " + std::to_string(i + 1) + " bytes)",
                        std::string_view(input).substr(0, i + 1), t);
            }
        }
    }
    std::printf("toml++ oracle on prefixes: %d accepted and equal, %d refused by both\n",
                t.accepted_equal, t.refused_both);
    EXPECT_GT(t.accepted_equal, 1000);
    EXPECT_GT(t.refused_both, 100);
    for (const auto& d : t.disagreements) {
        ADD_FAILURE() << d;
    }
}

// Hand-picked corners of the TOML 1.0 grammar and of the redefinition rules: the two parsers
// must decide each the same way (and agree on the value).
const char* const hand_picked[] = {
    "[a.b.c]\n[a]\nb.d = 1\n",
    "a.b = 1\n[a.c]\nx = 1\n",
    "[a]\nb.c = 1\n[a.b.d]\ne = 1\n",
    "[[a]]\nb.c = 1\n[a.b]\n",
    "[[a]]\n[a.b]\nc = 1\n[[a]]\n[a.b]\nc = 2\n",
    "x = [{a.b = 1, a.c = 2}, {}]\n",
    "\"a\" = 1\n'a' = 2\n",
    "\"\\u00e9\" = 1\n\"\xC3\xA9\" = 2\n",
    "a = \"\"\"\\\n   x \\\n\n  y\"\"\"\n",
    "a = \"\"\"\r\nline\r\nend\"\"\"\r\n",
    "a = '''\r\nline\r\n'''\n",
    "a = '''''x'''''\n",
    "a = \"\"\"\"\"x\"\"\"\"\"\n",
    "a = 'lit'''\n",
    "a = 1979-05-27 07:32:00\nb = 1979-05-27 # c\nc = 1979-05-27t07:32:00z\n",
    "a = 00:00:00.123456789123\nb = 1979-05-27T07:32:00.1000Z\n",
    "a = -nan\nb = +inf\nc = -inf\nd = +nan\n",
    "a = 1e1000\n",
    "a = 1e-400\nb = -4.9e-324\nc = 2.5e-324\n",
    "[a.b.c]\n[a]\nb.d = 1\n[a.b]\n",
    "[a.b.c]\n[a]\nb.d = 1\nb.e = 2\n[a.b.f]\n",
    "[a.b.c]\n[a.b]\n[a]\nb.d = 1\n",
    "[a.b.c]\n[a]\nb = {}\n",
    "[a.b.c.d]\n[a]\nb.c.e = 1\n",
    "a = 0.0e-400\nb = -0.0\nc = 1_000.0_1e1_0\nd = 1E+2\ne = 1e-02\n",
    "a.  \"b\" . c = 1\n[ d . e ]\n[[ f . g ]]\n",
    "\xEF\xBB\xBF"
    "a = 1\n",
    "a = {}\n[a]\n",
    "a\t=\t[\t1\t,\t2\t]\t#\tc\n",
    "a = [ ]\nb = [\n]\nc = [1,]\n",
    "a = [,]\n",
    "a = [1,,2]\n",
    "a=1#c\nb=2",
    "a = 1979-05-27T23:59:60Z\n",
    "a = 1979-05-27T07:32:00+24:00\n",
    "a = 0000-01-01\nb = 2000-02-29\n",
    "a = 1900-02-29\n",
    "a = 07:32:00.\n",
    "a = 1979-05-27T07:32:00.Z\n",
    "a = \"\\u0000\"\n",
    "[a.b]\n[a]\nb = 1\n",
    "[a]\n[a.b]\n[a]\n",
    "a = 9223372036854775807\nb = -9223372036854775808\nc = 0x7FFFFFFFFFFFFFFF\n",
    "a = 0o777\nb = 0b1_0\nc = 0xdead_BEEF\n",
    "a = 0x\n",
    "a = 1_\n",
    "a = _1\n",
    "a = 1.0_\n",
    "a = 3.\n",
    "a = .3\n",
    "a = +1_000\nb = -0\nc = +0.0\n",
    "a = truey\n",
    "a = \"\\e\"\n",
    "a = \"\\x41\"\n",
    "a = {b = 1,\n}\n",
    "[a]\nb = 1\n[a.c]\n[a.c.d]\n[a]\n",
    "[x.y]\n[x]\ny.z = 1\n",
    "[[t]]\n[t.a.b]\n[[t.a.c]]\n",
    "a = [[1], [\"x\"], [{b = 1}]]\n",
    "1 = 1\n2.3 = 4\n-_ = 5\n",
    "1.2 = 3\n[1]\n",
    "a = 1979-05-27T07:32\n",
    "a = 1979-5-27\n",
    "a = 12:60:00\n",
    "a = \"unterminated\n",
    "a = \"\"\"x\"\"\"\"\"\"\n",
    "# \x01\n",
    "a = 1 # \x7f\n",
    "a = 'tab\there'\nb = \"tab\there\"\n",
};

std::string printable(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (c == '\n') {
            out += "\\n";
        } else {
            out += c;
        }
    }
    return out;
}

TEST(TomlOracleConformance, HandPicked) {
    tally t;
    for (const char* c : hand_picked) {
        compare("hand-picked \"" + printable(c) + "\"", c, t);
    }
    std::printf("toml++ oracle on hand-picked cases: %d accepted and equal, %d refused by both\n",
                t.accepted_equal, t.refused_both);
    EXPECT_EQ(static_cast<std::size_t>(t.accepted_equal + t.refused_both), std::size(hand_picked));
    for (const auto& d : t.disagreements) {
        ADD_FAILURE() << d;
    }
}

TEST(TomlOracleConformance, EveryFixture) {
    tally t;
    int files = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(test::fixtures_dir())) {
        if (e.is_regular_file() && e.path().extension() == ".toml") {
            ++files;
            compare(e.path().filename().string(), test::read_file(e.path()), t);
        }
    }
    EXPECT_GE(files, 1);
    EXPECT_EQ(t.accepted_equal, files);
    for (const auto& d : t.disagreements) {
        ADD_FAILURE() << d;
    }
}

}  // namespace
}  // namespace polycodec
