#!/usr/bin/env node
// Consumer checks for the two OpenAPI documents of one build directory
// (`internal/openapi.json` and `openapi.json`), run as a third party would run them:
//   1. `redocly lint` with ./redocly.yaml (errors fail; warnings are printed and pass);
//   2. @apidevtools/swagger-parser `validate` (schema + spec rules);
//   3. `openapi-typescript` generates TypeScript types, then `tsc --noEmit --strict` must accept
//      them together with a small file that imports them the way a client would.
// Every check runs even when an earlier one failed, so one run shows all messages.
// Usage: node tests/consumers/openapi.mjs BUILD_DIR
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import SwaggerParser from "@apidevtools/swagger-parser";

const here = dirname(fileURLToPath(import.meta.url));
const bin = (name) => join(here, "node_modules", ".bin", name);
const DOCUMENTS = ["internal/openapi.json", "openapi.json"];

const buildDir = process.argv[2];
if (!buildDir || process.argv.length > 3) {
  console.error("usage: node tests/consumers/openapi.mjs BUILD_DIR");
  process.exit(2);
}
const childEnv = {
  ...process.env,
  REDOCLY_TELEMETRY: "off",
  REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
  NO_UPDATE_NOTIFIER: "1",
};

const results = [];
function record(name, ok, detail = "") {
  results.push({ name, ok });
  console.log(`${ok ? "ok  " : "FAIL"} ${name}${detail ? ` (${detail})` : ""}`);
}

// Runs a tool with its output passed through unchanged; true when it exits 0.
function run(command, args, cwd = process.cwd()) {
  const r = spawnSync(command, args, { stdio: "inherit", env: childEnv, cwd });
  if (r.error) console.error(`cannot run ${command}: ${r.error.message}`);
  return r.status === 0;
}

const scratch = mkdtempSync(join(tmpdir(), "portolan-consumers-"));
const typeFiles = [];

for (const doc of DOCUMENTS) {
  const file = resolve(buildDir, doc);
  console.log(`\n== ${file}`);
  if (!existsSync(file)) {
    record(`${doc}: exists`, false, "missing from the build directory");
    continue;
  }

  console.log(`-- redocly lint`);
  record(`${doc}: redocly lint`, run(bin("redocly"), ["lint", "--config", join(here, "redocly.yaml"), file]));

  console.log(`-- swagger-parser validate`);
  try {
    // http refs are not followed: a generated document must be self-contained.
    await SwaggerParser.validate(file, { resolve: { http: false } });
    record(`${doc}: swagger-parser validate`, true);
  } catch (err) {
    console.error(err?.message ?? String(err));
    for (const d of err?.details ?? []) console.error(`  detail: ${JSON.stringify(d)}`);
    record(`${doc}: swagger-parser validate`, false);
  }

  console.log(`-- openapi-typescript`);
  const out = join(scratch, doc.replaceAll("/", "-").replace(/\.json$/, ".ts"));
  // Run where no redocly.yaml is found, so the generator uses its own default (`minimal`) rules
  // whoever calls this script, and ours stay redocly lint's business.
  const generated = run(bin("openapi-typescript"), [file, "--output", out], scratch);
  record(`${doc}: openapi-typescript`, generated);
  if (generated) typeFiles.push(out);
}

if (typeFiles.length > 0) {
  // A consumer imports the generated names and indexes into them, so a file that compiles alone
  // but lacks the usual exports (paths, components, operations) fails too.
  const usage = join(scratch, "use-types.ts");
  writeFileSync(
    usage,
    typeFiles
      .map((f, i) => {
        const mod = `./${f.slice(scratch.length + 1).replace(/\.ts$/, "")}`;
        return [
          `import type { paths as P${i}, components as C${i}, operations as O${i} } from "${mod}";`,
          `export type Path${i} = keyof P${i};`,
          `export type Schemes${i} = C${i} extends { securitySchemes: infer S } ? S : never;`,
          `export type Operation${i} = O${i}[keyof O${i}];`,
        ].join("\n");
      })
      .join("\n") + "\n",
  );
  console.log(`\n== tsc --noEmit --strict (${typeFiles.length} generated file(s) + a usage file)`);
  record(
    "tsc --noEmit --strict",
    run(bin("tsc"), [
      "--noEmit",
      "--strict",
      "--target", "es2022",
      "--module", "esnext",
      "--moduleResolution", "bundler",
      ...typeFiles,
      usage,
    ]),
  );
}

const failed = results.filter((r) => !r.ok);
if (failed.length === 0) {
  rmSync(scratch, { recursive: true, force: true });
} else {
  console.log(`generated TypeScript kept in ${scratch}`);
}
console.log(`openapi: ${results.length - failed.length} passed, ${failed.length} failed`);
process.exit(failed.length === 0 ? 0 : 1);
