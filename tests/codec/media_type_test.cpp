// Media types, format specs, query options and Accept negotiation (RFC 9110 section 12.5.1).
#include "polycodec/media_type.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "support/support.hpp"

namespace polycodec {
namespace {

TEST(MediaType, ParsesTypeSubtypeAndParameters) {
    auto m = parse_media_type("Text/CSV; Header=absent ; charset=\"utf-8\"");
    ASSERT_TRUE(m);
    EXPECT_EQ(m->essence(), "text/csv");
    ASSERT_EQ(m->params.size(), 2u);
    EXPECT_EQ(m->params[0].first, "header");
    EXPECT_EQ(m->params[0].second, "absent");
    EXPECT_EQ(*m->param("charset"), "utf-8");
}

TEST(MediaType, RejectsMalformed) {
    for (const char* bad : {"", "json", "text/", "/csv", "text/csv; =x", "text/csv; a=\"open",
                            "te xt/csv"}) {
        EXPECT_FALSE(parse_media_type(bad)) << bad;
    }
}

TEST(FormatSpec, AcceptsNameMediaTypeAndNameWithParameters) {
    struct row {
        const char* spec;
        format_id id;
        bool header;
        bool tab;
    };
    for (const row& r : {row{"yaml", format_id::yaml, true, false},
                         row{"text/csv; header=absent", format_id::csv, false, false},
                         row{"csv;header=absent", format_id::csv, false, false},
                         row{"text/tab-separated-values", format_id::csv, true, true},
                         row{"application/x-yaml", format_id::yaml, true, false},
                         row{"tsv", format_id::csv, true, true}}) {
        transcode_options opt;
        auto f = resolve_format_spec(r.spec, opt);
        ASSERT_TRUE(f) << r.spec << ": " << f.error().message;
        EXPECT_EQ((*f)->id, r.id) << r.spec;
        EXPECT_EQ(opt.decode.csv_header, r.header) << r.spec;
        EXPECT_EQ(opt.decode.csv_tab, r.tab) << r.spec;
    }
    transcode_options opt;
    auto bad = resolve_format_spec("application/octet-stream", opt);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, errc::unsupported_format);
    EXPECT_FALSE(resolve_format_spec("csv;header=maybe", opt));
}

TEST(Options, QueryStringSetsEveryParameter) {
    transcode_options opt;
    ASSERT_TRUE(apply_query(
        "pretty=true&lossy=allow&canonical=1&multi=true&header=absent&delimiter=%3B"
        "&infer=true&unflatten=true&strict=false&schema=record&from=cbor&to=application%2Fyaml",
        opt));
    EXPECT_TRUE(opt.encode.pretty);
    EXPECT_TRUE(opt.encode.lossy);
    EXPECT_TRUE(opt.encode.canonical);
    EXPECT_TRUE(opt.decode.canonical);
    EXPECT_TRUE(opt.decode.multi);
    EXPECT_FALSE(opt.decode.csv_header);
    EXPECT_EQ(opt.decode.csv_delimiter, ';');
    EXPECT_TRUE(opt.decode.infer);
    EXPECT_TRUE(opt.decode.unflatten);
    EXPECT_FALSE(opt.decode.strict);
    EXPECT_TRUE(transcode_options{}.decode.strict);  // RFC 4180 quoting unless strict=false
    EXPECT_EQ(opt.decode.schema_name, "record");
    EXPECT_EQ(opt.from->id, format_id::cbor);
    EXPECT_EQ(opt.to->id, format_id::yaml);
}

TEST(Options, RejectsUnknownAndBadValues) {
    transcode_options opt;
    for (const char* q : {"bogus=1", "pretty=maybe", "delimiter=ab", "delimiter=%22", "lossy=x",
                          "to=nope", "a=%zz", "strict=lax"}) {
        auto r = apply_query(q, opt);
        ASSERT_FALSE(r) << q;
        EXPECT_TRUE(r.error().code == errc::invalid_option ||
                    r.error().code == errc::unsupported_format)
            << q;
    }
}

TEST(Options, TheTableIsWhatApplyOptionAccepts) {
    // Every row is found by its name in any case, accepts its documented values and default,
    // and is the only way in: a name outside the table fails.
    std::vector<std::string_view> seen;
    for (const option_info& o : option_table()) {
        EXPECT_EQ(std::count(seen.begin(), seen.end(), o.name), 0) << o.name;
        seen.push_back(o.name);
        std::string upper(o.name);
        for (char& c : upper) {
            if (c >= 'a' && c <= 'z') {  // letters only: int_width keeps its '_'
                c = static_cast<char>(c - 'a' + 'A');
            }
        }
        EXPECT_EQ(find_option(upper), &o);
        EXPECT_NE(o.apply, nullptr);
        EXPECT_FALSE(o.summary.empty()) << o.name;
        for (std::string_view v : o.values) {
            transcode_options opt;
            EXPECT_TRUE(apply_option(o.name, v, opt)) << o.name << "=" << v;
            EXPECT_EQ(opt.given.back(), o.name);
        }
        if (!o.default_value.empty()) {
            transcode_options opt;
            EXPECT_TRUE(apply_option(o.name, o.default_value, opt)) << o.name;
        }
        if (o.kind == option_kind::boolean || o.kind == option_kind::choice) {
            transcode_options opt;
            EXPECT_FALSE(apply_option(o.name, "sideways", opt)) << o.name;
        }
    }
    EXPECT_GE(seen.size(), 14u);
    EXPECT_EQ(find_option("indent"), nullptr);
    transcode_options opt;
    auto r = apply_option("indent", "2", opt);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::invalid_option);
    EXPECT_TRUE(opt.given.empty());
}

