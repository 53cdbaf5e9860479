// Stream mode (DESIGN section 12): record framers under every chunking, stream vs
// whole-document output for every pair of stream formats, and the error rules.
#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "support/support.hpp"

namespace polycodec::test {
namespace {

struct read_result {
    std::vector<document> records;
    std::optional<error> err;
};

// Feeds `in` in the pieces that the sorted offsets `cuts` make and collects every record.
read_result read_records(format_id f, std::string_view in, const std::vector<std::size_t>& cuts,
                         const decode_options& opt = {},
                         std::size_t max_record = default_max_record) {
    read_result out;
    record_reader reader(f, opt, max_record);
    std::size_t at = 0;
    std::size_t next_cut = 0;
    document rec;
    for (;;) {
        auto s = reader.next(rec);
        if (!s) {
            out.err = s.error();
            return out;
        }
        if (*s == record_reader::step::end) {
            return out;
        }
        if (*s == record_reader::step::record) {
            out.records.emplace_back();
            builder b(out.records.back());
            b.add_copy(rec.root());
            continue;
        }
        if (at == in.size()) {
            reader.finish();
            continue;
        }
        std::size_t to = next_cut < cuts.size() ? cuts[next_cut++] : in.size();
        to = std::clamp(to, at, in.size());
        reader.feed(in.substr(at, to - at));
        at = to;
    }
}

read_result read_whole(format_id f, std::string_view in, const decode_options& opt = {}) {
    return read_records(f, in, {}, opt);
}

// The elements of a whole-document array as documents of their own.
std::vector<document> elements(const document& whole) {
    std::vector<document> out;
    for (value v : whole.root().items()) {
        out.emplace_back();
        builder b(out.back());
        b.add_copy(v);
    }
    return out;
}

document array_of(const std::vector<document>& recs, std::size_t n = SIZE_MAX) {
    document d;
    builder b(d);
    b.begin_array();
    for (std::size_t i = 0; i < recs.size() && i < n; ++i) {
        b.add_copy(recs[i].root());
    }
    b.end_array();
    return d;
}

void expect_same_records(const std::vector<document>& want, const read_result& got,
                         const std::string& what) {
    ASSERT_FALSE(got.err) << what << ": " << describe(*got.err);
    ASSERT_EQ(want.size(), got.records.size()) << what;
    for (std::size_t i = 0; i < want.size(); ++i) {
        ASSERT_TRUE(equal(want[i], got.records[i]))
            << what << ": record " << i << ": want " << dbg(want[i]) << ", got "
            << dbg(got.records[i]);
    }
}

// ---- the fixtures in every record framing ----

// records.json with a record holding every column first, so that the CSV header of stream mode
// (from the first record) is the whole table's (the union of all columns).
std::vector<document> fixture_records() {
    document whole = must_decode(format_id::json, read_file(fixtures_dir() / "records.json"));
    std::vector<document> recs = elements(whole);
    std::size_t widest = 0;
    for (std::size_t i = 0; i < recs.size(); ++i) {
        if (recs[i].root().find("tags").size() > recs[widest].root().find("tags").size()) {
            widest = i;
        }
    }
    std::rotate(recs.begin(), recs.begin() + static_cast<std::ptrdiff_t>(widest),
                recs.begin() + static_cast<std::ptrdiff_t>(widest) + 1);
    return recs;
}

struct form {
    std::string name;
    format_id fmt;
    decode_options opt;
    std::string bytes;
    std::vector<document> want;  // what its records decode to
};

std::string concat_each(format_id f, const std::vector<document>& recs, std::size_t n,
                        std::string_view before = {}, std::string_view after = {}) {
    std::string out;
    for (std::size_t i = 0; i < recs.size() && i < n; ++i) {
        out += before;
        out += must_encode(f, recs[i]);
        out += after;
    }
    return out;
}

// Skips a CBOR or MessagePack array header.
std::string without_array_header(std::string_view bytes, bool cbor) {
    auto b = static_cast<unsigned char>(bytes[0]);
    std::size_t h = 1;
    if (cbor) {
        unsigned ai = b & 31;
        h = ai < 24 ? 1 : 1 + (std::size_t{1} << (ai - 24));
    } else {
        h = b == 0xdc ? 3 : b == 0xdd ? 5 : 1;
    }
    return std::string(bytes.substr(h));
}

std::vector<form> forms(std::size_t n) {
    std::vector<document> all = fixture_records();
    std::vector<document> recs(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n));
    document arr = array_of(recs);
    std::vector<form> out;
    auto add = [&](std::string name, format_id f, std::string bytes, decode_options opt = {}) {
        form fm{std::move(name), f, opt, std::move(bytes), {}};
        // What the whole-document decoder reads from the same bytes, where it can.
        out.push_back(std::move(fm));
    };
    encode_options pretty;
    pretty.pretty = true;
    add("json", format_id::json, must_encode(format_id::json, arr));
    add("json pretty", format_id::json, must_encode(format_id::json, arr, pretty));
    decode_options seq;
    seq.seq = true;
    add("json-seq", format_id::json, concat_each(format_id::json, recs, n, "\x1e", "\n"), seq);
    add("ndjson", format_id::ndjson, must_encode(format_id::ndjson, arr));
    add("csv", format_id::csv, must_encode(format_id::csv, arr));
    add("yaml", format_id::yaml, must_encode(format_id::yaml, arr));
    decode_options multi;
    multi.multi = true;
    add("yaml multi", format_id::yaml, concat_each(format_id::yaml, recs, n, "---\n"), multi);
    std::string cbor = must_encode(format_id::cbor, arr);
    add("cbor", format_id::cbor, cbor);
    add("cbor indefinite", format_id::cbor, "\x9f" + without_array_header(cbor, true) + "\xff");
    add("cbor-seq", format_id::cbor, without_array_header(cbor, true), seq);
    std::string mp = must_encode(format_id::msgpack, arr);
    add("msgpack", format_id::msgpack, mp);
    add("msgpack concatenated", format_id::msgpack, without_array_header(mp, false), seq);
    add("bson", format_id::bson, concat_each(format_id::bson, recs, n));
    for (form& f : out) {
        if (f.name == "csv") {
            // CSV reads strings back (no infer): the whole-document read of the same text.
            f.want = elements(must_decode(format_id::csv, f.bytes));
        } else if (f.name == "yaml multi") {
            f.want = elements(must_decode(format_id::yaml, f.bytes, multi));
        } else {
            f.want = recs;
        }
    }
    return out;
}

// ---- chunk boundaries ----

TEST(Stream, EveryFormFramesEveryTwoChunkSplit) {
    for (const form& f : forms(5)) {
        expect_same_records(f.want, read_whole(f.fmt, f.bytes, f.opt), f.name + " whole");
        for (std::size_t cut = 0; cut <= f.bytes.size(); ++cut) {
            read_result r = read_records(f.fmt, f.bytes, {cut}, f.opt);
            expect_same_records(f.want, r, f.name + " split at " + std::to_string(cut));
            if (HasFatalFailure()) {
                return;
            }
        }
    }
}

TEST(Stream, EveryFormFramesOneByteAtATime) {
    for (const form& f : forms(5)) {
        std::vector<std::size_t> cuts(f.bytes.size());
        for (std::size_t i = 0; i < cuts.size(); ++i) {
            cuts[i] = i + 1;
        }
        expect_same_records(f.want, read_records(f.fmt, f.bytes, cuts, f.opt), f.name);
    }
}

TEST(Stream, ThousandRandomChunkingsOfLargerInputs) {
    std::mt19937_64 rng(20261201);
    for (const form& f : forms(24)) {
        for (int round = 0; round < 1000; ++round) {
            std::vector<std::size_t> cuts;
            std::size_t pieces = 1 + rng() % 8;
            for (std::size_t i = 0; i < pieces; ++i) {
                cuts.push_back(rng() % (f.bytes.size() + 1));
            }
            std::sort(cuts.begin(), cuts.end());
            expect_same_records(f.want, read_records(f.fmt, f.bytes, cuts, f.opt),
                                f.name + " round " + std::to_string(round));
            if (HasFatalFailure()) {
                return;
            }
        }
    }
}

TEST(Stream, AllFixtureRecordsInSmallChunks) {
    std::mt19937_64 rng(7);
    for (const form& f : forms(256)) {
        std::vector<std::size_t> cuts;
        for (std::size_t at = 0; at < f.bytes.size(); at += 1 + rng() % 2048) {
            cuts.push_back(at);
        }
        expect_same_records(f.want, read_records(f.fmt, f.bytes, cuts, f.opt), f.name);
    }
}

TEST(Stream, RecordsEqualTheWholeDocumentDecode) {
    // The array framings are whole documents too: the whole decoder is the reference.
    for (const form& f : forms(256)) {
        if (f.opt.seq || f.name == "bson" || f.name == "yaml multi") {
            continue;
        }
        document whole = must_decode(f.fmt, f.bytes, f.opt);
        expect_same_records(elements(whole), read_whole(f.fmt, f.bytes, f.opt), f.name);
    }
}

TEST(Stream, DeclaredCountOfBinaryArrays) {
    for (const form& f : forms(24)) {
        record_reader reader(f.fmt, f.opt);
        reader.feed(f.bytes);
        reader.finish();
        document rec;
        ASSERT_TRUE(reader.next(rec));
        bool counted = f.name == "cbor" || f.name == "msgpack";
        EXPECT_EQ(counted, reader.declared_count().has_value()) << f.name;
        if (counted) {
            EXPECT_EQ(24u, *reader.declared_count()) << f.name;
        }
    }
}

// ---- the writer: stream output vs whole-document output, every pair ----

struct stream_out {
    std::string bytes;
    bool concatenated = false;
};

stream_out convert_stream(const form& in, format_id to, const encode_options& eopt,
                          std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    record_reader reader(in.fmt, in.opt);
    record_writer writer(to, eopt);
    output_buffer out;
    document rec;
    std::size_t at = 0;
    bool began = false;
    for (;;) {
        auto s = reader.next(rec);
        EXPECT_TRUE(s) << in.name << " -> " << find_format(to)->name << ": "
                       << (s ? "" : describe(s.error()));
        if (!s || *s == record_reader::step::end) {
            break;
        }
        if (*s == record_reader::step::need_input) {
            if (at == in.bytes.size()) {
                reader.finish();
                continue;
            }
            std::size_t n = std::min<std::size_t>(1 + rng() % 700, in.bytes.size() - at);
            reader.feed(std::string_view(in.bytes).substr(at, n));
            at += n;
            continue;
        }
        if (!began) {
            EXPECT_TRUE(writer.begin(out, reader.declared_count()));
            began = true;
        }
        auto w = writer.write(rec, out);
        EXPECT_TRUE(w) << in.name << " -> " << find_format(to)->name << ": "
                       << (w ? "" : describe(w.error()));
        if (!w) {
            break;
        }
    }
    if (!began) {
        EXPECT_TRUE(writer.begin(out, reader.declared_count()));
    }
    EXPECT_TRUE(writer.end(out));
    return {out.str(), writer.concatenated()};
}

TEST(Stream, EveryPairMatchesTheWholeDocumentConversion) {
    const format_id outs[] = {format_id::json,  format_id::ndjson,  format_id::csv,
                              format_id::yaml,  format_id::cbor,    format_id::msgpack,
                              format_id::bson};
    std::uint64_t seed = 1;
    for (const form& in : forms(40)) {
        document whole = array_of(in.want);
        for (format_id to : outs) {
            std::string what = in.name + " -> " + std::string(find_format(to)->name);
            for (bool pretty : {false, true}) {
                encode_options eopt;
                eopt.pretty = pretty;
                stream_out got = convert_stream(in, to, eopt, seed++);
                std::string want;
                switch (to) {
                    case format_id::bson:
                        want = concat_each(format_id::bson, in.want, SIZE_MAX);
                        break;
                    case format_id::cbor:
                        // An indefinite-length array of the same items.
                        want = "\x9f" + concat_each(format_id::cbor, in.want, SIZE_MAX) + "\xff";
                        break;
                    case format_id::msgpack:
                        if (got.concatenated) {
                            want = concat_each(format_id::msgpack, in.want, SIZE_MAX);
                            EXPECT_FALSE(in.name == "msgpack" || in.name == "cbor") << what;
                        } else {
                            want = must_encode(format_id::msgpack, whole);
                        }
                        break;
                    default:
                        want = must_encode(to, whole, eopt);
                        break;
                }
                ASSERT_EQ(to_hex(want.substr(0, 64)), to_hex(got.bytes.substr(0, 64)))
                    << what << (pretty ? " pretty" : "");
                ASSERT_EQ(want, got.bytes) << what << (pretty ? " pretty" : "");
                if (to != format_id::bson && to != format_id::csv &&
                    !(to == format_id::msgpack && got.concatenated)) {
                    // And it decodes, whole, to the same value.
                    EXPECT_TRUE(equal(whole, must_decode(to, got.bytes))) << what;
                }
            }
        }
    }
}

TEST(Stream, EmptyStreams) {
    struct {
        format_id to;
        std::string want;
    } cases[] = {
        {format_id::json, "[]"},         {format_id::ndjson, ""},
        {format_id::csv, ""},            {format_id::yaml, "[]\n"},
        {format_id::cbor, "\x9f\xff"},   {format_id::bson, ""},
    };
    for (auto& c : cases) {
        record_writer w(c.to, {});
        output_buffer out;
        ASSERT_TRUE(w.begin(out));
        ASSERT_TRUE(w.end(out));
        EXPECT_EQ(c.want, out.str()) << find_format(c.to)->name;
        if (c.to != format_id::cbor && c.to != format_id::bson) {
            // The whole-document encoding of an empty array, byte for byte.
            EXPECT_EQ(must_encode(c.to, must_decode(format_id::json, "[]")), out.str())
                << find_format(c.to)->name;
        }
    }
    read_result r = read_whole(format_id::json, "  [ ]  ");
    EXPECT_FALSE(r.err);
    EXPECT_TRUE(r.records.empty());
    EXPECT_TRUE(read_whole(format_id::ndjson, "\n \n").records.empty());
}

TEST(Stream, MsgpackCountAndBackpatch) {
    document rec = must_decode(format_id::json, R"({"a":1})");
    {
        record_writer w(format_id::msgpack, {});
        output_buffer out;
        ASSERT_TRUE(w.begin(out, 2));
        ASSERT_TRUE(w.write(rec, out));
        ASSERT_TRUE(w.write(rec, out));
        ASSERT_TRUE(w.end(out));
        EXPECT_FALSE(w.concatenated());
        EXPECT_EQ("92 81 a1 61 01 81 a1 61 01", to_hex(out.view()));
    }
    {
        record_writer w(format_id::msgpack, {});
        output_buffer out;
        ASSERT_TRUE(w.begin(out, std::nullopt, true));
        ASSERT_TRUE(w.write(rec, out));
        ASSERT_TRUE(w.end(out));
        auto p = w.count_patch();
        ASSERT_TRUE(p);
        EXPECT_EQ(1u, p->at);
        std::string bytes = out.str();
        bytes.replace(p->at, 4, reinterpret_cast<const char*>(p->bytes), 4);
        EXPECT_EQ("dd 00 00 00 01 81 a1 61 01", to_hex(bytes));
    }
    {
        record_writer w(format_id::msgpack, {});
        output_buffer out;
        ASSERT_TRUE(w.begin(out));
        ASSERT_TRUE(w.write(rec, out));
        ASSERT_TRUE(w.end(out));
        EXPECT_TRUE(w.concatenated());
        EXPECT_EQ("81 a1 61 01", to_hex(out.view()));
    }
}

TEST(Stream, CsvHeaderComesFromTheFirstRecord) {
    record_writer w(format_id::csv, {});
    output_buffer out;
    ASSERT_TRUE(w.begin(out));
    ASSERT_TRUE(w.write(must_decode(format_id::json, R"({"a":1,"b":{"c":[1,2]}})"), out));
    ASSERT_TRUE(w.write(must_decode(format_id::json, R"({"b":{"c":[3]},"a":2})"), out));
    EXPECT_EQ("a,b.c.0,b.c.1\r\n1,1,2\r\n2,3,\r\n", out.str());
    auto r = w.write(must_decode(format_id::json, R"({"a":3,"d":4})"), out);
    ASSERT_FALSE(r);
    EXPECT_EQ(errc::unrepresentable, r.error().code);
    EXPECT_EQ("/2/d", r.error().path);
    EXPECT_NE(std::string::npos, r.error().message.find("record 2: column d is not in the header"))
        << r.error().message;
}

// ---- errors (DESIGN section 12) ----

TEST(Stream, InvalidBytesInRecordTenThousand) {
    std::string in;
    for (int i = 0; i < 10000; ++i) {
        in += R"({"i":)" + std::to_string(i) + "}\n";
    }
    std::size_t at = in.size();
    in += "{\"s\":\"ab\xff\"}\n{\"i\":1}\n";
    std::vector<std::size_t> cuts;
    for (std::size_t c = 4096; c < in.size(); c += 4096) {
        cuts.push_back(c);
    }
    read_result r = read_records(format_id::ndjson, in, cuts);
    ASSERT_TRUE(r.err);
    EXPECT_EQ(10000u, r.records.size());
    EXPECT_EQ(errc::invalid_utf8, r.err->code);
    EXPECT_EQ(format_id::ndjson, r.err->format);
    EXPECT_EQ(at + 8, r.err->offset) << describe(*r.err);
    EXPECT_EQ(10001u, r.err->line);
    EXPECT_EQ(9u, r.err->column);
    EXPECT_EQ("record 10000: ", r.err->message.substr(0, 14));
    EXPECT_EQ("/10000/s", r.err->path);
}

TEST(Stream, TruncatedLastRecord) {
    read_result a = read_records(format_id::json, R"([{"a":1},{"a":[2,)", {5, 11});
    ASSERT_TRUE(a.err);
    EXPECT_EQ(1u, a.records.size());
    EXPECT_EQ(errc::unexpected_eof, a.err->code);
    EXPECT_EQ(17u, a.err->offset);
    EXPECT_EQ("/1/a/1", a.err->path);

    read_result b = read_records(format_id::json, R"([{"a":1},{"a":2})", {3});
    ASSERT_TRUE(b.err);
    EXPECT_EQ(2u, b.records.size());
    EXPECT_EQ(errc::unexpected_eof, b.err->code);

    std::string mp = hex("92 81 a1 61 01 81 a1 61");  // the second map lacks its value
    read_result c = read_records(format_id::msgpack, mp, {4});
    ASSERT_TRUE(c.err);
    EXPECT_EQ(1u, c.records.size());
    EXPECT_EQ("/1", c.err->path.substr(0, 2));

    std::string bson = hex("0c000000 10 6100 01000000 00") + hex("0c000000 10 6100");
    read_result d = read_records(format_id::bson, bson, {});
    ASSERT_TRUE(d.err);
    EXPECT_EQ(1u, d.records.size());

    read_result e = read_records(format_id::ndjson, "{\"a\":1}\n{\"a\":", {});
    ASSERT_TRUE(e.err);
    EXPECT_EQ(1u, e.records.size());
    EXPECT_EQ(2u, e.err->line);
}

TEST(Stream, RecordOverMaxRecord) {
    std::string in = "{\"a\":1}\n{\"s\":\"" + std::string(3000, 'x') + "\"}\n{\"a\":2}\n";
    read_result whole = read_records(format_id::ndjson, in, {}, {}, 1000);
    ASSERT_TRUE(whole.err);
    EXPECT_EQ(errc::size_exceeded, whole.err->code);
    EXPECT_EQ(8u, whole.err->offset);
    EXPECT_EQ(1u, whole.records.size());
    EXPECT_NE(std::string::npos, whole.err->message.find("record 1: "));
    EXPECT_NE(std::string::npos, whole.err->message.find("--max-record"));
    // Arriving slowly: refused once more than the limit is held, without waiting for its end.
    record_reader reader(format_id::ndjson, {}, 1000);
    document rec;
    reader.feed(in.substr(0, 8));
    ASSERT_EQ(record_reader::step::record, *reader.next(rec));
    std::size_t at = 8;
    bool refused = false;
    while (at < in.size()) {
        reader.feed(in.substr(at, 100));
        at += 100;
        auto s = reader.next(rec);
        if (!s) {
            EXPECT_EQ(errc::size_exceeded, s.error().code);
            refused = true;
            break;
        }
        EXPECT_LE(reader.buffered(), 1100u);
    }
    EXPECT_TRUE(refused);
    EXPECT_LT(at, 1200u);
}

TEST(Stream, FramingErrors) {
    read_result obj = read_whole(format_id::json, R"({"a":1})");
    ASSERT_TRUE(obj.err);
    EXPECT_NE(std::string::npos, obj.err->message.find("top-level array")) << obj.err->message;
    read_result trailing = read_whole(format_id::json, "[1] 2");
    ASSERT_TRUE(trailing.err);
    EXPECT_EQ(errc::trailing_content, trailing.err->code);
    EXPECT_EQ(4u, trailing.err->offset);
    read_result bad_sep = read_whole(format_id::json, "[1 2]");
    ASSERT_TRUE(bad_sep.err);
    EXPECT_EQ(3u, bad_sep.err->offset);
    read_result bom = read_whole(format_id::ndjson, "\xEF\xBB\xBF{}\n");
    ASSERT_TRUE(bom.err);
    EXPECT_EQ(errc::unexpected_char, bom.err->code);
    read_result mp_trailing = read_whole(format_id::msgpack, hex("91 01 02"));
    ASSERT_TRUE(mp_trailing.err);
    EXPECT_EQ(errc::trailing_content, mp_trailing.err->code);
    EXPECT_EQ(2u, mp_trailing.err->offset);
    read_result bson_len = read_whole(format_id::bson, hex("02000000 00"));
    ASSERT_TRUE(bson_len.err);
    EXPECT_EQ(errc::malformed, bson_len.err->code);
    read_result yaml_map = read_whole(format_id::yaml, "a: 1\nb: 2\n");
    ASSERT_TRUE(yaml_map.err);
    EXPECT_NE(std::string::npos, yaml_map.err->message.find("top-level sequence"));
    read_result yaml_second = read_whole(format_id::yaml, "- 1\n---\n- 2\n");
    ASSERT_TRUE(yaml_second.err);
    EXPECT_NE(std::string::npos, yaml_second.err->message.find("multi=true"));
    // An alias refers to an anchor of its own record only.
    read_result alias = read_whole(format_id::yaml, "- &x 1\n- *x\n");
    ASSERT_TRUE(alias.err);
    EXPECT_EQ("/1", alias.err->path.substr(0, 2));
    read_result ragged = read_whole(format_id::csv, "a,b\n1,2\n3\n");
    ASSERT_TRUE(ragged.err);
    EXPECT_EQ("/1", ragged.err->path.substr(0, 2));
    EXPECT_EQ(3u, ragged.err->line);
}

TEST(Stream, CsvOneColumnHeaderEndingAtAChunkEnd) {
    // fuzz_stream found it: a header line whose line end was the last byte of the buffer got a
    // second line end in the prefix, so in a one-column table (where a blank line is a row)
    // every later row decoded as two records and failed. Every cut must give the whole read.
    const std::string in = "abc\nx\ny";  // a header of 3 bytes: the BOM check waits for 3
    read_result whole = read_whole(format_id::csv, in);
    ASSERT_FALSE(whole.err);
    ASSERT_EQ(2u, whole.records.size());
    EXPECT_EQ(R"({"abc":"x"})", to_debug_string(whole.records[0].root()));
    EXPECT_EQ(R"({"abc":"y"})", to_debug_string(whole.records[1].root()));
    for (std::size_t c = 1; c < in.size(); ++c) {
        read_result cut = read_records(format_id::csv, in, {c});
        ASSERT_FALSE(cut.err) << "cut at " << c << ": " << cut.err->message;
        expect_same_records(whole.records, cut, "cut at " + std::to_string(c));
    }
}

TEST(Stream, YamlFlowCommentAcrossAChunkEnd) {
    // fuzz_stream found it: a comment inside a flow sequence's element whose line end had not
    // arrived yet was scanned again from the chunk's end as content on the next chunk, so the
    // ',' or ']' in its rest ended the element (other records, or an error at another offset).
    const std::string in = "[a, # x, y]\n b]";
    read_result whole = read_whole(format_id::yaml, in);
    ASSERT_FALSE(whole.err) << whole.err->message;
    ASSERT_EQ(2u, whole.records.size());
    EXPECT_EQ(R"("a")", to_debug_string(whole.records[0].root()));
    EXPECT_EQ(R"("b")", to_debug_string(whole.records[1].root()));
    for (std::size_t c = 1; c < in.size(); ++c) {
        read_result cut = read_records(format_id::yaml, in, {c});
        ASSERT_FALSE(cut.err) << "cut at " << c << ": " << cut.err->message;
        expect_same_records(whole.records, cut, "cut at " + std::to_string(c));
    }
    // Unclosed, the comment running to the end of the input: one error, at one offset.
    const std::string open = "[a, b # ], c";
    read_result bad = read_whole(format_id::yaml, open);
    ASSERT_TRUE(bad.err);
    EXPECT_EQ(errc::unexpected_eof, bad.err->code) << bad.err->message;
    for (std::size_t c = 1; c < open.size(); ++c) {
        read_result cut = read_records(format_id::yaml, open, {c});
        ASSERT_TRUE(cut.err) << "cut at " << c;
        EXPECT_EQ(bad.err->code, cut.err->code) << "cut at " << c;
        EXPECT_EQ(bad.err->offset, cut.err->offset) << "cut at " << c;
    }
}

TEST(Stream, YamlMultiDocumentMarkerLineEndingInALaterChunk) {
    // fuzz_stream found it: with multi=true, a "---" line whose line end had not arrived set the
    // framer's "a document has started" state, and the same line, scanned again once complete,
    // then ended that document at its own start: an empty record (null) before every such line
    // cut, so a stream read in pieces had more records than the whole read.
    decode_options multi;
    multi.multi = true;
    const std::string in = "--- a\n--- b";  // the last line without a line end: read at eof
    read_result whole = read_whole(format_id::yaml, in, multi);
    ASSERT_FALSE(whole.err) << whole.err->message;
    ASSERT_EQ(2u, whole.records.size());
    EXPECT_EQ(R"("a")", to_debug_string(whole.records[0].root()));
    EXPECT_EQ(R"("b")", to_debug_string(whole.records[1].root()));
    for (std::size_t c = 1; c < in.size(); ++c) {
        read_result cut = read_records(format_id::yaml, in, {c}, multi);
        ASSERT_FALSE(cut.err) << "cut at " << c << ": " << cut.err->message;
        expect_same_records(whole.records, cut, "cut at " + std::to_string(c));
    }
}

TEST(Stream, NotStreamable) {
    EXPECT_TRUE(is_streamable(format_id::ndjson));
    EXPECT_FALSE(is_streamable(format_id::toml));
    record_reader reader(format_id::toml, {});
    document rec;
    auto s = reader.next(rec);
    ASSERT_FALSE(s);
    EXPECT_NE(std::string::npos, s.error().message.find("not streamable"));
    record_writer writer(format_id::pickle, {});
    output_buffer out;
    ASSERT_FALSE(writer.begin(out));
}

TEST(Stream, JsonArrayStringsWithQuotesAndBackslashesAtEveryOffset) {
    // The element scan looks for '"' and '\\' eight bytes at a time, and skips to the next
    // structural byte outside strings: escapes, brackets and commas inside strings at every
    // position of an 8-byte word, UTF-8, and every cut of the input.
    std::string in = "[";
    for (int k = 0; k < 20; ++k) {
        std::string s(static_cast<std::size_t>(k), 'x');
        in += std::string(k == 0 ? "" : ",") + R"({"s":")" + s + R"(\"q\\b],{}","t":")" + s +
              "\u00e9\xce\xb1" + s + R"(","n":[)" + std::to_string(k) + R"(,{"a":"]"}]})";
    }
    in += "]";
    read_result whole = read_whole(format_id::json, in);
    document want_doc;
    ASSERT_TRUE(decode(format_id::json, in, want_doc));
    std::vector<document> want = elements(want_doc);
    ASSERT_EQ(20u, want.size());
    expect_same_records(want, whole, "whole");
    for (std::size_t c = 1; c < in.size(); ++c) {
        expect_same_records(want, read_records(format_id::json, in, {c}), "cut at " +
                                                                              std::to_string(c));
    }
}

