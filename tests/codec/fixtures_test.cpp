// Every fixture through every pair of implemented formats (DESIGN section 11): JSON -> A -> B
// decodes to a Document equal to the fixture's. Also checks the committed fixture forms
// fixtures/<name>.<ext> decode to the same Document as the JSON fixture.
#include <set>

#include "support/support.hpp"

namespace polycodec {
namespace {

// Formats whose root must be a map carry the records as {"records": [...]} (DESIGN section 8).
document wrap_records(const document& src) {
    document out;
    builder b(out);
    b.begin_map();
    b.add_string("records");
    b.add_copy(src.root());
    b.end_map();
    return out;
}

document load_fixture(const char* name) {
    return test::must_decode(format_id::json, test::read_file(test::fixtures_dir() / name));
}

const document& input_for(const format_info& f, const document& plain, const document& wrapped) {
    return f.caps.map_root_only ? wrapped : plain;
}

// Formats that must carry each fixture without loss. Others may refuse a value
// (unrepresentable) - TOML has no null, bencode no floats, CSV only flat tables - or need a
// schema (postcard); their own suites cover their fixture variants.
const std::set<format_id> carries_records = {
    format_id::json,  format_id::json5,   format_id::hjson,  format_id::yaml,
    format_id::ron,   format_id::sexpr,   format_id::cbor,   format_id::msgpack,
    format_id::pickle, format_id::bson};
const std::set<format_id> carries_bench = {
    format_id::json,  format_id::json5,   format_id::hjson,  format_id::yaml,
    format_id::ron,   format_id::sexpr,   format_id::cbor,   format_id::msgpack,
    format_id::pickle, format_id::bson,   format_id::toml,   format_id::plist};

void check_pairs(const char* fixture, const std::set<format_id>& must_carry) {
    document plain = load_fixture(fixture);
    ASSERT_FALSE(plain.empty());
    document wrapped = wrap_records(plain);
    int pairs = 0;
    for (const format_info& a : formats()) {
        if (!is_implemented(a.id) || a.caps.needs_schema) {
            continue;
        }
        const document& in = input_for(a, plain, wrapped);
        output_buffer bytes_a;
        auto ea = encode(a.id, in, bytes_a);
        if (!ea) {
            EXPECT_FALSE(must_carry.count(a.id)) << fixture << " -> " << a.name << ": "
                                                 << describe(ea.error());
            continue;
        }
        document doc_a;
        auto da = decode(a.id, bytes_a.view(), doc_a);
        ASSERT_TRUE(da) << fixture << " -> " << a.name << ": " << describe(da.error());
        if (must_carry.count(a.id)) {
            EXPECT_TRUE(equal(in, doc_a)) << fixture << " through " << a.name;
        }
        if (!equal(in, doc_a)) {
            continue;  // a documented mapping changed the value: not a pair to chain
        }
        for (const format_info& b : formats()) {
            if (!is_implemented(b.id) || b.caps.needs_schema ||
                b.caps.map_root_only != a.caps.map_root_only) {
                continue;
            }
            output_buffer bytes_b;
            if (!encode(b.id, doc_a, bytes_b)) {
                continue;
            }
            document doc_b;
            auto db = decode(b.id, bytes_b.view(), doc_b);
            ASSERT_TRUE(db) << fixture << ": " << a.name << " -> " << b.name << ": "
                            << describe(db.error());
            if (must_carry.count(b.id)) {
                EXPECT_TRUE(equal(in, doc_b))
                    << fixture << ": " << a.name << " -> " << b.name << "\n"
                    << test::dbg(doc_b).substr(0, 400);
            }
            ++pairs;
        }
    }
    ::testing::Test::RecordProperty("pairs", pairs);
    EXPECT_GT(pairs, 0);
}

TEST(Fixtures, RecordsThroughEveryPair) { check_pairs("records.json", carries_records); }

TEST(Fixtures, BenchThroughEveryPair) { check_pairs("bench.json", carries_bench); }

// fixtures/records.<ext> and bench.<ext>, written by scripts/gen_fixture_forms.py, still
// decode to the JSON fixture's Document (golden files: a codec change that alters them is
// seen here).
TEST(Fixtures, CommittedFormsDecodeToTheJsonFixture) {
    int checked = 0;
    for (const char* base : {"records", "bench"}) {
        document plain = load_fixture((std::string(base) + ".json").c_str());
        document wrapped = wrap_records(plain);
        for (const format_info& f : formats()) {
            // (An avro container carries its own schema.)
            bool schema_less = !f.caps.needs_schema || f.id == format_id::avro;
            if (f.id == format_id::json || !is_implemented(f.id) || !schema_less ||
                f.caps.tabular) {
                continue;
            }
            auto path = test::fixtures_dir() / (std::string(base) + std::string(f.extensions[0]));
            if (!std::filesystem::exists(path)) {
                continue;
            }
            document d;
            decode_options dopt;
            const bool xml = f.id == format_id::xml;  // <bench> around {"records": ...}, as text
            if (xml) {
                dopt.xml.root = base;
                dopt.infer = true;
            } else if (!f.caps.boolean) {
                // Text-only forms (bench.properties) read nesting and types back, as bench does.
                dopt.unflatten = true;
                dopt.infer = true;
            }
            auto r = decode(f.id, test::read_file(path), d, dopt);
            ASSERT_TRUE(r) << path << ": " << describe(r.error());
            EXPECT_TRUE(equal(d, xml ? wrapped : input_for(f, plain, wrapped))) << path;
            ++checked;
        }
    }
    ::testing::Test::RecordProperty("forms", checked);
}

}  // namespace
}  // namespace polycodec