TEST(Options, TableRowsSetTheirOptions) {
    // header=absent through the row, as through a media type; lossy takes allow and booleans.
    transcode_options opt;
    ASSERT_TRUE(find_option("header")->apply("absent", opt));
    EXPECT_FALSE(opt.decode.csv_header);
    EXPECT_FALSE(opt.encode.csv_header);
    ASSERT_TRUE(find_option("lossy")->apply("allow", opt));
    EXPECT_TRUE(opt.encode.lossy);
    ASSERT_TRUE(find_option("lossy")->apply("0", opt));
    EXPECT_FALSE(opt.encode.lossy);
    ASSERT_TRUE(find_option("delimiter")->apply("tab", opt));
    EXPECT_EQ(opt.decode.csv_delimiter, '\t');
    ASSERT_TRUE(find_option("to")->apply("application/cbor-seq", opt));
    EXPECT_EQ(opt.to->id, format_id::cbor);
    EXPECT_TRUE(opt.encode.seq);
    ASSERT_EQ(sequence_media_types().size(), 2u);
}

TEST(Negotiate, EmptyOrWildcardAnswersInTheInputFormat) {
    const format_info& cbor = *find_format(format_id::cbor);
    EXPECT_EQ(negotiate("", cbor).format, &cbor);
    EXPECT_EQ(negotiate("*/*", cbor).format, &cbor);
    EXPECT_EQ(negotiate("application/*", cbor).format, &cbor);
}

TEST(Negotiate, HighestQualityThenMostSpecificWins) {
    const format_info& json = *find_format(format_id::json);
    struct row {
        const char* accept;
        format_id expect;
    };
    for (const row& r : {
             row{"application/yaml", format_id::yaml},
             row{"text/yaml;q=0.5, application/cbor", format_id::cbor},
             row{"application/cbor;q=0.2, application/x-yaml;q=0.9", format_id::yaml},
             row{"text/*;q=0.3, application/vnd.msgpack;q=0.4", format_id::msgpack},
             row{"text/*", format_id::json},  // text/json matches and json is the input
             row{"application/vnd.api+json", format_id::json},
             row{"*/*;q=0.1, application/toml", format_id::toml},
             row{"application/json;q=0, */*", format_id::json5},
         }) {
        auto n = negotiate(r.accept, json);
        ASSERT_NE(n.format, nullptr) << r.accept;
        EXPECT_EQ(n.format->id, r.expect) << r.accept;
    }
}

