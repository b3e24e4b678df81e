//! Entry hints from a package manifest: the files a new user would expect
//! the server to start from, each with the reason it was chosen.
//!
//! Captures: `main`; the script that `scripts.start` (then `dev`, `serve`,
//! `start:prod`; when those name nothing, the scripts whose names say they
//! serve, [`serving_script`]) runs, through `npm run X` / `yarn X` / `pnpm
//! [run] X` hops, `&&`/`;` chains and `concurrently "…" "…"`, `cd dir &&
//! …` (the rest runs in that folder), environment prefixes (`FOO=1`,
//! `cross-env`, `dotenv -e .env --`, `env-cmd -f .env`, `dotenvx run --`), package-manager launchers (`yarn node
//! x`, `pnpm exec tsx x`, `npm exec -- x`, `yarn ts-node x`: yarn and pnpm
//! run a package's binary when no script has the name), and runners with
//! their flags (`node -r dotenv/config server`, `node --watch`, `nodemon
//! --exec ts-node src/x.ts` (the exec'd program runs with the rest), `ts-node-dev --respawn`, `tsx watch`, `pm2
//! start`, `forever start`, `babel-node`); `nest start [project]`, which
//! runs nest-cli.json's `sourceRoot` + `entryFile` (defaults `src`, `main`;
//! a monorepo's `projects.<name>`); `nx serve api`, `nx run api:serve` and
//! `ng serve api` in an Nx or Angular workspace, whose Node executor runs
//! the `main` of the build target it names (a browser app's dev server
//! gives nothing); `server.js` in the package's folder when there is no
//! `scripts.start` (what `npm start` runs then); shell launchers a script names
//! (`sandbox/run.sh`, `sh ./bin/start`), whose lines are read as commands
//! (`exec env NODE_PATH=_build node _build/server.js`), or which are Node
//! scripts themselves (`#!/usr/bin/env node`); a script named without an
//! extension or as a folder (`node server` → `server/index.js`, `node
//! dist/main`, resolved by the caller); built output that is not checked
//! in mapped back to its TypeScript source (`node dist/server.js` →
//! `src/server.ts`, through tsconfig `outDir`/`rootDir` first); `bin`
//! entries.
//!
//! Example: `{"scripts": {"start": "npm run serve", "serve": "cross-env
//! NODE_ENV=production node -r dotenv/config server"}}` gives `server`, the
//! folder, with the reason "scripts.start: `node server`".
//!
//! Deliberately not captured: runners configured elsewhere (`nodemon.json`,
//! `pm2` ecosystem files, Procfiles, Dockerfiles), shell control flow (every
//! line of a launcher counts, whichever branch runs it), `yarn workspace X
//! start` hops into another package (that package's own scripts are read).
//!
//! Also here: the program roots above a file that creates an app
//! ([`import_roots`]): a file that calls `express()` but that other files
//! import is a module of a program, not the program. The roots are the files
//! above it in the static import graph (imports, re-exports, literal
//! `require`/`import()` anywhere in a file) that no file imports, e.g.
//! `app.js` → `src/start.js` → `src/webserver.js`. Test files are not
//! importers; of the roots, those nearest their package's folder are kept
//! (`app.js` rather than `src/upgrades/x.js`).

use crate::loader::Loader;
use crate::project::{FileId, Resolved};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// One file a manifest names as a way the program starts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Hint {
    /// The path as written, relative to the manifest's folder, without `./`.
    pub(crate) path: String,
    /// Why it is a candidate (for the summary).
    pub(crate) reason: String,
    /// Named with a source extension or as `main`: a missing file is worth a finding.
    pub(crate) firm: bool,
}

/// Script runners: the first argument that is not a flag is the script.
const RUNNERS: &[&str] = &[
    "node",
    "nodemon",
    "ts-node",
    "ts-node-dev",
    "tsnd",
    "tsx",
    "babel-node",
    "node-dev",
    "esno",
    "esr",
    "bun",
    "supervisor",
    "ndb",
];

/// Flags whose value is the next word (for any runner above).
const VALUE_FLAGS: &[&str] = &[
    "-r",
    "--require",
    "--loader",
    "--experimental-loader",
    "--import",
    "-C",
    "--conditions",
    "--inspect-port",
    "--env-file",
    "-P",
    "--project",
    "-O",
    "--compiler-options",
    "--tsconfig",
    // nodemon
    "-x",
    "--exec",
    "-e",
    "--ext",
    "-w",
    "-i",
    "--ignore",
    "--signal",
    "--delay",
    "--config",
];

/// Words after which the script name follows (`tsx watch x`, `pm2 start x`).
const SUBCOMMANDS: &[&str] = &["watch", "start", "run"];

/// Source extensions a script may be named with.
fn has_source_ext(w: &str) -> bool {
    crate::project::SOURCE_EXTS
        .iter()
        .any(|e| w.ends_with(&format!(".{e}")))
}

