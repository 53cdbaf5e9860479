// The reference for tests/differential/test_properties.py: java.util.Properties itself.
//
//   java PropertiesRef load DIR         every DIR/*.properties read with Properties.load(Reader)
//                                       over a strict UTF-8 decoder (malformed input is an error)
//   java PropertiesRef load-stream DIR  the same with Properties.load(InputStream) (ISO-8859-1)
//       print one line per file, in name order: NAME \t OK \t {"key":"value",...} \t LONE
//       (JSON, every char outside 0x20-0x7e as a \\uXXXX UTF-16 unit, so lone surrogates show)
//       or NAME \t ERR \t ExceptionClass: message \t LONE, where LONE is 1 when a key or
//       value that load put (overwritten ones too) held a lone surrogate, else 0
//   java PropertiesRef store DIR        every DIR/*.kv (lines "HEXKEY:HEXVALUE", UTF-8 in hex)
//                                       put in a Properties and written with store(Writer) as
//                                       NAME.writer.properties (UTF-8) and store(OutputStream)
//                                       as NAME.stream.properties
import java.io.*;
import java.nio.charset.*;
import java.nio.file.*;
import java.util.*;

public class PropertiesRef {
    static String json(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    static byte[] unhex(String h) {
        byte[] out = new byte[h.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }

    static List<Path> files(String dir, String ext) throws IOException {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(Paths.get(dir), "*" + ext)) {
            for (Path p : ds) {
                out.add(p);
            }
        }
        Collections.sort(out);
        return out;
    }

    static boolean lone(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                    continue;
                }
                return true;
            }
            if (Character.isLowSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    // Records whether any entry that load puts holds a lone surrogate.
    static class Recording extends Properties {
        boolean sawLone = false;

        @Override
        public synchronized Object put(Object k, Object v) {
            sawLone |= lone((String) k) || lone((String) v);
            return super.put(k, v);
        }
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
        String mode = args[0];
        if (mode.equals("store")) {
            for (Path p : files(args[1], ".kv")) {
                Properties props = new Properties();
                for (String line : Files.readAllLines(p, StandardCharsets.US_ASCII)) {
                    if (line.isEmpty()) {
                        continue;
                    }
                    int colon = line.indexOf(':');
                    String k = new String(unhex(line.substring(0, colon)), StandardCharsets.UTF_8);
                    String v = new String(unhex(line.substring(colon + 1)), StandardCharsets.UTF_8);
                    props.setProperty(k, v);
                }
                String base = p.toString().substring(0, p.toString().length() - 3);
                try (Writer w = new OutputStreamWriter(
                        new FileOutputStream(base + ".writer.properties"), StandardCharsets.UTF_8)) {
                    props.store(w, null);
                }
                try (OutputStream os = new FileOutputStream(base + ".stream.properties")) {
                    props.store(os, null);
                }
            }
            return;
        }
        boolean stream = mode.equals("load-stream");
        for (Path p : files(args[1], ".properties")) {
            Recording props = new Recording();
            String name = p.getFileName().toString();
            try (InputStream in = Files.newInputStream(p)) {
                if (stream) {
                    props.load(in);
                } else {
                    CharsetDecoder dec = StandardCharsets.UTF_8.newDecoder()
                            .onMalformedInput(CodingErrorAction.REPORT)
                            .onUnmappableCharacter(CodingErrorAction.REPORT);
                    props.load(new InputStreamReader(in, dec));
                }
                StringBuilder b = new StringBuilder("{");
                boolean first = true;
                for (String k : new TreeSet<>(props.stringPropertyNames())) {
                    if (!first) {
                        b.append(',');
                    }
                    first = false;
                    b.append(json(k)).append(':').append(json(props.getProperty(k)));
                }
                out.println(name + "\tOK\t" + b.append('}') + "\t" + (props.sawLone ? 1 : 0));
            } catch (Exception e) {
                out.println(name + "\tERR\t" + e.getClass().getSimpleName() + ": " + e.getMessage()
                            + "\t" + (props.sawLone ? 1 : 0));
            }
        }
    }
}
