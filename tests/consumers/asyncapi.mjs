#!/usr/bin/env node
// Consumer check for `asyncapi.json` of one build directory: @asyncapi/parser parses and validates
// it (AsyncAPI schema plus the parser's Spectral rules). Every diagnostic is printed with its
// severity; any diagnostic of severity Error fails, as does a document the parser cannot build.
// Warnings, information (e.g. "a newer AsyncAPI version exists" for 3.0.0) and hints pass.
// Usage: node tests/consumers/asyncapi.mjs BUILD_DIR
import { readFileSync, existsSync } from "node:fs";
import { resolve } from "node:path";
import { Parser, DiagnosticSeverity } from "@asyncapi/parser";

const buildDir = process.argv[2];
if (!buildDir || process.argv.length > 3) {
  console.error("usage: node tests/consumers/asyncapi.mjs BUILD_DIR");
  process.exit(2);
}
const file = resolve(buildDir, "asyncapi.json");
console.log(`== ${file}`);
if (!existsSync(file)) {
  console.log("FAIL asyncapi.json: missing from the build directory");
  console.log("asyncapi: 0 passed, 1 failed");
  process.exit(1);
}

const parser = new Parser();
const { document, diagnostics } = await parser.parse(readFileSync(file, "utf8"), { source: file });

let errors = 0;
for (const d of diagnostics) {
  if (d.severity === DiagnosticSeverity.Error) errors += 1;
  const where = d.path?.length ? `#/${d.path.join("/")}` : "#";
  const line = d.range ? `:${d.range.start.line + 1}:${d.range.start.character + 1}` : "";
  const severity = DiagnosticSeverity[d.severity] ?? String(d.severity);
  console.log(`${severity.padEnd(11)} ${d.code} ${file}${line} at ${where}\n            ${d.message}`);
}
const ok = errors === 0 && document !== undefined;
if (errors === 0 && document === undefined) console.log("the parser returned no document");
console.log(`${ok ? "ok  " : "FAIL"} asyncapi.json: @asyncapi/parser (${errors} error(s), ${diagnostics.length} diagnostic(s))`);
console.log(`asyncapi: ${ok ? 1 : 0} passed, ${ok ? 0 : 1} failed`);
process.exit(ok ? 0 : 1);
