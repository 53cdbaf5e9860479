// The format table (DESIGN section 1) and the not-implemented answer of the registry.
#include "polycodec/format.hpp"

#include <set>

#include "support/support.hpp"

namespace polycodec {
namespace {

TEST(Format, TableHasItsFormatsInIdOrder) {
    // DESIGN section 1, 14 and 15: ids never change; an id reserved for a format still to
    // come (22 protobuf, 23 avro, ...) has no row until it lands.
    const std::pair<int, const char*> rows[] = {
        {1, "json"},      {2, "json5"},   {3, "hjson"},    {4, "yaml"},    {5, "ron"},
        {6, "sexpr"},     {7, "cbor"},    {8, "msgpack"},  {9, "pickle"},  {10, "toml"},
        {11, "bson"},     {12, "bencode"}, {13, "postcard"}, {14, "csv"},  {15, "ndjson"},
        {16, "urlform"},  {17, "ini"},    {18, "edn"},     {19, "ubjson"}, {20, "smile"},
        {21, "dotenv"},   {24, "xml"}};
    auto all = formats();
    ASSERT_EQ(all.size(), std::size(rows));
    for (std::size_t i = 0; i < all.size(); ++i) {
        EXPECT_EQ(static_cast<int>(all[i].id), rows[i].first);
        EXPECT_EQ(all[i].name, rows[i].second);
        EXPECT_EQ(find_format_by_number(static_cast<std::uint8_t>(rows[i].first)), &all[i]);
        EXPECT_FALSE(all[i].media_types.empty());
        EXPECT_FALSE(all[i].extensions.empty());
    }
    EXPECT_EQ(static_cast<std::size_t>(all.back().id), format_count);
}

TEST(Format, MediaTypesAndExtensionsAreUnique) {
    std::set<std::string_view> types;
    std::set<std::string_view> exts;
    for (const auto& f : formats()) {
        for (auto t : f.media_types) {
            EXPECT_TRUE(types.insert(t).second) << t;
        }
        for (auto e : f.extensions) {
            EXPECT_EQ(e.front(), '.');
            EXPECT_TRUE(exts.insert(e).second) << e;
        }
    }
}

TEST(Format, LookupsByNameTypeExtensionAndPath) {
    EXPECT_EQ(find_format_by_name("YAML")->id, format_id::yaml);
    EXPECT_EQ(find_format_by_media_type("application/vnd.msgpack")->id, format_id::msgpack);
    EXPECT_EQ(find_format_by_media_type("Application/X-MsgPack")->id, format_id::msgpack);
    EXPECT_EQ(find_format_by_media_type("application/problem+json")->id, format_id::json);
    EXPECT_EQ(find_format_by_media_type("text/tab-separated-values")->id, format_id::csv);
    EXPECT_EQ(find_format_by_media_type("application/octet-stream"), nullptr);
    EXPECT_EQ(find_format_by_extension(".yml")->id, format_id::yaml);
    EXPECT_EQ(find_format_by_extension("torrent")->id, format_id::bencode);
    EXPECT_EQ(find_format_by_path("dir.x/in.PKL")->id, format_id::pickle);
    EXPECT_EQ(find_format_by_path("Makefile"), nullptr);
    EXPECT_EQ(find_format_by_number(0), nullptr);
    EXPECT_EQ(find_format_by_number(22), nullptr);
    EXPECT_EQ(find_format_by_number(21)->id, format_id::dotenv);
    EXPECT_EQ(find_format_by_number(24)->id, format_id::xml);
    EXPECT_EQ(find_format_by_media_type("application/atom+xml")->id, format_id::xml);
    EXPECT_EQ(find_format_by_media_type("text/xml")->id, format_id::xml);
    EXPECT_EQ(find_format_by_media_type("application/jsonl")->id, format_id::ndjson);
    EXPECT_EQ(to_string(format_id::postcard), "postcard");
}

TEST(Format, UnimplementedFormatsAnswerClearly) {
    for (const auto& f : formats()) {
        if (is_implemented(f.id)) {
            continue;
        }
        document d;
        auto r = decode(f.id, "x", d);
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().code, errc::not_implemented);
        EXPECT_EQ(r.error().message, "decoding is not implemented yet");
        EXPECT_EQ(describe(r.error()), std::string(f.name) + ": decoding is not implemented yet");
    }
}

}  // namespace
}  // namespace polycodec
