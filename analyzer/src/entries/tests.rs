//! Tests of the entry hints a package manifest gives.
use super::*;
use serde_json::json;

fn paths(j: serde_json::Value) -> Vec<String> {
    package_hints(&j, &|_| None)
        .into_iter()
        .map(|h| h.path)
        .collect()
}

#[test]
fn a_cd_runs_what_follows_in_that_folder() {
    let app = r#"{"scripts": {"server": "cross-env NODE_ENV=production node -r dotenv-flow/config dist/server/app.js"}}"#;
    let read = |p: &str| (p == "apps/app/package.json").then(|| app.to_string());
    let root = json!({"scripts": {"start": "pnpm run app:server", "app:server": "cd apps/app && pnpm run server"}});
    let hints = package_hints(&root, &read);
    assert_eq!(
        hints.iter().map(|h| h.path.as_str()).collect::<Vec<_>>(),
        ["apps/app/dist/server/app.js"]
    );
    assert!(
        hints[0].reason.contains("in `apps/app/`"),
        "{}",
        hints[0].reason
    );
    // With no manifest there, a program still runs there.
    assert_eq!(
        paths(json!({"scripts": {"start": "cd server; node index.js"}})),
        ["server/index.js"]
    );
    // A `cd` out of the package names nothing.
    assert!(paths(json!({"scripts": {"start": "cd .. && node index.js"}})).is_empty());
}

#[test]
fn serving_scripts_are_read_when_the_usual_ones_name_nothing() {
    let pkg = json!({"scripts": {
        "start": "next start",
        "server": "cross-env NODE_ENV=production node -r dotenv-flow/config dist/server/app.js",
        "build:server": "node scripts/build-server.js",
        "seed": "node scripts/seed.js",
        "start:worker": "node dist/worker.js",
        "dev:api": "tsx src/api.ts"}});
    assert_eq!(paths(pkg), ["src/api.ts", "dist/server/app.js"]);
    // When a usual start script names the program, no other is read.
    let pkg = json!({"scripts": {"start": "node index.js", "server:mock": "node mock.js"}});
    assert_eq!(paths(pkg), ["index.js"]);
    assert!(serving_script("start:api") && serving_script("serve-prod"));
    assert!(!serving_script("start:web") && !serving_script("test:server"));
}

#[test]
fn nodemon_exec_runs_the_named_program_with_the_rest() {
    let pkg = json!({"scripts": {
        "dev": "cross-env NODE_ENV=development nodemon --exec pnpm run ts-node --inspect src/server/app.ts",
        "ts-node": "node -r ts-node/register/transpile-only -r tsconfig-paths/register"}});
    assert_eq!(paths(pkg), ["src/server/app.ts"]);
    assert_eq!(
        paths(json!({"scripts": {"dev": "nodemon --exec ts-node src/index.ts"}})),
        ["src/index.ts"]
    );
    assert_eq!(
        paths(json!({"scripts": {"dev": "nodemon -w src -x babel-node -- src/main.js"}})),
        ["src/main.js"]
    );
}

#[test]
fn build_scripts_name_their_output_folders() {
    let outputs = |scripts: serde_json::Value| build_outputs(&json!({ "scripts": scripts }));
    let built = |out: &str, source: Option<&str>, base: &str| BuildOutput {
        out: out.into(),
        source: source.map(str::to_string),
        base: base.into(),
    };
    assert_eq!(
        outputs(json!({"build": "rm -rf lib && babel src/ -d lib/ --copy-files"})),
        [built("lib", Some("src"), "")]
    );
    assert_eq!(
        outputs(
            json!({"build": "npx babel -x .ts,.js --delete-dir-on-start ./server --out-dir=dist"})
        ),
        [built("dist", Some("server"), "")]
    );
    assert_eq!(
        outputs(json!({"compile": "swc src -d build", "types": "tsc --outDir out --rootDir app"})),
        [
            built("build", Some("src"), ""),
            built("out", Some("app"), "")
        ]
    );
    assert_eq!(
        outputs(json!({"build": "tsc -p . --outDir dist"})),
        [built("dist", None, "")]
    );
    assert_eq!(
        outputs(json!({"build:api": "tsc -p src/apps/backend/tsconfig.json --outDir dist"})),
        [built("dist", None, "src/apps/backend")]
    );
    assert_eq!(
        outputs(json!({"build": "tsc --project server --outDir build"})),
        [built("build", None, "server")]
    );
    // No output folder, or one that is its own source: nothing.
    assert!(
        outputs(json!({"build": "tsc", "fmt": "babel src", "x": "babel lib -d lib"})).is_empty()
    );
    assert!(outputs(json!({"lint": "eslint src -d lib"})).is_empty());
}