/// The scripts read for the program's start, in order: what `npm start`
/// runs, the usual development and serving scripts, and the production
/// start of Nest's scaffold (`node dist/main`).
const START_SCRIPTS: &[&str] = &["start", "dev", "serve", "start:prod"];

/// A script named for serving the program, read when the usual start
/// scripts name none: a word of its name (split at `:`, `-`, `_`, `.`)
/// says it serves (`server`, `start:api`, `dev-backend`, `serve:prod`) and
/// none says it builds, tests, tends or serves a front end.
fn serving_script(name: &str) -> bool {
    const SERVES: &[&str] = &[
        "start",
        "serve",
        "server",
        "dev",
        "prod",
        "production",
        "backend",
        "api",
    ];
    const OTHER: &[&str] = &[
        "test",
        "tests",
        "build",
        "lint",
        "seed",
        "migrate",
        "migration",
        "migrations",
        "format",
        "clean",
        "doc",
        "docs",
        "storybook",
        "e2e",
        "client",
        "web",
        "frontend",
        "ui",
        "deploy",
        "release",
        "install",
        "prepare",
        "typecheck",
        "generate",
        "codegen",
        "worker",
        "cron",
        "coverage",
        "bench",
        "docker",
        "watch",
    ];
    let words: Vec<&str> = name.split([':', '-', '_', '.']).collect();
    words.iter().any(|w| SERVES.contains(w)) && !words.iter().any(|w| OTHER.contains(w))
}

/// Entry hints from one package.json, in a stable order. `read` gives the
/// text of a file named relative to the manifest's folder (the folder npm
/// runs scripts in): shell launchers and `nest-cli.json`.
pub(crate) fn package_hints(
    json: &serde_json::Value,
    read: &dyn Fn(&str) -> Option<String>,
) -> Vec<Hint> {
    let mut out: Vec<Hint> = Vec::new();
    if let Some(m) = json.get("main").and_then(|m| m.as_str()) {
        out.push(Hint {
            path: m.trim_start_matches("./").to_string(),
            reason: "main".into(),
            firm: true,
        });
    }
    let scripts = json.get("scripts").and_then(|s| s.as_object());
    let launch = Launch { json, read };
    let read_script = |key: &str, out: &mut Vec<Hint>| {
        let Some(cmd) = scripts.and_then(|s| s.get(key)).and_then(|s| s.as_str()) else {
            return;
        };
        let mut found = Vec::new();
        launch.command(cmd, 0, &mut found);
        for Target { path, how } in found {
            let firm = has_source_ext(&path);
            let hint = Hint {
                reason: format!("scripts.{key}: {how}"),
                path,
                firm,
            };
            if !out.iter().any(|h| h.path == hint.path) {
                out.push(hint);
            }
        }
    };
    let before = out.len();
    for key in START_SCRIPTS {
        read_script(key, &mut out);
    }
    // When none of those names a program, the scripts whose names say
    // they serve it (`server`, `start:api`, `dev:backend`), in name order.
    if out.len() == before {
        let mut serving: Vec<&str> = scripts
            .map(|s| {
                s.keys()
                    .map(String::as_str)
                    .filter(|k| serving_script(k))
                    .collect()
            })
            .unwrap_or_default();
        serving.sort_unstable();
        for key in serving {
            if !START_SCRIPTS.contains(&key) {
                read_script(key, &mut out);
            }
        }
    }
    // `npm start` with no `start` script runs `node server.js` when the
    // package has one (npm's documented default).
    if scripts.is_none_or(|s| !s.contains_key("start"))
        && !out.iter().any(|h| h.path == "server.js")
        && read("server.js").is_some()
    {
        out.push(Hint {
            path: "server.js".into(),
            reason: "npm start: `node server.js` (npm's default with no scripts.start)".into(),
            firm: false,
        });
    }
    let bins: Vec<String> = match json.get("bin") {
        Some(serde_json::Value::String(b)) => vec![b.clone()],
        Some(serde_json::Value::Object(m)) => m
            .values()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    };
    for b in bins {
        let path = b.trim_start_matches("./").to_string();
        if !out.iter().any(|h| h.path == path) {
            out.push(Hint {
                reason: "bin".into(),
                firm: false,
                path,
            });
        }
    }
    out
}

/// A script a command line runs, and how (for the reason).
struct Target {
    path: String,
    /// `` `node dist/bin/server.js` ``, `` `sandbox/run.sh` runs `node x.js` ``.
    how: String,
}

/// What a package's scripts can reach: its manifest and its folder's files.
struct Launch<'a> {
    json: &'a serde_json::Value,
    read: &'a dyn Fn(&str) -> Option<String>,
}

