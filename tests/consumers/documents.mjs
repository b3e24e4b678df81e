#!/usr/bin/env node
// Checks that a build directory holds every JSON document `portolan build` promises, each
// parsing as JSON, before the validators look inside them.
// Usage: node tests/consumers/documents.mjs BUILD_DIR
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

const DOCUMENTS = [
  "catalog.json",
  "internal/openapi.json",
  "openapi.json",
  "events.json",
  "asyncapi.json",
  "tools.min.json",
];

const buildDir = process.argv[2];
if (!buildDir || process.argv.length > 3) {
  console.error("usage: node tests/consumers/documents.mjs BUILD_DIR");
  process.exit(2);
}
let failed = 0;
for (const doc of DOCUMENTS) {
  const file = resolve(buildDir, doc);
  try {
    JSON.parse(readFileSync(file, "utf8"));
    console.log(`ok   ${doc}`);
  } catch (err) {
    failed += 1;
    console.log(`FAIL ${doc}: ${err.code === "ENOENT" ? `missing (${file})` : err.message}`);
  }
}
console.log(`documents: ${DOCUMENTS.length - failed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
