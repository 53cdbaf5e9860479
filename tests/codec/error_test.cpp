// Every errc has a distinct, non-empty name; describe() carries every position field.
#include "polycodec/error.hpp"

#include <set>

#include "support/support.hpp"

namespace polycodec {
namespace {

TEST(Error, EveryCodeHasADistinctName) {
    std::set<std::string_view> names;
    for (int c = 0; c <= static_cast<int>(errc::invalid_option); ++c) {
        auto name = to_string(static_cast<errc>(c));
        EXPECT_FALSE(name.empty());
        EXPECT_NE(name, "unknown") << c;
        EXPECT_TRUE(names.insert(name).second) << name;
    }
}

TEST(Error, DescribeNamesFormatPositionAndPath) {
    error e = make_error(errc::unexpected_eof, 5, "expected ',' or ']', saw end of input");
    e.format = format_id::json;
    e.line = 1;
    e.column = 6;
    e.has_path = true;
    e.path = "/2";
    EXPECT_EQ(describe(e),
              "json: line 1, column 6 (byte 5), at /2: expected ',' or ']', saw end of input");
    error u = make_error(errc::unrepresentable, "NaN is not representable in json");
    u.format = format_id::json;
    u.has_path = true;
    u.path = "/items/3/price";
    EXPECT_EQ(describe(u), "json: at /items/3/price: NaN is not representable in json");
}

// fuzz_decode_ini: a key holding NUL cut the CLI's message at the path.
TEST(Error, DescribeEscapesControlCharacters) {
    using namespace std::string_literals;
    error e = make_error(errc::unrepresentable, "key 'a\nb\0' is not representable"s);
    e.format = format_id::ini;
    e.has_path = true;
    e.path = "/\0\x01/\x7f\t"s;
    EXPECT_EQ(describe(e),
              "ini: at /\\u0000\\u0001/\\u007f\\u0009: key 'a\\u000ab\\u0000' is not representable");
}

}  // namespace
}  // namespace polycodec