impl Launch<'_> {
    /// The scripts one command line runs.
    fn command(&self, cmd: &str, depth: u32, out: &mut Vec<Target>) {
        if depth > 4 {
            return;
        }
        // `a && b; c | d`, and the quoted commands of `concurrently "a" "b"`.
        // A `cd dir` runs what follows it in that folder (`cd apps/api &&
        // pnpm run server` runs that package's `server` script).
        let mut cwd: Option<&str> = None;
        for part in cmd.split(['"', '\'', ';', '|', '&', '\n']) {
            let mut words = part.split_whitespace().peekable();
            // Environment prefixes and wrappers (`!` negates a shell pipeline).
            while let Some(w) = words.peek() {
                let w = *w;
                if (w.contains('=') && !w.starts_with('-'))
                    || matches!(
                        w,
                        "cross-env"
                            | "cross-env-shell"
                            | "env"
                            | "npx"
                            | "exec"
                            | "time"
                            | "nice"
                            | "nohup"
                            | "!"
                            | "then"
                            | "do"
                            | "else"
                    )
                {
                    words.next();
                } else if w == "dotenv" || w == "dotenvx" {
                    // `dotenv -e .env -- cmd`, `dotenvx run -f .env -- cmd`
                    words.next();
                    for x in words.by_ref() {
                        if x == "--" {
                            break;
                        }
                    }
                } else if w == "env-cmd" {
                    // `env-cmd [-f .env.local] [-e prod,ci] [--silent] [--] cmd`
                    words.next();
                    while let Some(x) = words.peek() {
                        if matches!(
                            *x,
                            "-f" | "--file" | "-e" | "--environments" | "-r" | "--rc-file"
                        ) {
                            words.next();
                            words.next();
                        } else if *x == "--" {
                            words.next();
                            break;
                        } else if x.starts_with('-') {
                            words.next();
                        } else {
                            break;
                        }
                    }
                } else {
                    break;
                }
            }
            let words: Vec<&str> = words.collect();
            match (words.as_slice(), cwd) {
                (["cd", dir], _) => cwd = Some(dir),
                ([prog, args @ ..], Some(dir)) => self.run_in(dir, prog, args, depth, out),
                _ => self.program(&words, depth, out),
            }
        }
    }

    /// The scripts one program with its arguments runs.
    fn program(&self, words: &[&str], depth: u32, out: &mut Vec<Target>) {
        let Some((&prog, args)) = words.split_first() else {
            return;
        };
        let prog_name = prog.rsplit('/').next().unwrap_or(prog);
        match prog_name {
            "npm" | "pnpm" | "yarn" => {
                if self.in_folder(prog, args, depth, out) {
                    return;
                }
                let rest: Vec<&str> = args
                    .iter()
                    .copied()
                    .skip_while(|w| w.starts_with('-'))
                    .collect();
                let script = |n: &str| {
                    self.json
                        .get("scripts")
                        .and_then(|s| s.get(n))
                        .and_then(|s| s.as_str())
                };
                // A script run with arguments gets them appended (`yarn ng
                // serve api` with `"ng": "cross-env … nx"` runs `nx serve api`).
                let with_args = |next: &str, extra: &[&str]| {
                    let extra: Vec<&str> = extra.iter().copied().filter(|w| *w != "--").collect();
                    if extra.is_empty() {
                        next.to_string()
                    } else {
                        format!("{next} {}", extra.join(" "))
                    }
                };
                match rest.as_slice() {
                    ["run" | "run-script", name, extra @ ..] | [name @ "start", extra @ ..] => {
                        if let Some(next) = script(name) {
                            self.command(&with_args(next, extra), depth + 1, out);
                        }
                    }
                    // `npm exec -- tsx x`, `pnpm exec nest start`, `yarn node x`.
                    ["exec" | "x" | "dlx", cmd @ ..] => {
                        let cmd: Vec<&str> = cmd.iter().copied().filter(|w| *w != "--").collect();
                        self.program(&cmd, depth + 1, out);
                    }
                    ["node", ..] if prog_name == "yarn" => self.program(&rest, depth + 1, out),
                    // yarn and pnpm run a script by its name, else a
                    // package's binary (`yarn nest start`, `pnpm tsx x`).
                    [name, ..]
                        if prog_name != "npm"
                            && !matches!(*name, "workspace" | "install" | "add" | "build") =>
                    {
                        match script(name) {
                            Some(next) => {
                                self.command(&with_args(next, &rest[1..]), depth + 1, out)
                            }
                            None => self.program(&rest, depth + 1, out),
                        }
                    }
                    _ => {}
                }
            }
            "sh" | "bash" | "zsh" | "dash" => {
                // `sh run.sh`; `sh -c "…"` is split by the quotes already.
                if let Some(script) = args.iter().find(|w| !w.starts_with('-')) {
                    self.launcher(script, depth, out);
                }
            }
            "nest" => {
                if args.first() == Some(&"start")
                    && let Some(t) = self.nest_start(&args[1..])
                {
                    out.push(t);
                }
            }
            "nx" | "ng" => {
                if let Some(t) = self.workspace_target(prog_name, args) {
                    out.push(t);
                }
            }
            "pm2" | "forever" => {
                if let Some(t) = first_script(args, true, false) {
                    out.push(Target {
                        how: format!("`{prog_name} {t}`"),
                        path: t,
                    });
                }
            }
            p if RUNNERS.contains(&p) => {
                // `nodemon --exec pnpm run ts-node --inspect src/app.ts` runs
                // the exec'd program with the rest as its arguments.
                if p == "nodemon"
                    && let Some(i) = args.iter().position(|w| matches!(*w, "--exec" | "-x"))
                    && args.len() > i + 2
                {
                    let mut words = vec![args[i + 1]];
                    words.extend(&args[i + 2..]);
                    let before = out.len();
                    self.program(&words, depth + 1, out);
                    if out.len() > before {
                        return;
                    }
                }
                // `node --watch x` watches x; nodemon's `--watch dir` names a folder.
                let watch_value = matches!(
                    p,
                    "nodemon" | "ts-node-dev" | "tsnd" | "node-dev" | "supervisor"
                );
                if let Some(t) = first_script(args, p == "tsx" || p == "bun", watch_value) {
                    out.push(Target {
                        how: format!("`{p} {t}`"),
                        path: t,
                    });
                } else if p == "nodemon"
                    && let Some(main) = self.json.get("main").and_then(|m| m.as_str())
                {
                    // nodemon with no script runs the package's main.
                    let path = main.trim_start_matches("./").to_string();
                    out.push(Target {
                        how: format!("`nodemon` runs main `{path}`"),
                        path,
                    });
                }
            }
            // A program named by its path (`./bin/start`, `sandbox/run.sh`):
            // a shell launcher whose lines are read as commands.
            _ if prog.contains('/') || prog.ends_with(".sh") => self.launcher(prog, depth, out),
            _ => {}
        }
    }

    /// `npm start --prefix server`, `yarn --cwd server dev`, `pnpm -C server
    /// start` (also `--prefix=server`): the package in that folder runs the
    /// rest of the command with its own scripts; what it runs is named from
    /// this package's folder. False when the command names no folder.
    fn in_folder(&self, prog: &str, args: &[&str], depth: u32, out: &mut Vec<Target>) -> bool {
        let mut rest: Vec<&str> = Vec::new();
        let mut dir = None;
        let mut i = 0;
        while i < args.len() {
            let w = args[i];
            if let Some(d) = w
                .strip_prefix("--prefix=")
                .or(w.strip_prefix("--cwd="))
                .or(w.strip_prefix("--dir="))
            {
                dir = Some(d);
            } else if matches!(w, "--prefix" | "--cwd" | "--dir" | "-C") && i + 1 < args.len() {
                dir = Some(args[i + 1]);
                i += 1;
            } else {
                rest.push(w);
            }
            i += 1;
        }
        let Some(dir) = dir else {
            return false;
        };
        self.run_in(dir, prog, &rest, depth, out);
        true
    }

    /// `prog args` run in the folder `dir` (with its package's scripts when
    /// it has a manifest), named from this package's folder. A folder
    /// outside this one runs nothing that can be named.
    fn run_in(&self, dir: &str, prog: &str, args: &[&str], depth: u32, out: &mut Vec<Target>) {
        let dir = dir.trim_start_matches("./").trim_end_matches('/');
        if dir.is_empty()
            || dir == "."
            || dir.starts_with("..")
            || dir.starts_with('/')
            || depth > 4
        {
            return;
        }
        let json = (self.read)(&format!("{dir}/package.json"))
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .unwrap_or_else(|| serde_json::Value::Object(Default::default()));
        let read = |p: &str| (self.read)(&format!("{dir}/{p}"));
        let sub = Launch {
            json: &json,
            read: &read,
        };
        let mut words = vec![prog];
        words.extend(args);
        let mut found = Vec::new();
        sub.program(&words, depth + 1, &mut found);
        out.extend(found.into_iter().map(|t| Target {
            path: format!("{dir}/{}", t.path),
            how: format!("in `{dir}/`, {}", t.how),
        }));
    }

    /// The scripts a shell launcher runs: each of its lines read as a
    /// command (`exec env NODE_PATH=_build node _build/server.js`). A file
    /// whose first line starts Node (`#!/usr/bin/env node`) is a program itself.
    fn launcher(&self, path: &str, depth: u32, out: &mut Vec<Target>) {
        let path = path.trim_start_matches("./");
        // A shell script has no extension or a shell's (not `package.json`
        // in `node -p "require('./package.json')"`).
        let name = path.rsplit('/').next().unwrap_or(path);
        let shell = match name.rsplit_once('.') {
            Some((_, ext)) => matches!(ext, "sh" | "bash"),
            None => true,
        };
        // A source file run by its own shebang (`"start": "./source/cli.ts"`
        // with `#!/usr/bin/env tsx`) is the program.
        if has_source_ext(path) {
            let first = (self.read)(path).and_then(|t| t.lines().next().map(str::to_string));
            if let Some(first) = first.filter(|l| l.starts_with("#!")) {
                let runner = first
                    .split(|c: char| c.is_whitespace() || c == '/')
                    .find(|w| RUNNERS.contains(w));
                if let Some(runner) = runner {
                    out.push(Target {
                        path: path.to_string(),
                        how: format!("`{path}` (run by its shebang: {runner})"),
                    });
                }
            }
            return;
        }
        if !shell || depth > 4 {
            return;
        }
        let Some(text) = (self.read)(path) else {
            return;
        };
        let first = text.lines().next().unwrap_or("");
        if first.starts_with("#!") && first.contains("node") {
            out.push(Target {
                path: path.to_string(),
                how: format!("`{path}` (a Node script)"),
            });
            return;
        }
        let mut found = Vec::new();
        for line in text.replace("\\\n", " ").lines() {
            let line = line.trim();
            if !line.starts_with('#') {
                self.command(line, depth + 1, &mut found);
            }
        }
        out.extend(found.into_iter().map(|t| Target {
            how: format!("`{path}` runs {}", t.how),
            path: t.path,
        }));
    }

    /// The file `nest start [project]` builds and runs: `nest-cli.json`'s
    /// `sourceRoot` (default `src`) and `entryFile` (default `main`), those
    /// of `projects.<project>` when one is named, and the `--sourceRoot`,
    /// `--entryFile` and `-c/--config` options.
    fn nest_start(&self, args: &[&str]) -> Option<Target> {
        let mut config = "nest-cli.json";
        let (mut source_root, mut entry_file, mut project) = (None, None, None);
        let mut i = 0;
        while i < args.len() {
            let value = args.get(i + 1).copied();
            match args[i] {
                "-c" | "--config" => config = value.unwrap_or(config),
                "--sourceRoot" => source_root = value,
                "--entryFile" => entry_file = value,
                // Options whose value is the next word.
                "-p" | "--path" | "-e" | "--exec" | "-b" | "--builder" | "--env-file" => {}
                w if w.starts_with('-') => {
                    i += 1;
                    continue;
                }
                w => {
                    project.get_or_insert(w);
                    i += 1;
                    continue;
                }
            }
            i += 2;
        }
        let cli: serde_json::Value = (self.read)(config)
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        let scope = match project {
            Some(p) => cli.get("projects").and_then(|ps| ps.get(p))?,
            None => &cli,
        };
        let field = |k: &str| scope.get(k).and_then(|v| v.as_str());
        let root = source_root.or(field("sourceRoot")).unwrap_or("src");
        let entry = entry_file.or(field("entryFile")).unwrap_or("main");
        let root = root.trim_start_matches("./").trim_end_matches('/');
        let path = format!("{root}/{entry}");
        let named = match project {
            Some(p) => format!("`nest start {p}`"),
            None => "`nest start`".to_string(),
        };
        Some(Target {
            how: format!("{named} runs `{path}` ({config}: sourceRoot, entryFile)"),
            path,
        })
    }
}