#[test]
fn start_scripts_name_their_script() {
    assert_eq!(
        paths(json!({"scripts": {"start": "node server"}})),
        ["server"]
    );
    assert_eq!(
        paths(
            json!({"scripts": {"start": "npm run start-server", "start-server": "node server/server.js"}})
        ),
        ["server/server.js"]
    );
    assert_eq!(
        paths(
            json!({"scripts": {"start": "cross-env NODE_ENV=production node -r dotenv/config ./src/index.js"}})
        ),
        ["src/index.js"]
    );
    assert_eq!(
        paths(json!({"scripts": {"dev": "nodemon --watch src -e ts --exec ts-node src/main.ts"}})),
        ["src/main.ts"]
    );
    assert_eq!(
        paths(json!({"scripts": {"dev": "tsx watch src/app.ts"}})),
        ["src/app.ts"]
    );
    assert_eq!(
        paths(json!({"scripts": {"start": "node --watch server.js"}})),
        ["server.js"]
    );
    assert_eq!(
        paths(
            json!({"scripts": {"dev": "concurrently \"npm run api\" \"npm run web\"", "api": "ts-node-dev --respawn api/index.ts", "web": "vite"}})
        ),
        ["api/index.ts"]
    );
    assert_eq!(
        paths(json!({"scripts": {"start": "yarn node dist/bin/server.js"}})),
        ["dist/bin/server.js"]
    );
    assert_eq!(
        paths(json!({"scripts": {"start:prod": "node dist/main"}})),
        ["dist/main"]
    );
    assert_eq!(
        paths(json!({"scripts": {"start": "pnpm exec tsx src/app.ts"}})),
        ["src/app.ts"]
    );
    assert_eq!(
        paths(json!({"scripts": {"start": "yarn ts-node src/app.ts"}})),
        ["src/app.ts"]
    );
}

fn hints_with(j: serde_json::Value, files: &[(&str, &str)]) -> Vec<(String, String)> {
    let read = |f: &str| {
        files
            .iter()
            .find(|(name, _)| *name == f)
            .map(|(_, text)| text.to_string())
    };
    package_hints(&j, &read)
        .into_iter()
        .map(|h| (h.path, h.reason))
        .collect()
}

#[test]
fn nest_start_reads_nest_cli_json() {
    let start = json!({"scripts": {"start": "pnpm exec nest start --watch"}});
    assert_eq!(
        hints_with(start.clone(), &[]),
        [(
            "src/main".to_string(),
            "scripts.start: `nest start` runs `src/main` (nest-cli.json: sourceRoot, entryFile)"
                .to_string()
        )]
    );
    let cli = r#"{"sourceRoot": "server", "entryFile": "boot"}"#;
    assert_eq!(
        hints_with(start, &[("nest-cli.json", cli)])[0].0,
        "server/boot"
    );
    let mono = r#"{"sourceRoot": "apps/web/src", "projects": {"api": {"sourceRoot": "apps/api/src", "entryFile": "server"}}}"#;
    assert_eq!(
        hints_with(
            json!({"scripts": {"start": "nest start api"}}),
            &[("nest-cli.json", mono)]
        )[0]
        .0,
        "apps/api/src/server"
    );
    assert_eq!(
        hints_with(
            json!({"scripts": {"start": "nest start"}}),
            &[("nest-cli.json", mono)]
        )[0]
        .0,
        "apps/web/src/main"
    );
}

#[test]
fn scripts_run_in_another_folder_use_its_package() {
    let server = r#"{"main": "app.js", "scripts": {"start": "nodemon", "dev": "node src/dev.js"}}"#;
    let files = [("server/package.json", server)];
    let start = json!({"scripts": {
        "start": "concurrently -n server,client \"npm run server:start\" \"npm run client:start\"",
        "server:start": "npm start --prefix server",
        "client:start": "npm start --prefix client"}});
    assert_eq!(hints_with(start, &files)[0].0, "server/app.js");
    assert_eq!(
        hints_with(
            json!({"scripts": {"dev": "yarn --cwd ./server dev"}}),
            &files
        )[0]
        .0,
        "server/src/dev.js"
    );
    assert_eq!(
        hints_with(
            json!({"scripts": {"start": "pnpm -C server run dev"}}),
            &files
        )[0]
        .0,
        "server/src/dev.js"
    );
    // A folder with no package.json runs nothing known.
    assert!(
        hints_with(
            json!({"scripts": {"start": "npm start --prefix web"}}),
            &files
        )
        .is_empty()
    );
}

