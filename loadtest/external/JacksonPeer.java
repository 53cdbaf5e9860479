// Jackson's Smile and CBOR modules (and its JSON) on a warmed JVM, for loadtest/external/run.
//   java JacksonPeer DATADIR MS     prints format,op,library,ops_per_s lines
// Decode: ObjectMapper.readTree of the bytes our encoder wrote (DATADIR/bench.sml, bench.cbor,
// bench.json) into a JsonNode tree; encode: writeValueAsBytes of that tree. Each pair is warmed
// up (2 s of calls; -Dpolycodec.warm_ms) before 5 windows of MS ms are timed; the median ops/s is printed. The tree
// each module decodes is checked equal to Jackson's JSON tree of bench.json before timing.
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.cbor.CBORFactory;
import com.fasterxml.jackson.dataformat.smile.SmileFactory;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Arrays;

public final class JacksonPeer {
    static volatile long sink;

    interface Op { long run() throws Exception; }

    static double measure(Op op, int ms) throws Exception {
        double[] rates = new double[5];
        for (int w = 0; w < 5; ++w) {
            long n = 0, start = System.nanoTime(), end = start + ms * 1_000_000L, now = start;
            while (now < end) {
                sink += op.run();
                ++n;
                now = System.nanoTime();
            }
            rates[w] = n * 1e9 / (now - start);
        }
        Arrays.sort(rates);
        return rates[2];
    }

    static void warm(Op op) throws Exception {
        long end = System.nanoTime() + Long.getLong("polycodec.warm_ms", 2000L) * 1_000_000L;
        while (System.nanoTime() < end) sink += op.run();
    }

    static void pair(String fmt, String lib, ObjectMapper m, byte[] ours, JsonNode expect, int ms)
            throws Exception {
        JsonNode tree = m.readTree(ours);
        // Text comparison: CBOR half/single floats read as FloatNode, which equals() tells
        // apart from the JSON tree's DoubleNode although the values are the same.
        ObjectMapper text = new ObjectMapper();
        if (!text.writeValueAsString(tree).equals(text.writeValueAsString(expect))) {
            throw new IllegalStateException(fmt + ": Jackson reads our bytes as a different tree");
        }
        Op enc = () -> m.writeValueAsBytes(tree).length;
        Op dec = () -> m.readTree(ours).size();
        warm(enc);
        warm(dec);
        System.out.printf("%s,encode,%s,%.1f%n", fmt, lib, measure(enc, ms));
        System.out.printf("%s,decode,%s,%.1f%n", fmt, lib, measure(dec, ms));
        System.out.flush();
    }

    public static void main(String[] args) throws Exception {
        String dir = args[0];
        int ms = Integer.parseInt(args[1]);
        String v = " (Jackson " + com.fasterxml.jackson.databind.cfg.PackageVersion.VERSION
                + "; JDK " + System.getProperty("java.version") + ")";
        ObjectMapper json = new ObjectMapper(new JsonFactory());
        byte[] jb = Files.readAllBytes(Paths.get(dir, "bench.json"));
        JsonNode expect = json.readTree(jb);
        String only = args.length > 2 ? args[2] : "smile,cbor,json";
        if (only.contains("smile")) {
            pair("smile", "jackson-dataformat-smile "
                    + com.fasterxml.jackson.dataformat.smile.PackageVersion.VERSION + v,
                    new ObjectMapper(new SmileFactory()),
                    Files.readAllBytes(Paths.get(dir, "bench.smile")), expect, ms);
        }
        if (only.contains("cbor")) {
            pair("cbor", "jackson-dataformat-cbor "
                    + com.fasterxml.jackson.dataformat.cbor.PackageVersion.VERSION + v,
                    new ObjectMapper(new CBORFactory()),
                    Files.readAllBytes(Paths.get(dir, "bench.cbor")), expect, ms);
        }
        if (only.contains("json")) {
            pair("json", "jackson-databind" + v, json, jb, expect, ms);
        }
    }
}