impl Launch<'_> {
    /// The file an Nx or Angular workspace target runs: `nx serve api`,
    /// `nx run api:serve:production`, `ng serve api`. The project is
    /// `projects.<name>` of `angular.json`/`workspace.json` (inline, or a
    /// folder holding its `project.json`), else the `project.json` of
    /// `apps/<name>`, `packages/<name>`, `libs/<name>` or `<name>`. A target
    /// whose executor runs Node (`@nx/js:node`, `@nrwl/node:execute`: names
    /// ending `:node` or `:execute`) runs the `main` of the build target its
    /// `buildTarget` names (`api:build`); other executors (an Angular or
    /// Vite dev server) serve a browser app and give nothing.
    fn workspace_target(&self, tool: &str, args: &[&str]) -> Option<Target> {
        let words: Vec<&str> = args
            .iter()
            .copied()
            .filter(|w| !w.starts_with('-'))
            .collect();
        let (project, target) = match words.as_slice() {
            ["run", spec, ..] => {
                let mut parts = spec.split(':');
                (parts.next()?, parts.next()?)
            }
            [target, project, ..] => (*project, *target),
            _ => return None,
        };
        let (file, serve) = self.workspace_project_target(project, target)?;
        let executor = serve
            .get("executor")
            .or_else(|| serve.get("builder"))
            .and_then(|e| e.as_str())?;
        if !(executor.ends_with(":node") || executor.ends_with(":execute")) {
            return None;
        }
        let options = serve.get("options");
        let main = match options.and_then(|o| o.get("main")).and_then(|m| m.as_str()) {
            Some(main) => main.to_string(),
            None => {
                let build = options
                    .and_then(|o| o.get("buildTarget").or_else(|| o.get("target")))
                    .and_then(|b| b.as_str())?;
                let mut parts = build.split(':');
                let (p, t) = (parts.next()?, parts.next()?);
                let (_, build) = self.workspace_project_target(p, t)?;
                build
                    .get("options")
                    .and_then(|o| o.get("main"))
                    .and_then(|m| m.as_str())?
                    .to_string()
            }
        };
        let path = main.trim_start_matches("./").to_string();
        Some(Target {
            how: format!(
                "`{tool} {}` runs `{path}` ({file}: {executor})",
                words.join(" ")
            ),
            path,
        })
    }

    /// A workspace project's target (`targets` of Nx, `architect` of
    /// Angular), with the file that declares it.
    fn workspace_project_target(
        &self,
        project: &str,
        target: &str,
    ) -> Option<(String, serde_json::Value)> {
        let read_json = |f: &str| -> Option<serde_json::Value> {
            (self.read)(f).and_then(|t| serde_json::from_str(&t).ok())
        };
        let mut found: Option<(String, serde_json::Value)> = None;
        for ws in ["angular.json", "workspace.json"] {
            let Some(entry) = read_json(ws)
                .and_then(|j| j.get("projects").and_then(|ps| ps.get(project)).cloned())
            else {
                continue;
            };
            found = match entry {
                serde_json::Value::String(dir) => {
                    let f = format!("{}/project.json", dir.trim_end_matches('/'));
                    read_json(&f).map(|j| (f, j))
                }
                j => Some((ws.to_string(), j)),
            };
            break;
        }
        if found.is_none() {
            found = ["apps", "packages", "libs", ""].iter().find_map(|dir| {
                let f = if dir.is_empty() {
                    format!("{project}/project.json")
                } else {
                    format!("{dir}/{project}/project.json")
                };
                let j = read_json(&f)?;
                let named = j.get("name").and_then(|n| n.as_str());
                (named.is_none() || named == Some(project)).then_some((f, j))
            });
        }
        let (file, j) = found?;
        let t = j
            .get("targets")
            .or_else(|| j.get("architect"))
            .and_then(|ts| ts.get(target))?
            .clone();
        Some((file, t))
    }
}