#[test]
fn workspace_targets_run_their_build_main() {
    let api = r#"{"name": "api", "targets": {
        "build": {"executor": "@nx/webpack:webpack", "options": {"main": "apps/api/src/main.ts"}},
        "serve": {"executor": "@nx/js:node", "options": {"buildTarget": "api:build"}}}}"#;
    let web = r#"{"projects": {"web": {"architect": {
        "build": {"builder": "@angular-devkit/build-angular:browser", "options": {"main": "web/main.ts"}},
        "serve": {"builder": "@angular-devkit/build-angular:dev-server", "options": {"browserTarget": "web:build"}}}}}}"#;
    let files = [("apps/api/project.json", api), ("angular.json", web)];
    assert_eq!(
        hints_with(
            json!({"scripts": {"start": "nx run api:serve:production --watch"}}),
            &files
        ),
        [(
            "apps/api/src/main.ts".to_string(),
            "scripts.start: `nx run api:serve:production` runs `apps/api/src/main.ts` (apps/api/project.json: @nx/js:node)"
                .to_string()
        )]
    );
    assert!(hints_with(json!({"scripts": {"start": "ng serve web"}}), &files).is_empty());
}

#[test]
fn script_arguments_are_appended() {
    let j = json!({"scripts": {
        "start": "npm run tsx -- src/server.ts",
        "tsx": "cross-env NODE_ENV=dev tsx watch"
    }});
    assert_eq!(hints_with(j, &[])[0].0, "src/server.ts");
}

#[test]
fn shell_launchers_are_read() {
    let run = "#!/usr/bin/env bash\nset -e\n# node old.js\nif [ -n \"$X\" ]; then\n  echo hi\nfi\nexec env NODE_PATH=_out \\\n  node ${NODE_OPTS} _out/server.js\n";
    assert_eq!(
        hints_with(
            json!({"scripts": {"start": "sandbox/run.sh"}}),
            &[("sandbox/run.sh", run)]
        ),
        [(
            "_out/server.js".to_string(),
            "scripts.start: `sandbox/run.sh` runs `node _out/server.js`".to_string()
        )]
    );
    assert_eq!(
        paths_with(
            json!({"scripts": {"start": "npm run boot", "boot": "sh ./bin/boot"}}),
            &[("bin/boot", "cd app\nnode build/main.js --port 80\n")]
        ),
        ["build/main.js"]
    );
    // Only shell scripts are read as launchers (not `package.json` here).
    assert_eq!(
        paths_with(
            json!({"scripts": {"start": "./run"}}),
            &[
                (
                    "run",
                    "v=$(node -p \"require('./package.json').version\")\nnode srv.js\n"
                ),
                ("package.json", "{\"scripts\": {\"x\": \"node other.js\"}}"),
            ]
        ),
        ["srv.js"]
    );
    // A Node script without an extension is the program itself.
    assert_eq!(
        paths_with(
            json!({"scripts": {"start": "./bin/www"}}),
            &[("bin/www", "#!/usr/bin/env node\nrequire('../app')\n")]
        ),
        ["bin/www"]
    );
}

fn paths_with(j: serde_json::Value, files: &[(&str, &str)]) -> Vec<String> {
    hints_with(j, files).into_iter().map(|(p, _)| p).collect()
}

#[test]
fn bins_and_main() {
    assert_eq!(
        paths(json!({"main": "app.js", "bin": {"srv": "./bin/srv.js"}})),
        ["app.js", "bin/srv.js"]
    );
}

#[test]
fn built_output_maps_to_its_source() {
    assert_eq!(source_of_built("dist/server.js"), ["src/server", "server"]);
    assert_eq!(
        source_of_built("dist/bin/peerjs.js"),
        ["src/bin/peerjs", "dist/src/peerjs", "bin/peerjs"]
    );
    assert_eq!(
        source_of_built("dist/src/main.js"),
        ["src/src/main", "src/main"]
    );
    assert!(source_of_built("server.js").is_empty());
    assert_eq!(source_of_built("production/app.js"), ["src/app"]);
    assert_eq!(
        source_of_built("daemon/production/app.js"),
        ["src/production/app", "daemon/src/app"]
    );
    assert_eq!(
        source_of_built("server/dist/index.js"),
        ["server/src/index", "src/dist/index", "server/index"]
    );
    assert!(source_of_built("src/app.js").is_empty());
}

#[test]
fn bundler_configs_name_their_entries() {
    assert_eq!(
        bundler_entries("module.exports = {\n  target: 'node',\n  entry: \"./src/app.ts\",\n};"),
        ["src/app.ts"]
    );
    assert_eq!(
        bundler_entries(
            "export default { entry: { main: './src/main.ts', worker: './src/worker.ts' } }"
        ),
        ["src/main.ts", "src/worker.ts"]
    );
    assert_eq!(
        bundler_entries(
            "export default { input: ['src/index.js'], output: { file: 'dist/x.js' } }"
        ),
        ["src/index.js"]
    );
    // Computed, or a key that only ends in `entry`.
    assert!(bundler_entries("const x = { entry: path.join(__dirname, 'a') }").is_empty());
    assert!(bundler_entries("const x = { reentry: './src/a.ts' }").is_empty());
}
