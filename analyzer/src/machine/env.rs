//! `process.env` variables the repository documents.
//!
//! A variable the code reads with no default of its own (`` `/${process.env.
//! BASE_API_URL}` ``) is only known at run time. Many repositories document
//! their variables in an env template that users copy to `.env` before the
//! first start (`.env.example`, `.env.sample`, …, see [`TEMPLATES`]). A
//! non-empty value a template gives for the variable is taken as the default
//! a path may be charted under, exactly as a default written in the code
//! (`process.env.BASE_API_URL || 'api'`) is: the route is charted under it,
//! conditional, and a `dynamic-path` finding (cause `assumed-default`) names
//! the variable, the value and the template.
//!
//! Lookup: the templates of the folder of the file that reads the variable,
//! then of each folder above it up to the root; in one folder, the first
//! template in [`TEMPLATES`] order that gives the variable. A template read
//! is recorded as an input of the run (it is listed among the source files,
//! and editing it re-derives the documents).
//!
//! Such a value is what the variable may be, not what it is: it decides no
//! branch (`if (process.env.FEATURE)` runs both ways, as a read with no
//! template does), and a default the code writes beside it wins
//! (`process.env.PREFIX || '/v1'` is `/v1`, whatever the template says).
//!
//! Deliberately not read: `.env` itself and other env files that are a
//! deployment's own settings (often secrets, usually not in the repository);
//! empty values (`JWT_SECRET=`); variable expansion (`${OTHER}`) in values.

use super::Interp;
use crate::project::FileId;
use crate::value::Value;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

/// Env templates, in the order one folder's are consulted.
const TEMPLATES: &[&str] = &[
    ".env.example",
    ".env.sample",
    ".env.template",
    ".env.defaults",
    ".env.default",
    ".env.dist",
    "example.env",
    "sample.env",
    "env.example",
];

/// What one folder's templates give: variable → (value, template path).
type FolderDocs = Rc<BTreeMap<String, (String, String)>>;

/// The templates read so far, by folder, and the strings made from them.
#[derive(Default)]
pub(crate) struct EnvDocs {
    folders: HashMap<String, FolderDocs>,
    /// Addresses of the strings a template gave (see [`Interp::env_documented`]).
    documented: HashSet<usize>,
}

impl Interp {
    /// `process.env[name]` read in `file`: the value a template documents
    /// (a default taken for a run-time value), else unknown.
    pub(crate) fn env_read(&mut self, file: FileId, name: &str) -> Value {
        let rel = self.loader.project.rel(file).to_string();
        let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        for dir in crate::project::ancestors(dir) {
            let docs = self.env_folder(dir);
            if let Some((value, template)) = docs.get(name) {
                let when =
                    format!("process.env.{name} is `{value}`, the value {template} documents");
                let v = self.assume(value, when);
                if let Value::Str(s) = &v {
                    self.js
                        .env
                        .documented
                        .insert(Rc::as_ptr(s) as *const u8 as usize);
                }
                return v;
            }
        }
        Value::external()
    }

    /// Whether `v` is a string a template gave: what the variable may be,
    /// so it decides no test (see the module doc and [`Interp::truth`]).
    pub(crate) fn env_documented(&self, v: &Value) -> bool {
        matches!(v, Value::Str(s) if self
            .js
            .env
            .documented
            .contains(&(Rc::as_ptr(s) as *const u8 as usize)))
    }

    /// One folder's templates, read once.
    fn env_folder(&mut self, dir: &str) -> FolderDocs {
        if let Some(d) = self.js.env.folders.get(dir) {
            return d.clone();
        }
        let mut out: BTreeMap<String, (String, String)> = BTreeMap::new();
        for name in TEMPLATES {
            let rel = if dir.is_empty() {
                (*name).to_string()
            } else {
                format!("{dir}/{name}")
            };
            if !self.loader.project.root.join(&rel).is_file() {
                continue;
            }
            let Value::Str(text) = self.read_repo_file(&rel) else {
                continue;
            };
            for (k, v) in parse(&text) {
                out.entry(k).or_insert_with(|| (v, rel.clone()));
            }
        }
        let docs = Rc::new(out);
        self.js.env.folders.insert(dir.to_string(), docs.clone());
        docs
    }
}

/// The non-empty `NAME=value` assignments of an env file, as dotenv reads
/// them: `export ` prefixes, quoted values (single, double or backtick), and
/// `#` comments on their own line or after an unquoted value.
fn parse(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        let line = line.strip_prefix("export ").unwrap_or(line).trim_start();
        if line.starts_with('#') {
            continue;
        }
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        let k = k.trim();
        if k.is_empty()
            || !k
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-')
        {
            continue;
        }
        let v = v.trim();
        let value = match v.chars().next() {
            Some(q @ ('"' | '\'' | '`')) => match v[1..].find(q) {
                Some(end) => v[1..1 + end].to_string(),
                None => continue,
            },
            _ => match v.find(" #") {
                Some(i) => v[..i].trim_end().to_string(),
                None => v.to_string(),
            },
        };
        if !value.is_empty() {
            out.push((k.to_string(), value));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn env_files_read_as_dotenv_reads_them() {
        let text = "# comment\nPORT=3000\nexport BASE_PATH=/api # the prefix\nEMPTY=\nQ=\"/v1 #x\"\nS='a b'\n bad line\n=x\nURL=http://h/#frag\n";
        assert_eq!(
            parse(text),
            vec![
                ("PORT".to_string(), "3000".to_string()),
                ("BASE_PATH".to_string(), "/api".to_string()),
                ("Q".to_string(), "/v1 #x".to_string()),
                ("S".to_string(), "a b".to_string()),
                ("URL".to_string(), "http://h/#frag".to_string()),
            ]
        );
    }
}