/// The first word that is neither a flag nor a flag's value.
fn first_script(words: &[&str], subcommands: bool, watch_takes_value: bool) -> Option<String> {
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        if w.starts_with('-') {
            if VALUE_FLAGS.contains(&w) || (watch_takes_value && w == "--watch") {
                i += 1;
            }
        } else if (subcommands && SUBCOMMANDS.contains(&w)) || w.starts_with('$') {
            // A subcommand, or a shell expansion (`nodemon ${NODE_INSPECT} x`).
        } else {
            let w = w.trim_start_matches("./").trim_end_matches('/');
            return (!w.is_empty()).then(|| w.to_string());
        }
        i += 1;
    }
    None
}

/// For a script named as built output that is not in the repository, the
/// TypeScript source it is usually built from (`dist/server.js` →
/// `src/server`; `server/dist/index.js` → `server/src/index`, a package
/// folder named from the root): candidates, to be resolved by the caller.
/// An output folder of another name (`production/app.js` → `src/app`) is
/// tried after the usual ones, since its name says less, and the source
/// outside `src/` (`dist/bin/cli.js` → `bin/cli`) last.
pub(crate) fn source_of_built(path: &str) -> Vec<String> {
    let stem = path
        .strip_suffix(".js")
        .or_else(|| path.strip_suffix(".mjs"))
        .or_else(|| path.strip_suffix(".cjs"))
        .unwrap_or(path);
    // Each way to split the path into a package folder and a path in it.
    let splits: Vec<(&str, &str)> = std::iter::once(("", stem))
        .chain(
            stem.match_indices('/')
                .map(|(i, _)| (&stem[..=i], &stem[i + 1..])),
        )
        .collect();
    let mut out = Vec::new();
    for &(package, rest) in &splits {
        for built in ["dist/", "build/", "lib/", "out/"] {
            if let Some(inner) = rest.strip_prefix(built) {
                out.push(format!("{package}src/{inner}"));
                // `dist/src/main.js` (rootDir is the project root).
                if let Some(inner) = inner.strip_prefix("src/") {
                    out.push(format!("{package}src/{inner}"));
                }
            }
        }
    }
    for &(package, rest) in &splits {
        if let Some((folder, inner)) = rest.split_once('/')
            && !matches!(folder, "src" | "dist" | "build" | "lib" | "out")
            && !folder.starts_with('.')
        {
            out.push(format!("{package}src/{inner}"));
        }
    }
    // Last, the source beside `src/` (TypeScript's rootDir is the package's
    // folder: `dist/bin/cli.js` from `bin/cli.ts`).
    for &(package, rest) in &splits {
        for built in ["dist/", "build/", "lib/", "out/"] {
            if let Some(inner) = rest.strip_prefix(built)
                && !inner.starts_with("src/")
            {
                out.push(format!("{package}{inner}"));
            }
        }
    }
    out.dedup();
    out
}

