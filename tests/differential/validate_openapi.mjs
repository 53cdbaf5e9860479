// Validates an OpenAPI document read from stdin with @apidevtools/swagger-parser (pinned in
// package.json): the OpenAPI 3.0/3.1 JSON Schema, $ref resolution and the spec's extra rules.
// Prints one JSON line: {"ok":true,"openapi":"3.1.0","paths":N,"operations":N} or
// {"ok":false,"error":"..."}.
//
// With the argument `instances`, stdin is {"document": D, "checks": [{"schema": "#/...",
// "instance": V}, ...]} instead: each V is validated with Ajv (JSON Schema 2020-12, the dialect
// of OpenAPI 3.1) against the schema at that pointer of D, and the answer is
// {"ok":true,"results":[{"valid":true}|{"valid":false,"errors":"..."}, ...]}.
import SwaggerParser from "@apidevtools/swagger-parser";
import Ajv2020 from "ajv/dist/2020.js";

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
let input;
try {
  input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
} catch (e) {
  console.log(JSON.stringify({ ok: false, error: "not JSON: " + e.message }));
  process.exit(0);
}

if (process.argv[2] === "instances") {
  // OpenAPI's own keywords (discriminator, xml ...) and formats such as "binary" are not JSON
  // Schema vocabulary: not strict, formats not checked.
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema(input.document, "openapi.json");
  const results = input.checks.map(({ schema, instance }) => {
    const validate = ajv.getSchema("openapi.json" + schema);
    if (!validate) return { valid: false, errors: "no schema at " + schema };
    return validate(instance) ? { valid: true }
                              : { valid: false, errors: ajv.errorsText(validate.errors) };
  });
  console.log(JSON.stringify({ ok: true, results }));
  process.exit(0);
}

try {
  const checked = await SwaggerParser.validate(input);
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
