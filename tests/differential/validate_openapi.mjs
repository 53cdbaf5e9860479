// Validates an OpenAPI document read from stdin with @apidevtools/swagger-parser (pinned in
// package.json): the OpenAPI 3.0/3.1 JSON Schema, $ref resolution and the spec's extra rules
// (unique operationIds, path parameters declared ...). Prints one JSON line:
// {"ok":true,"openapi":"3.1.0","paths":N,"operations":N} or {"ok":false,"error":"..."}.
import SwaggerParser from "@apidevtools/swagger-parser";

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
let api;
try {
  api = JSON.parse(Buffer.concat(chunks).toString("utf8"));
} catch (e) {
  console.log(JSON.stringify({ ok: false, error: "not JSON: " + e.message }));
  process.exit(0);
}
try {
  const checked = await SwaggerParser.validate(api);
  let operations = 0;
  for (const item of Object.values(checked.paths || {})) {
    for (const m of ["get", "put", "post", "delete", "options", "head", "patch", "trace"]) {
      if (item[m]) operations++;
    }
  }
  console.log(JSON.stringify({ ok: true, openapi: checked.openapi,
                               paths: Object.keys(checked.paths || {}).length, operations }));
} catch (e) {
  console.log(JSON.stringify({ ok: false, error: String(e.message || e) }));
}
