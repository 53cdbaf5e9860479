// Reference converter for test_smile.py: Jackson's own Smile codec (Debian
// libjackson2-dataformat-smile) between Smile and "typed JSON", in which values JSON lacks are
// objects: {"$bytes": base64}, {"$bigint": "digits"}, {"$decimal": "BigDecimal text"},
// {"$float32": number}.
//   java SmileRef decode < in.sml > out.json
//   java SmileRef encode [names] [values] [raw] [end] < in.json > out.sml
// Built by the test with javac into the build folder.
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.smile.SmileFactory;
import com.fasterxml.jackson.dataformat.smile.SmileGenerator;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

public class SmileRef {
    public static void main(String[] args) throws Exception {
        byte[] in = System.in.readAllBytes();
        OutputStream out = System.out;
        if (args[0].equals("decode")) {
            SmileFactory sf = new SmileFactory();
            JsonParser p = sf.createParser(in);
            JsonGenerator g = new JsonFactory().createGenerator(out);
            p.nextToken();
            toTyped(p, g);
            g.flush();
        } else {
            List<String> opts = Arrays.asList(args);
            SmileFactory sf = new SmileFactory();
            sf.configure(SmileGenerator.Feature.CHECK_SHARED_NAMES, opts.contains("names"));
            sf.configure(SmileGenerator.Feature.CHECK_SHARED_STRING_VALUES, opts.contains("values"));
            sf.configure(SmileGenerator.Feature.ENCODE_BINARY_AS_7BIT, !opts.contains("raw"));
            sf.configure(SmileGenerator.Feature.WRITE_END_MARKER, opts.contains("end"));
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            JsonParser p = new JsonFactory().createParser(in);
            JsonGenerator g = sf.createGenerator(buf);
            p.nextToken();
            fromTyped(p, g);
            g.close();
            out.write(buf.toByteArray());
        }
        out.flush();
    }

    interface Walk {
        void value(JsonParser p, JsonGenerator g) throws Exception;
    }

    // The tokens both directions copy alike: arrays (each element by `element`), strings,
    // booleans and null. False for any other token.
    static boolean copyCommon(JsonParser p, JsonGenerator g, Walk element) throws Exception {
        JsonToken t = p.currentToken();
        switch (t) {
            case START_ARRAY:
                g.writeStartArray();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    element.value(p, g);
                }
                g.writeEndArray();
                return true;
            case VALUE_STRING:
                g.writeString(p.getText());
                return true;
            case VALUE_TRUE:
            case VALUE_FALSE:
                g.writeBoolean(t == JsonToken.VALUE_TRUE);
                return true;
            case VALUE_NULL:
                g.writeNull();
                return true;
            default:
                return false;
        }
    }

    // {"KIND": text}: a typed value whose text JSON numbers would not keep.
    static void typed(JsonGenerator g, String kind, String text) throws Exception {
        g.writeStartObject();
        g.writeStringField(kind, text);
        g.writeEndObject();
    }

    // The value at the parser's current token, written as typed JSON.
    static void toTyped(JsonParser p, JsonGenerator g) throws Exception {
        if (copyCommon(p, g, SmileRef::toTyped)) {
            return;
        }
        JsonToken t = p.currentToken();
        switch (t) {
            case START_OBJECT:
                g.writeStartObject();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    g.writeFieldName(p.getCurrentName());
                    p.nextToken();
                    toTyped(p, g);
                }
                g.writeEndObject();
                break;
            case VALUE_NUMBER_INT:
                if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                    typed(g, "$bigint", p.getBigIntegerValue().toString());
                } else {
                    g.writeNumber(p.getLongValue());
                }
                break;
            case VALUE_NUMBER_FLOAT:
                if (p.getNumberType() == JsonParser.NumberType.BIG_DECIMAL) {
                    typed(g, "$decimal", p.getDecimalValue().toString());
                } else if (p.getNumberType() == JsonParser.NumberType.FLOAT) {
                    g.writeStartObject();
                    g.writeFieldName("$float32");
                    g.writeNumber((double) p.getFloatValue());
                    g.writeEndObject();
                } else {
                    g.writeNumber(p.getDoubleValue());
                }
                break;
            case VALUE_EMBEDDED_OBJECT:
                typed(g, "$bytes", Base64.getEncoder().encodeToString(p.getBinaryValue()));
                break;
            default:
                throw new IllegalStateException("unexpected token " + t);
        }
    }

    // Typed JSON at the parser's current token, written with the Smile generator.
    static void fromTyped(JsonParser p, JsonGenerator g) throws Exception {
        if (copyCommon(p, g, SmileRef::fromTyped)) {
            return;
        }
        JsonToken t = p.currentToken();
        switch (t) {
            case START_OBJECT: {
                JsonToken n = p.nextToken();
                if (n == JsonToken.FIELD_NAME && p.getCurrentName().startsWith("$")) {
                    String kind = p.getCurrentName();
                    p.nextToken();
                    if (kind.equals("$bytes")) {
                        g.writeBinary(Base64.getDecoder().decode(p.getText()));
                    } else if (kind.equals("$bigint")) {
                        g.writeNumber(new BigInteger(p.getText()));
                    } else if (kind.equals("$decimal")) {
                        g.writeNumber(new BigDecimal(p.getText()));
                    } else if (kind.equals("$float32")) {
                        g.writeNumber(p.getFloatValue());
                    } else {
                        throw new IllegalStateException("unknown typed value " + kind);
                    }
                    p.nextToken();  // END_OBJECT
                    break;
                }
                g.writeStartObject();
                while (n == JsonToken.FIELD_NAME) {
                    g.writeFieldName(p.getCurrentName());
                    p.nextToken();
                    fromTyped(p, g);
                    n = p.nextToken();
                }
                g.writeEndObject();
                break;
            }
            case VALUE_NUMBER_INT:
                switch (p.getNumberType()) {
                    case INT: g.writeNumber(p.getIntValue()); break;
                    case LONG: g.writeNumber(p.getLongValue()); break;
                    default: {
                        // jackson-core reports 19-digit numbers such as INT64_MAX as
                        // BIG_INTEGER; write those that fit a long as the long they are.
                        BigInteger b = p.getBigIntegerValue();
                        if (b.bitLength() < 64) {
                            g.writeNumber(b.longValue());
                        } else {
                            g.writeNumber(b);
                        }
                    }
                }
                break;
            case VALUE_NUMBER_FLOAT:
                g.writeNumber(p.getDoubleValue());
                break;
            default:
                throw new IllegalStateException("unexpected token " + t);
        }
    }
}
