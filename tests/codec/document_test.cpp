// The tape Document: layout, cursors, limits, paths, copies and equality.
#include "polycodec/document.hpp"

#include <limits>
#include <string>

#include "polycodec/buffer.hpp"

#include "support/support.hpp"
#include "../codec/src/detail/tape_access.hpp"

namespace polycodec {
namespace {

// {"a": [1, "x", null], "b": {"c": true}, 7: 2.5}
void build_sample(builder& b) {
    b.begin_map();
    b.add_string("a");
    b.begin_array();
    b.add_int(1);
    b.add_string("x");
    b.add_null();
    b.end_array();
    b.add_string("b");
    b.begin_map();
    b.add_string("c");
    b.add_bool(true);
    b.end_map();
    b.add_int(7);
    b.add_double(2.5);
    b.end_map();
}

TEST(Document, ContainersKnowCountAndEnd) {
    document d;
    builder b(d);
    build_sample(b);
    ASSERT_TRUE(b.ok());
    value root = d.root();
    EXPECT_EQ(root.kind(), kind::map);
    EXPECT_EQ(root.size(), 3u);
    EXPECT_EQ(root.end_index(), d.tape().size());
    value a = root.find("a");
    ASSERT_NE(a.doc(), nullptr);
    EXPECT_EQ(a.kind(), kind::array);
    EXPECT_EQ(a.size(), 3u);
    std::vector<std::string> seen;
    for (value v : a.items()) {
        seen.push_back(to_debug_string(v));
    }
    EXPECT_EQ(seen, (std::vector<std::string>{"1", "\"x\"", "null"}));
    EXPECT_EQ(to_debug_string(root), R"({"a":[1,"x",null],"b":{"c":true},7:2.5})");
}

TEST(Document, MapEntriesKeepOrderAndDuplicates) {
    document d;
    builder b(d);
    b.begin_map();
    b.add_string("k");
    b.add_int(1);
    b.add_string("k");
    b.add_int(2);
    b.end_map();
    std::vector<std::int64_t> vals;
    for (auto [k, v] : d.root().entries()) {
        EXPECT_EQ(k.get_string(), "k");
        vals.push_back(v.get_int());
    }
    EXPECT_EQ(vals, (std::vector<std::int64_t>{1, 2}));
    EXPECT_EQ(d.root().size(), 2u);
}

TEST(Document, AllScalarKinds) {
    document d;
    builder b(d);
    b.begin_array();
    b.add_uint(5);  // small unsigned values are int64
    b.add_uint(std::numeric_limits<std::uint64_t>::max());
    b.add_int(std::numeric_limits<std::int64_t>::min());
    b.add_bignum("-123456789012345678901234567890");
    b.add_bytes(std::string_view("\x00\xff", 2));
    b.add_timestamp("1979-05-27T07:32:00Z", timestamp_kind::offset_date_time);
    b.add_timestamp("07:32:00", timestamp_kind::local_time);
    b.begin_tagged(32);
    b.add_string("http://x");
    b.add_bool(false);
    b.end_array();
    ASSERT_TRUE(b.ok());
    ASSERT_EQ(b.depth(), 0u);
    value r = d.root();
    ASSERT_EQ(r.size(), 9u);
    std::vector<value> v(r.items().begin(), r.items().end());
    EXPECT_EQ(v[0].kind(), kind::int64);
    EXPECT_EQ(v[1].kind(), kind::uint64);
    EXPECT_EQ(v[1].get_uint(), 18446744073709551615u);
    EXPECT_EQ(v[2].get_int(), std::numeric_limits<std::int64_t>::min());
    EXPECT_EQ(v[3].kind(), kind::bignum);
    EXPECT_EQ(v[3].get_string(), "-123456789012345678901234567890");
    EXPECT_EQ(v[4].get_string(), std::string_view("\x00\xff", 2));
    EXPECT_EQ(v[5].get_timestamp_kind(), timestamp_kind::offset_date_time);
    EXPECT_EQ(v[6].get_timestamp_kind(), timestamp_kind::local_time);
    EXPECT_EQ(v[7].kind(), kind::tagged);
    EXPECT_EQ(v[7].tag(), 32u);
    EXPECT_EQ(v[7].tagged_value().get_string(), "http://x");
    EXPECT_EQ(v[8].kind(), kind::boolean_false);
}

TEST(Document, NestedTagsCountOnceInTheirParent) {
    document d;
    builder b(d);
    b.begin_array();
    b.begin_tagged(1);
    b.begin_tagged(2);
    b.begin_array();
    b.add_int(1);
    b.end_array();
    b.add_int(9);
    b.end_array();
    ASSERT_EQ(b.depth(), 0u);
    EXPECT_EQ(d.root().size(), 2u);
    EXPECT_EQ(to_debug_string(d.root()), "[tag(1, tag(2, [1])),9]");
}

TEST(Document, DepthLimitStopsBuilding) {
    document d;
    builder b(d, build_limits{3, 1 << 20});
    EXPECT_TRUE(b.begin_array());
    EXPECT_TRUE(b.begin_array());
    EXPECT_TRUE(b.begin_array());
    EXPECT_FALSE(b.begin_array());
    EXPECT_EQ(b.status(), errc::depth_exceeded);
}

TEST(Document, SizeBudgetIsEnforced) {
    document d;
    builder b(d, build_limits{512, 1000});
    b.begin_array();
    b.add_string(std::string(5000, 'x'));
    EXPECT_EQ(b.status(), errc::size_exceeded);
    EXPECT_FALSE(b.begin_array());
}

TEST(Document, ReuseKeepsCapacityAndNeedsNoAllocation) {
    document d;
    {
        builder b(d);
        build_sample(b);
    }
    auto cap = d.tape().capacity();
    builder b(d);
    b.reset();
    EXPECT_TRUE(d.empty());
    build_sample(b);
    EXPECT_EQ(d.tape().capacity(), cap);
}

TEST(Document, PointerToNamesEveryLevel) {
    document d;
    builder b(d);
    build_sample(b);
    value root = d.root();
    value x = *std::next(root.find("a").items().begin());
    EXPECT_EQ(d.pointer_to(x.index()), "/a/1");
    value c = root.find("b").find("c");
    EXPECT_EQ(d.pointer_to(c.index()), "/b/c");
    EXPECT_EQ(d.pointer_to(0), "");
    // Integer keys appear as decimal text.
    value last;
    for (auto [k, v] : root.entries()) {
        last = v;
    }
    EXPECT_EQ(d.pointer_to(last.index()), "/7");
}

TEST(Document, PointerEscapesTildeAndSlash) {
    document d;
    builder b(d);
    b.begin_map();
    b.add_string("a/b~c");
    b.add_null();
    b.end_map();
    EXPECT_EQ(d.pointer_to(d.root().find("a/b~c").index()), "/a~1b~0c");
}

TEST(Document, CurrentPathFollowsOpenContainers) {
    document d;
    builder b(d);
    b.begin_map();
    b.add_string("items");
    b.begin_array();
    b.add_int(1);
    b.add_int(2);
    b.begin_map();
    b.add_string("price");
    EXPECT_EQ(b.current_path(), "/items/2/price");
    b.add_int(3);
    EXPECT_EQ(b.current_path(), "/items/2");
}

TEST(Document, CurrentPathInsideACompoundKeyNamesTheMap) {
    document d;
    builder b(d);
    b.begin_map();
    b.add_string("m");
    b.begin_map();
    b.begin_array();  // a key that is an array (YAML, CBOR, MessagePack allow them)
    b.add_int(1);
    EXPECT_EQ(b.current_path(), "/m");
}

TEST(Document, CopyRelocatesPayloadsAndEnds) {
    document src;
    {
        builder b(src);
        build_sample(b);
    }
    document dst;
    builder b(dst);
    b.begin_array();
    b.add_string("before");
    ASSERT_TRUE(b.add_copy(src.root()));
    ASSERT_TRUE(b.add_copy(src.root().find("a")));
    b.end_array();
    EXPECT_EQ(to_debug_string(dst.root()),
              R"(["before",{"a":[1,"x",null],"b":{"c":true},7:2.5},[1,"x",null]])");
}

TEST(Document, EqualityIsDeep) {
    document a;
    document b;
    {
        builder ba(a);
        build_sample(ba);
        builder bb(b);
        build_sample(bb);
    }
    EXPECT_TRUE(equal(a, b));
    document c;
    builder bc(c);
    bc.begin_map();
    bc.add_string("a");
    bc.add_int(1);
    bc.end_map();
    EXPECT_FALSE(equal(a, c));
    // Floats compare bit for bit: 1.0 is not the integer 1, NaN equals NaN.
    document f1;
    document f2;
    builder b1(f1);
    builder b2(f2);
    b1.add_double(1.0);
    b2.add_int(1);
    EXPECT_FALSE(equal(f1, f2));
    b1.reset();
    b2.reset();
    b1.add_double(std::numeric_limits<double>::quiet_NaN());
    b2.add_double(std::numeric_limits<double>::quiet_NaN());
    EXPECT_TRUE(equal(f1, f2));
}

// A worker's document after a large request gives its memory back; a small one keeps it.
TEST(Document, ShrinkGivesBackBuffersOverTheMark) {
    document doc;
    {
        builder b(doc);
        b.begin_array();
        for (int i = 0; i < 100000; ++i) {  // 2 tape words each: 1.6 MB of tape
            b.add_int(i);
        }
        b.add_string(std::string(300000, 'x'));  // 300 kB of payload bytes
        b.end_array();
        ASSERT_EQ(b.status(), errc::ok);
    }
    ASSERT_GE(doc.tape().capacity() * 8, 1600000u);
    ASSERT_GE(doc.bytes().capacity(), 300000u);
    // Keep 1 MB: the tape (over) goes, the payload bytes (under) stay for reuse.
    doc.shrink(1000000);
    EXPECT_TRUE(doc.empty());
    EXPECT_EQ(doc.bytes().size(), 0u);
    EXPECT_EQ(doc.tape().capacity(), 0u);
    EXPECT_GE(doc.bytes().capacity(), 300000u);
    // Keep 64 kB: everything goes.
    doc.shrink(65536);
    EXPECT_LE(doc.capacity_bytes(), 65536u);
    EXPECT_EQ(doc.bytes().capacity() < 300000u, true);
    // The document is usable again afterwards.
    builder b(doc);
    b.begin_array();
    b.add_int(7);
    b.end_array();
    ASSERT_EQ(b.status(), errc::ok);
    EXPECT_EQ((*doc.root().items().begin()).get_int(), 7);
    // A small document keeps its buffers (steady traffic allocates nothing).
    std::size_t cap = doc.capacity_bytes();
    ASSERT_GT(cap, 0u);
    doc.shrink(4u << 20);
    EXPECT_EQ(doc.capacity_bytes(), cap);
    EXPECT_TRUE(doc.empty());
}

TEST(OutputBuffer, ShrinkFreesOnlyAboveTheMark) {
    output_buffer out;
    out.append(std::string(5000, 'a'));
    std::size_t cap = out.capacity();
    ASSERT_GE(cap, 5000u);
    out.shrink(cap);  // at the mark: kept, emptied
    EXPECT_EQ(out.size(), 0u);
    EXPECT_EQ(out.capacity(), cap);
    out.append(std::string(5000, 'b'));
    out.shrink(4096);  // over the mark: freed
    EXPECT_EQ(out.size(), 0u);
    EXPECT_EQ(out.capacity(), 0u);
    out.append("xy");
    EXPECT_EQ(out.view(), "xy");
}

// The int_width hint (issue 19): recorded in the aux byte, never part of the value, carried by
// every copy of the tape.
TEST(Document, IntWidthHintIsCarriedAndIgnoredByEquality) {
    document d;
    builder b(d);
    b.begin_array();
    b.add_int(1, int_width::bits64);
    b.add_uint(std::numeric_limits<std::uint64_t>::max(), int_width::bits64);
    b.add_int(-2, int_width::bits32);
    b.add_int(3);
    b.add_uint(9, int_width::bits16);
    b.begin_map();
    b.add_string("k");
    b.add_int(4, int_width::bits8);
    b.end_map();
    b.end_array();
    std::vector<value> items(d.root().items().begin(), d.root().items().end());
    ASSERT_EQ(items.size(), 6u);
    EXPECT_EQ(items[0].get_int(), 1);
    EXPECT_EQ(items[0].int_width(), int_width::bits64);
    EXPECT_EQ(items[1].kind(), kind::uint64);
    EXPECT_EQ(items[1].int_width(), int_width::bits64);
    EXPECT_EQ(items[2].get_int(), -2);
    EXPECT_EQ(items[2].int_width(), int_width::bits32);
    EXPECT_EQ(items[3].int_width(), int_width::unknown);
    EXPECT_EQ(items[4].get_int(), 9);  // a small uint is an int, keeping its hint
    EXPECT_EQ(items[4].int_width(), int_width::bits16);
    EXPECT_EQ(d.root().int_width(), int_width::unknown);  // not an integer

    // Equality compares values only.
    document plain;
    builder pb(plain);
    pb.begin_array();
    pb.add_int(1);
    pb.add_uint(std::numeric_limits<std::uint64_t>::max());
    pb.add_int(-2);
    pb.add_int(3);
    pb.add_int(9);
    pb.begin_map();
    pb.add_string("k");
    pb.add_int(4);
    pb.end_map();
    pb.end_array();
    EXPECT_TRUE(equal(d, plain));

    // add_copy keeps the hints.
    document copy;
    builder cb(copy);
    cb.begin_array();
    ASSERT_TRUE(cb.add_copy(items[5]));
    ASSERT_TRUE(cb.add_copy(items[0]));
    cb.end_array();
    EXPECT_EQ((*copy.root().items().begin()).find("k").int_width(), int_width::bits8);
    EXPECT_EQ((*std::next(copy.root().items().begin())).int_width(), int_width::bits64);

    // keep_subtree (stream mode) keeps them too.
    detail::tape_access::keep_subtree(d, items[5].index());
    EXPECT_EQ(d.root().find("k").get_int(), 4);
    EXPECT_EQ(d.root().find("k").int_width(), int_width::bits8);
}

}  // namespace
}  // namespace polycodec