/// The bundler configuration files read for the `entry` a bundle is built
/// from, relative to the package's folder.
pub(crate) const BUNDLER_CONFIGS: &[&str] = &[
    "webpack.config.js",
    "webpack.config.ts",
    "webpack.config.cjs",
    "webpack.config.mjs",
    "rollup.config.js",
    "rollup.config.mjs",
    "rollup.config.ts",
];

/// The source files a bundler configuration names as its entry (webpack's
/// `entry: './src/app.ts'`, an array or an object of such paths, rollup's
/// `input`), in the order written: the program a bundled `main` is built
/// from when the bundle is not checked in. Only literal paths with a source
/// extension or a `./` start are read; anything computed is left out.
pub(crate) fn bundler_entries(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for key in ["entry", "input"] {
        let mut from = 0;
        while let Some(at) = text[from..].find(key) {
            let start = from + at;
            from = start + key.len();
            let before = text[..start].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '.') {
                continue;
            }
            let rest = text[from..].trim_start();
            let Some(rest) = rest.strip_prefix(':') else {
                continue;
            };
            let rest = rest.trim_start();
            // One string, or the strings of the array or object that follows.
            let body = match rest.chars().next() {
                Some('\'' | '"' | '`') => rest,
                Some(open @ ('[' | '{')) => {
                    let close = if open == '[' { ']' } else { '}' };
                    &rest[1..rest.find(close).unwrap_or(rest.len())]
                }
                _ => continue,
            };
            let single = !matches!(rest.chars().next(), Some('[' | '{'));
            for lit in string_literals(body) {
                let path = lit.trim_start_matches("./");
                if (lit.starts_with("./") || has_source_ext(&lit))
                    && !path.is_empty()
                    && !path.contains(['*', '$'])
                    && !out.iter().any(|o| o == path)
                {
                    out.push(path.to_string());
                }
                if single {
                    break;
                }
            }
        }
    }
    out
}

