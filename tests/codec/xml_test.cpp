// Tests of the xml codec: the xmltodict mapping and the ordered form on hand-checked vectors,
// error positions, the security limits (external entities, entity expansion, depth) and
// exact encodings.
#include <string>

#include "support/support.hpp"

namespace polycodec::test {
namespace {

std::string xml(std::string_view text, decode_options opt = {}) {
    return decoded_as(format_id::xml, text, opt);
}

decode_options ordered() {
    decode_options o;
    o.xml.ordered = true;
    return o;
}

std::string encode_xml(std::string_view json, const encode_options& opt = {}) {
    return encode_json_as(format_id::xml, json, opt);
}

error encode_error(std::string_view json, const encode_options& opt = {}) {
    return encode_json_error(format_id::xml, json, opt);
}

constexpr std::string_view decl = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n";

TEST(XmlDecode, XmltodictMapping) {
    // xmltodict.parse of the same text gives this (checked with python3-xmltodict 0.13).
    const text_case cases[] = {
        {"<?xml version='1.0'?><r a='1'><b>x</b><c/><b> y </b><d k='v'>t</d></r>",
         "{\"r\":{\"@a\":\"1\",\"b\":[\"x\",\"y\"],\"c\":null,\"d\":{\"@k\":\"v\",\"#text\":"
         "\"t\"}}}"},
        {"<r>\n  <b>1</b>\n</r>", "{\"r\":{\"b\":\"1\"}}"},
        {"<r/>", "{\"r\":null}"},
        {"<r>&lt;&amp;&#x41;&#66;<![CDATA[<c>]]></r>", "{\"r\":\"<&AB<c>\"}"},
        // Repeated names group at the first one's place, also past the small-element path.
        {"<r><a>1</a><b>2</b><a>3</a></r>", "{\"r\":{\"a\":[\"1\",\"3\"],\"b\":\"2\"}}"},
        {"<r><a>1</a><b>2</b><c/><d/><e/><f/><g/><h/><i/><a>3</a><b>4</b></r>",
         "{\"r\":{\"a\":[\"1\",\"3\"],\"b\":[\"2\",\"4\"],\"c\":null,\"d\":null,\"e\":null,"
         "\"f\":null,\"g\":null,\"h\":null,\"i\":null}}"},
    };
    expect_decodes(format_id::xml, cases);
}

TEST(XmlDecode, Options) {
    decode_options o;
    o.xml.force_list = {"b", "r"};
    o.xml.attr_prefix = "_";
    o.xml.text_key = "value";
    EXPECT_EQ(xml("<r><b k='1'>x</b></r>", o),
              "{\"r\":[{\"b\":[{\"_k\":\"1\",\"value\":\"x\"}]}]}");
    decode_options ns;
    ns.xml.expand_namespaces = true;
    EXPECT_EQ(xml("<r xmlns='urn:a' xmlns:p='urn:p'><p:b p:k='1' k='2'/></r>", ns),
              "{\"{urn:a}r\":{\"{urn:p}b\":{\"@{urn:p}k\":\"1\",\"@k\":\"2\"}}}");
    decode_options inf = inferring();
    inf.xml.root = "r";
    EXPECT_EQ(xml("<r><i>-12</i><f>2.5</f><t>true</t><s>x1</s></r>", inf),
              "{\"i\":-12,\"f\":2.5,\"t\":true,\"s\":\"x1\"}");
    error e = decode_error(format_id::xml, "<q/>", inf);
    EXPECT_NE(e.message.find("root=r expects <r>"), std::string::npos) << e.message;
}

TEST(XmlDecode, OrderedKeepsEverything) {
    const text_case cases[] = {
        {"<a k='1'>x<b>y</b> z<!--c--><?pi d?></a>",
         "[\"a\",{\"@k\":\"1\"},\"x\",[\"b\",\"y\"],\" z\",[\"#comment\",\"c\"],[\"?pi\","
         "\"d\"]]"},
        {"<!--top--><a/>", "[\"#document\",[\"#comment\",\"top\"],[\"a\"]]"},
    };
    expect_decodes(format_id::xml, cases, ordered());
}

TEST(XmlDecode, LossyInputRefusedUnlessAllowed) {
    for (std::string_view in : {"<a>x<b/>y</a>", "<a><!--c--></a>", "<a><?p?></a>"}) {
        expect_decode_error(format_id::xml, in,
                            {.code = errc::unrepresentable, .message_has = "ordered=true"});
    }
    decode_options lossy;
    lossy.lossy = true;
    lossy_report report;
    lossy.report = &report;
    EXPECT_EQ(xml("<a>x<b/>y<!--c--></a>", lossy), "{\"a\":{\"b\":null,\"#text\":\"xy\"}}");
    ASSERT_EQ(report.size(), 2u);
    EXPECT_EQ(report[0].kind, "xml_comment");  // at the comment; mixed content at </a>
    EXPECT_EQ(report[1].kind, "mixed_content");
}

TEST(XmlDecode, ErrorsCarryOffsetLineColumnAndPath) {
    expect_decode_error(format_id::xml, "<a>\n  <b></c></a>",
                        {.code = errc::unexpected_char,
                         .offset = 11,
                         .line = 2,
                         .column = 8,
                         .path = "/a/b",
                         .message_has = "mismatched tag"});
    EXPECT_EQ(decode_error(format_id::xml, "<a>").code, errc::unexpected_eof);
    EXPECT_EQ(decode_error(format_id::xml, "<a/><b/>").code, errc::trailing_content);
    EXPECT_EQ(decode_error(format_id::xml, "<a x='1' x='2'/>").code, errc::duplicate_key);
    EXPECT_EQ(decode_error(format_id::xml, "").code, errc::unexpected_eof);
    EXPECT_EQ(decode_error(format_id::xml, "<a>\xff</a>").code, errc::unexpected_char);
}

TEST(XmlDecode, ExternalEntitiesRefused) {
    for (std::string_view in :
         {"<!DOCTYPE a [<!ENTITY x SYSTEM 'file:///etc/passwd'>]><a>&x;</a>",
          "<!DOCTYPE a [<!ENTITY x SYSTEM 'http://127.0.0.1:1/x'>]><a>&x;</a>",
          "<!DOCTYPE a [<!ENTITY % p SYSTEM 'http://127.0.0.1:1/p.dtd'> %p;]><a/>",
          "<!DOCTYPE a SYSTEM 'http://127.0.0.1:1/a.dtd'><a>&undeclared;</a>"}) {
        expect_decode_error(format_id::xml, in,
                            {.code = errc::forbidden, .message_has = "never loaded"});
        error e;
    }
    // An external subset alone is not read, and the document is fine without it.
    const text_case cases[] = {
        {"<!DOCTYPE a SYSTEM 'http://127.0.0.1:1/a.dtd'><a>t</a>", "{\"a\":\"t\"}"},
        // Internal entities, general and parameter, expand.
        {"<!DOCTYPE a [<!ENTITY % p '<!ENTITY e \"v\">'> %p;]><a>&e;&e;</a>", "{\"a\":\"vv\"}"},
    };
    expect_decodes(format_id::xml, cases);
}

TEST(XmlDecode, EntityExpansionBounded) {
    std::string laughs = "<!DOCTYPE l [<!ENTITY l0 'lol'>";
    for (int i = 1; i <= 9; ++i) {
        laughs += "<!ENTITY l" + std::to_string(i) + " '";
        for (int k = 0; k < 10; ++k) {
            laughs += "&l" + std::to_string(i - 1) + ";";
        }
        laughs += "'>";
    }
    laughs += "]><l>&l9;</l>";
    EXPECT_EQ(decode_error(format_id::xml, laughs).code, errc::size_exceeded);
    // Quadratic blowup: one 64 KiB entity referenced 20000 times (1.3 GB of text).
    std::string quad = "<!DOCTYPE q [<!ENTITY a '" + std::string(65536, 'a') + "'>]><q>";
    for (int i = 0; i < 20000; ++i) {
        quad += "&a;";
    }
    quad += "</q>";
    EXPECT_EQ(decode_error(format_id::xml, quad).code, errc::size_exceeded);
    // The same in attribute values.
    std::string attr = "<!DOCTYPE q [<!ENTITY a '" + std::string(65536, 'a') + "'>]><q v='";
    for (int i = 0; i < 2000; ++i) {
        attr += "&a;";
    }
    attr += "'/>";
    EXPECT_EQ(decode_error(format_id::xml, attr).code, errc::size_exceeded);
}

TEST(XmlDecode, DepthLimit) {
    std::string deep;
    for (int i = 0; i < 600; ++i) {
        deep += "<a>";
    }
    EXPECT_EQ(decode_error(format_id::xml, deep).code, errc::depth_exceeded);
}

TEST(XmlEncode, Mapping) {
    const text_case cases[] = {
        {"{\"r\":{\"@a\":1,\"b\":[\"x\",2.5,true],\"c\":null,\"d\":{\"@k\":\"v\","
         "\"#text\":\"t\"}}}",
         std::string(decl) + "<r a=\"1\"><b>x</b><b>2.5</b><b>true</b><c/><d k=\"v\">t</d></r>"},
        {"{\"e\":{\"@q\":\"<&\\\"\\t\\n\",\"#text\":\"<&>\\r]]>\"}}",
         std::string(decl) + "<e q=\"&lt;&amp;&quot;&#9;&#10;\">&lt;&amp;&gt;&#13;]]&gt;</e>"},
    };
    expect_encodes(format_id::xml, cases);
    encode_options root;
    root.xml.root = "list";
    EXPECT_EQ(encode_xml("[1,{\"a\":2}]", root),
              std::string(decl) + "<list><item>1</item><item><a>2</a></item></list>");
    encode_options pretty;
    pretty.pretty = true;
    EXPECT_EQ(encode_xml("{\"r\":{\"a\":[1,2],\"b\":{\"c\":\"x\"}}}", pretty),
              std::string(decl) + "<r>\n  <a>1</a>\n  <a>2</a>\n  <b>\n    <c>x</c>\n  </b>\n</r>\n");
    encode_options ord;
    ord.xml.ordered = true;
    EXPECT_EQ(encode_xml("[\"a\",{\"@k\":\"1\"},\"x\",[\"b\",\"y\"],[\"#comment\",\"c\"],"
                         "[\"?pi\",\"d\"]]",
                         ord),
              std::string(decl) + "<a k=\"1\">x<b>y</b><!--c--><?pi d?></a>");
}

TEST(XmlEncode, ExpandedNamespaces) {
    encode_options ns;
    ns.xml.expand_namespaces = true;
    EXPECT_EQ(encode_xml("{\"{urn:a}r\":{\"@{urn:a}k\":\"1\",\"@j\":\"2\",\"{urn:a}b\":\"x\","
                         "\"{}c\":null}}",
                         ns),
              std::string(decl) +
                  "<ns0:r xmlns:ns0=\"urn:a\" ns0:k=\"1\" j=\"2\"><ns0:b>x</ns0:b><c/></ns0:r>");
    EXPECT_EQ(encode_error("{\"{urn:a\":1}", ns).code, errc::unrepresentable);
    EXPECT_EQ(encode_error("{\"{urn:a}r\":1}").code, errc::unrepresentable);  // not expanding
}

TEST(XmlEncode, Refusals) {
    EXPECT_NE(encode_error("[1]").message.find("root=NAME"), std::string::npos);
    EXPECT_NE(encode_error("{\"a\":1,\"b\":2}").message.find("one root element"),
              std::string::npos);
    error e = encode_error("{\"r\":{\"1x\":1}}");
    EXPECT_EQ(e.code, errc::unrepresentable);
    EXPECT_EQ(e.path, "/r/1x");
    EXPECT_NE(encode_error("{\"r\":\"\\u0001\"}").message.find("U+0001"), std::string::npos);
    EXPECT_NE(encode_error("{\"r\":{\"a\":[[1],[2]]}}").message.find("array inside an array"),
              std::string::npos);
    EXPECT_NE(encode_error("{\"r\":{\"a\":[1]}}").message.find("force_list=a"),
              std::string::npos);
    EXPECT_NE(encode_error("{\"r\":{\"@a\":[1,2]}}").message.find("scalar"), std::string::npos);
    EXPECT_NE(encode_error("{\"r\":{\"@a\":1,\"@a\":2}}").message.find("twice"),
              std::string::npos);
    encode_options ord;
    ord.xml.ordered = true;
    EXPECT_NE(encode_error("[\"a\",[\"#comment\",\"x--y\"]]", ord).message.find("--"),
              std::string::npos);
    lossy_encode lossy;
    EXPECT_EQ(encode_xml("[1,2]", lossy.opt),
              std::string(decl) + "<root><item>1</item><item>2</item></root>");
    expect_report(lossy.report, {{"xml_root_wrapped"}});
}

}  // namespace
}  // namespace polycodec::test
