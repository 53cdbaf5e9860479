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