/// The string literals in `text`, in order (quotes `'`, `"`, `` ` `` with no
/// substitution).
fn string_literals(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        if !matches!(c, '\'' | '"' | '`') {
            continue;
        }
        let Some(len) = text[i + 1..].find(c) else {
            break;
        };
        let lit = &text[i + 1..i + 1 + len];
        if !lit.contains("${") && !lit.contains('\n') {
            out.push(lit.to_string());
        }
        // Skip past the closing quote.
        for _ in 0..lit.chars().count() + 1 {
            chars.next();
        }
    }
    out
}

/// Flags of `babel`, `swc` and `tsc` whose value is the next word.
const VALUE_FLAGS_OF_BUILDS: &[&str] = &[
    "-d",
    "--out-dir",
    "--outDir",
    "--rootDir",
    "-x",
    "--extensions",
    "--ignore",
    "--only",
    "--config-file",
    "--env-name",
    "--root-mode",
    "--out-file-extension",
    "-o",
    "--out-file",
    "-C",
    "--config",
    "-p",
    "--project",
];

/// An output folder a package's build script writes, relative to the package.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct BuildOutput {
    /// The folder written (`lib`, `dist`).
    pub(crate) out: String,
    /// The folder compiled from, when the script says (`babel src -d lib`,
    /// `tsc --rootDir app`); `None`: TypeScript's common folder of the
    /// project's inputs, `src/` in `base` or `base` itself.
    pub(crate) source: Option<String>,
    /// The folder of the TypeScript project compiled (`tsc -p
    /// server/tsconfig.json`: `server`); the package's folder otherwise.
    pub(crate) base: String,
}