TEST(Negotiate, NothingAcceptable) {
    const format_info& json = *find_format(format_id::json);
    EXPECT_EQ(negotiate("image/png", json).format, nullptr);
    EXPECT_EQ(negotiate("application/yaml;q=0", json).format, nullptr);
    EXPECT_EQ(negotiate("garbage", json).format, nullptr);
}

TEST(Negotiate, ParametersOfTheChosenRangeAreReturned) {
    const format_info& json = *find_format(format_id::json);
    auto n = negotiate("text/csv; header=absent; q=0.9", json);
    ASSERT_NE(n.format, nullptr);
    EXPECT_EQ(n.format->id, format_id::csv);
    ASSERT_EQ(n.params.size(), 1u);
    EXPECT_EQ(n.params[0].first, "header");
    EXPECT_EQ(n.params[0].second, "absent");
}

TEST(Negotiate, UnusableFormatsAreSkipped) {
    const format_info& json = *find_format(format_id::json);
    auto only_json = [](const format_info& f) { return f.id == format_id::json; };
    EXPECT_EQ(negotiate("application/yaml, application/json;q=0.1", json, only_json).format,
              &json);
}

// Issue 19: extjson=canonical|relaxed and int_width=keep|shortest, on both sides.
TEST(Options, ExtjsonAndIntWidth) {
    transcode_options opt;
    ASSERT_TRUE(apply_query("extjson=canonical&int_width=keep", opt));
    EXPECT_EQ(opt.encode.extjson, extjson_mode::canonical);
    EXPECT_EQ(opt.decode.extjson, extjson_mode::canonical);
    EXPECT_TRUE(opt.encode.keep_int_width);
    EXPECT_TRUE(opt.decode.keep_int_width);
    ASSERT_TRUE(resolve_format_spec("json;extjson=Relaxed", opt));
    EXPECT_EQ(opt.decode.extjson, extjson_mode::relaxed);
    ASSERT_TRUE(apply_query("int_width=shortest", opt));
    EXPECT_FALSE(opt.decode.keep_int_width);
    for (const char* q : {"extjson=legacy", "extjson=", "int_width=32"}) {
        auto r = apply_query(q, opt);
        ASSERT_FALSE(r) << q;
        EXPECT_EQ(r.error().code, errc::invalid_option) << q;
    }
    EXPECT_EQ(transcode_options().encode.extjson, extjson_mode::relaxed);  // the default
}

// DESIGN section 14: application/json;profile=protojson names protojson, in Content-Type and
// in Accept, and its options are protojson's.
TEST(MediaType, ProtojsonProfileOfJson) {
    transcode_options opt;
    auto f = resolve_format_spec("application/json; profile=protojson; enums_as_ints=true", opt);
    ASSERT_TRUE(f);
    EXPECT_EQ((*f)->id, format_id::protojson);
    EXPECT_TRUE(opt.encode.protojson.enums_as_ints);
    transcode_options plain;
    auto j = resolve_format_spec("application/json", plain);
    ASSERT_TRUE(j);
    EXPECT_EQ((*j)->id, format_id::json);
    const format_info& cbor = *find_format(format_id::cbor);
    EXPECT_EQ(negotiate("application/json;profile=protojson", cbor).format->id,
              format_id::protojson);
    EXPECT_EQ(negotiate("application/json", cbor).format->id, format_id::json);
    EXPECT_EQ(negotiate("application/x-protojson", cbor).format->id, format_id::protojson);
    transcode_options o2;
    EXPECT_FALSE(resolve_format_spec("protojson;preserve_proto_field_names=maybe", o2));
    ASSERT_TRUE(resolve_format_spec("protojson;preserve_proto_field_names=true;"
                                    "always_print_primitive_fields=true;ignore_unknown_fields=1",
                                    o2));
    EXPECT_TRUE(o2.encode.protojson.preserve_proto_field_names);
    EXPECT_TRUE(o2.encode.protojson.always_print_primitive_fields);
    EXPECT_TRUE(o2.decode.protojson.ignore_unknown_fields);
}

}  // namespace
}  // namespace polycodec