TEST(Stream, ColumnsCountCodePointsOnOneLongLine) {
    // A single-line array: the column counts code points from the line's start (two-byte and
    // three-byte characters count one each), across records and chunks.
    std::string in = "[";
    for (int k = 0; k < 40; ++k) {
        in += "{\"c\":\"\xce\xb1\xe2\x82\xac" "z\"},";  // 3 code points in 6 bytes
    }
    std::size_t at = in.size() + 5;  // the 't'
    in += R"({"a":tru}])";
    std::uint64_t cps = 0;
    for (std::size_t i = 0; i < at; ++i) {
        cps += (static_cast<unsigned char>(in[i]) & 0xC0) != 0x80;
    }
    for (std::vector<std::size_t> cuts : {std::vector<std::size_t>{}, {7, 100, 333, 400},
                                          {1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377}}) {
        read_result r = read_records(format_id::json, in, cuts);
        ASSERT_TRUE(r.err);
        EXPECT_EQ(40u, r.records.size());
        EXPECT_EQ(at, r.err->offset);
        EXPECT_EQ(1u, r.err->line);
        EXPECT_EQ(cps + 1, r.err->column) << describe(*r.err);
        EXPECT_EQ("/40/a", r.err->path);
    }
}

TEST(Stream, OffsetsLinesAndColumnsAcrossRecords) {
    // A pretty array: the error's line and column count from the start of the stream.
    std::string in = "[\n  {\"a\": 1},\n  {\"a\": tru}\n]\n";
    read_result r = read_records(format_id::json, in, {7, 20});
    ASSERT_TRUE(r.err);
    EXPECT_EQ(3u, r.err->line);
    EXPECT_EQ(9u, r.err->column);
    EXPECT_EQ(in.find("tru"), r.err->offset);
    EXPECT_EQ("/1/a", r.err->path);
}

}  // namespace
}  // namespace polycodec::test