/// The output folders a package's own scripts build and what they build
/// them from: Babel's and SWC's `babel src/ -d lib/` (`--out-dir`), and
/// `tsc [-p server/tsconfig.json] --outDir dist [--rootDir app]`. A
/// `require('../lib/x')` of output that is not checked in then leads to the
/// source the script compiles.
pub(crate) fn build_outputs(json: &serde_json::Value) -> Vec<BuildOutput> {
    let clean = |w: &str| w.trim_start_matches("./").trim_end_matches('/').to_string();
    let mut out = Vec::new();
    let Some(scripts) = json.get("scripts").and_then(|s| s.as_object()) else {
        return out;
    };
    for cmd in scripts.values().filter_map(|c| c.as_str()) {
        for part in cmd.split(['"', '\'', ';', '|', '&', '\n']) {
            let words: Vec<&str> = part.split_whitespace().collect();
            let Some(at) = words
                .iter()
                .position(|w| matches!(w.rsplit('/').next(), Some("babel" | "swc" | "tsc")))
            else {
                continue;
            };
            let tsc = words[at].ends_with("tsc");
            let (mut source, mut output, mut project) = (None, None, None);
            let mut i = at + 1;
            while i < words.len() {
                let w = words[i];
                let (flag, inline) = match w.split_once('=') {
                    Some((f, v)) if f.starts_with('-') => (f, Some(v)),
                    _ => (w, None),
                };
                let value = || inline.or_else(|| words.get(i + 1).copied());
                match flag {
                    "-d" | "--out-dir" if !tsc => output = value().map(clean),
                    "--outDir" if tsc => output = value().map(clean),
                    "--rootDir" if tsc => source = value().map(clean),
                    "-p" | "--project" if tsc => project = value().map(clean),
                    _ if !w.starts_with('-') && !tsc && source.is_none() => source = Some(clean(w)),
                    _ => {}
                }
                // Flags that take a value (`--extensions .ts,.js`, `-p tsconfig.json`).
                if inline.is_none() && VALUE_FLAGS_OF_BUILDS.contains(&flag) {
                    i += 1;
                }
                i += 1;
            }
            // `-p` names a tsconfig file or the folder holding one.
            let base = match project {
                Some(p) if p.ends_with(".json") => p
                    .rsplit_once('/')
                    .map_or(String::new(), |(d, _)| d.to_string()),
                Some(p) if p != "." => p,
                _ => String::new(),
            };
            let Some(o) = output else {
                continue;
            };
            if o.is_empty()
                || (!tsc && source.is_none())
                || source
                    .as_ref()
                    .is_some_and(|s| *s == o || s.contains(['*', '$']))
                || o.contains(['*', '$'])
            {
                continue;
            }
            out.push(BuildOutput {
                out: o,
                source,
                base,
            });
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The most files the climb visits above one app-creating file.
const CLIMB_LIMIT: usize = 4000;

/// The program roots above `target` (see the module doc), each with the
/// chain of files from it down to `target`: those nearest their package's
/// folder, or with `every_depth` all of them, nearest first; empty when nothing but tests
/// imports `target` (it is its own root) or when every importer is imported
/// in turn (a cycle with no way in).
pub(crate) fn import_roots(
    loader: &Arc<Loader>,
    target: FileId,
    every_depth: bool,
) -> Vec<(FileId, Vec<FileId>)> {
    let project = &loader.project;
    // Who imports whom, found level by level: `below[f]` is a file `f` imports.
    let mut below: BTreeMap<FileId, FileId> = BTreeMap::new();
    let mut importers: BTreeMap<FileId, BTreeSet<FileId>> = BTreeMap::new();
    let mut seen: BTreeSet<FileId> = BTreeSet::from([target]);
    let mut frontier: BTreeSet<FileId> = BTreeSet::from([target]);
    while !frontier.is_empty() && seen.len() < CLIMB_LIMIT {
        let found = importers_of(loader, &frontier);
        let mut next = BTreeSet::new();
        for (t, froms) in found {
            for f in froms {
                importers.entry(t).or_default().insert(f);
                if seen.insert(f) {
                    below.insert(f, t);
                    next.insert(f);
                }
            }
        }
        frontier = next;
    }
    if seen.len() == 1 {
        return Vec::new();
    }
    let roots: Vec<FileId> = seen
        .iter()
        .copied()
        .filter(|f| !importers.contains_key(f))
        .collect();
    // Nearest the folder of the package.json it belongs to (or the root).
    let depth = |f: FileId| {
        let rel = project.rel(f);
        let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        let pkg = project.package_dir_of(dir);
        dir[pkg.len()..]
            .split('/')
            .filter(|s| !s.is_empty())
            .count()
    };
    let Some(best) = roots.iter().map(|&f| depth(f)).min() else {
        return Vec::new();
    };
    let mut roots: Vec<FileId> = roots
        .into_iter()
        .filter(|&f| every_depth || depth(f) == best)
        .collect();
    roots.sort_by_key(|&f| depth(f));
    roots
        .into_iter()
        .map(|f| {
            let mut chain = vec![f];
            let mut at = f;
            while let Some(&next) = below.get(&at) {
                chain.push(next);
                at = next;
            }
            (f, chain)
        })
        .collect()
}

/// For each file of `targets`, the project files (tests aside) whose
/// imports resolve to it. Only the files whose bytes import a target
/// ([`Loader::byte_importers`]) are parsed to confirm it.
fn importers_of(
    loader: &Arc<Loader>,
    targets: &BTreeSet<FileId>,
) -> BTreeMap<FileId, BTreeSet<FileId>> {
    let project = &loader.project;
    let candidates: BTreeSet<FileId> = targets
        .iter()
        .flat_map(|&t| loader.byte_importers(t).iter().copied())
        .filter(|&i| {
            let f = &project.files[i as usize];
            !crate::is_test_path(&f.rel) && f.size <= 2 << 20
        })
        .collect();
    loader.prefetch(candidates.iter().copied());
    let mut out: BTreeMap<FileId, BTreeSet<FileId>> = BTreeMap::new();
    for f in candidates {
        let loaded = loader.get(f);
        // (A type-only import loads nothing: `import type { Id } from
        // '../server/connect'` in shared types does not make the frontend
        // that imports them a program of the server's.)
        for spec in loaded.facts.loaded_modules() {
            if let Resolved::File(t) = project.resolve(f, spec)
                && t != f
                && targets.contains(&t)
            {
                out.entry(t).or_default().insert(f);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
