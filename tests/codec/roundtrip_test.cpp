// Every implemented format round-trips a corpus of values of the JSON model: what encodes
// decodes back to an equal Document. Pairs the format cannot represent are skipped.
#include "support/support.hpp"

namespace polycodec {
namespace {

using build_fn = void (*)(builder&);

void scalars_map(builder& b) {
    b.begin_map();
    b.add_string("null");
    b.add_null();
    b.add_string("t");
    b.add_bool(true);
    b.add_string("f");
    b.add_bool(false);
    b.add_string("int");
    b.add_int(-42);
    b.add_string("big");
    b.add_int(9007199254740993);
    b.add_string("min");
    b.add_int(INT64_MIN);
    b.add_string("float");
    b.add_double(3.141592653589793);
    b.add_string("tiny");
    b.add_double(5e-324);
    b.add_string("whole");
    b.add_double(2.0);
    b.add_string("str");
    b.add_string("h\xc3\xa9llo \"w\"\n\t\\ \xe2\x82\xac \xf0\x9f\x98\x80");
    b.add_string("empty");
    b.add_string("");
    b.end_map();
}

void nested(builder& b) {
    b.begin_map();
    b.add_string("records");
    b.begin_array();
    for (int i = 0; i < 3; ++i) {
        b.begin_map();
        b.add_string("id");
        b.add_int(i);
        b.add_string("name");
        b.add_string(i == 1 ? "\xe6\x97\xa5\xe6\x9c\xac" : "record");
        b.add_string("tags");
        b.begin_array();
        b.add_string("a");
        b.add_string("b");
        b.end_array();
        b.add_string("inner");
        b.begin_map();
        b.add_string("x");
        b.add_double(-0.5);
        b.end_map();
        b.end_map();
    }
    b.end_array();
    b.add_string("empty_list");
    b.begin_array();
    b.end_array();
    b.add_string("empty_map");
    b.begin_map();
    b.end_map();
    b.end_map();
}

void deep(builder& b) {
    for (int i = 0; i < 100; ++i) {
        b.begin_array();
    }
    b.add_int(1);
    for (int i = 0; i < 100; ++i) {
        b.end_array();
    }
}

void table(builder& b) {
    b.begin_array();
    for (int i = 0; i < 4; ++i) {
        b.begin_map();
        b.add_string("id");
        b.add_string(std::to_string(i));
        b.add_string("name");
        b.add_string("n, \"q\"\nline");
        b.end_map();
    }
    b.end_array();
}

struct sample {
    const char* name;
    build_fn fn;
};

constexpr sample samples[] = {
    {"scalars", scalars_map}, {"nested", nested}, {"deep", deep}, {"table", table}};

TEST(RoundTrip, EveryImplementedFormatKeepsValues) {
    int checked = 0;
    for (const format_info& f : formats()) {
        if (!is_implemented(f.id)) {
            continue;
        }
        for (const sample& s : samples) {
            document in;
            builder b(in);
            s.fn(b);
            output_buffer out;
            auto w = encode(f.id, in, out);
            if (!w && (w.error().code == errc::unrepresentable ||
                       w.error().code == errc::schema_required)) {
                continue;  // (avro writes only with a schema: avro_test.cpp)
            }
            ASSERT_TRUE(w) << f.name << "/" << s.name << ": " << describe(w.error());
            document back;
            auto r = decode(f.id, out.view(), back);
            if (!r && r.error().code == errc::schema_required) {
                continue;
            }
            ASSERT_TRUE(r) << f.name << "/" << s.name << ": " << describe(r.error()) << "\n"
                           << out.view();
            EXPECT_TRUE(equal(in, back)) << f.name << "/" << s.name << "\n in: " << test::dbg(in)
                                         << "\nout: " << test::dbg(back);
            ++checked;
        }
    }
    if (checked == 0) {
        GTEST_SKIP() << "no format is implemented yet";
    }
}

}  // namespace
}  // namespace polycodec
