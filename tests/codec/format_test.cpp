// The format table (DESIGN section 1) and the not-implemented answer of the registry.
#include "polycodec/format.hpp"

#include <set>

#include "support/support.hpp"

namespace polycodec {
namespace {

// DESIGN sections 1, 14 and 15 fix each id's name; the table lists them in id order (ids of
// formats still being added may be missing) and ends at format_count.
TEST(Format, TableIsInIdOrderWithTheDesignNames) {
    const char* names[] = {"json",   "json5",   "hjson", "yaml",    "ron",      "sexpr", "cbor",
                           "msgpack", "pickle", "toml",  "bson",    "bencode",  "postcard",
                           "csv",    "ndjson",  "urlform", "ini",   "edn",      "ubjson",
                           "smile",  "dotenv",  "protobuf", "avro", "xml",      "plist",
                           "properties", "protojson"};
    auto all = formats();
    ASSERT_GE(all.size(), 22u);
    std::size_t prev = 0;
    for (const format_info& f : all) {
        auto id = static_cast<std::size_t>(f.id);
        EXPECT_GT(id, prev);
        prev = id;
        ASSERT_LE(id, std::size(names));
        EXPECT_EQ(f.name, names[id - 1]);
        EXPECT_EQ(find_format_by_number(static_cast<std::uint8_t>(id)), &f);
        EXPECT_FALSE(f.media_types.empty());
        EXPECT_FALSE(f.extensions.empty());
    }
    EXPECT_EQ(prev, format_count);
    for (std::size_t id = 1; id <= 21; ++id) {
        EXPECT_NE(find_format_by_number(static_cast<std::uint8_t>(id)), nullptr) << id;
    }
    EXPECT_EQ(static_cast<std::size_t>(all.back().id), format_count);
    EXPECT_EQ(find_format(format_id::avro)->name, "avro");
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
    EXPECT_EQ(find_format_by_number(format_count + 1), nullptr);
    EXPECT_EQ(find_format_by_number(25)->id, format_id::plist);
    EXPECT_EQ(find_format_by_media_type("application/x-bplist")->id, format_id::plist);
    EXPECT_EQ(find_format_by_path("Info.plist")->id, format_id::plist);
    EXPECT_EQ(find_format_by_number(21)->id, format_id::dotenv);
    EXPECT_EQ(find_format_by_number(22)->id, format_id::protobuf);
    EXPECT_EQ(find_format_by_extension("binpb")->id, format_id::protobuf);
    EXPECT_EQ(find_format_by_media_type("application/x-protobuf")->id, format_id::protobuf);
    EXPECT_EQ(find_format_by_number(26)->id, format_id::properties);
    EXPECT_EQ(find_format_by_number(27)->id, format_id::protojson);
    EXPECT_EQ(find_format_by_media_type("application/x-protojson")->id, format_id::protojson);
    EXPECT_EQ(find_format_by_name("protojson")->id, format_id::protojson);
    EXPECT_EQ(find_format_by_media_type("text/x-java-properties")->id, format_id::properties);
    EXPECT_EQ(find_format_by_path("conf/app.properties")->id, format_id::properties);
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
