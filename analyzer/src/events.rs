//! The Socket.IO inventory from the recorded sites: events grouped by
//! namespace and name, payload schemas merged across sites, and the
//! cross-checks between server and client sides.
//!
//! Deliberately not here: finding the sites (`machine::sockets`).

use crate::inventory::*;
use crate::machine::{self, Interp};
use crate::mounts::loc;
use crate::project::{FileId, Project};
use crate::{AnalyzeOptions, unread_client};
use std::collections::{BTreeMap, BTreeSet};

/// Group event sites into events per (namespace, name), with cross-checks.
pub(crate) fn build_events(
    project: &Project,
    interp: &Interp,
    have_entries: bool,
    reached: &BTreeSet<FileId>,
    opts: &AnalyzeOptions,
    findings: &mut Vec<Finding>,
) -> (Vec<SocketServer>, Vec<Event>, EventStats) {
    // Sides named in the configuration win over what the values say.
    let under = |dirs: &[String], file: &str| {
        dirs.iter().any(|d| {
            let d = d.trim_matches('/');
            d.is_empty() || file == d || file.starts_with(&format!("{d}/"))
        })
    };
    let flip = |d: Direction| match d {
        Direction::ClientToServer => Direction::ServerToClient,
        Direction::ServerToClient => Direction::ClientToServer,
    };
    let sites: Vec<machine::RawSite> = interp
        .rec
        .sites
        .iter()
        .map(|s| {
            let file = project.rel(s.file);
            let mut s = s.clone();
            let want = if under(&opts.client_dirs, file) {
                Some(Side::Client)
            } else if under(&opts.server_dirs, file) {
                Some(Side::Server)
            } else {
                None
            };
            if let Some(side) = want
                && side != s.side
            {
                s.side = side;
                s.direction = flip(s.direction);
            }
            s
        })
        .collect();
    // A server that only the event pass reached (a separate program, such as a
    // worker started with fork()) is reported, and its events left out, when the
    // entries reach a server of their own.
    let any_reached = interp.rec.sio_servers.iter().any(|s| s.reached);
    let separate: BTreeSet<u32> = interp
        .rec
        .sio_servers
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.reached && s.separate && (any_reached || have_entries))
        .map(|(i, _)| i as u32)
        .collect();
    for &i in &separate {
        let s = &interp.rec.sio_servers[i as usize];
        findings.push(Finding {
            code: FindingCode::SeparateServer,
            at: loc(project, s.file, s.line),
            message: "a Socket.IO server in a file no entry reaches (a separate program?); its events are not listed; name it with --entry to include it".into(),
            cause: None,
        });
    }
    let servers: Vec<SocketServer> = interp
        .rec
        .sio_servers
        .iter()
        .enumerate()
        .filter(|(i, _)| !separate.contains(&(*i as u32)))
        .map(|(_, s)| SocketServer {
            at: loc(project, s.file, s.line),
            path: s.path.clone(),
            namespaces: s.namespaces.iter().cloned().collect(),
        })
        .collect();
    let unfollowed = unfollowed_client_emits(project, interp, &sites);
    let mut groups: BTreeMap<(String, String), Vec<&machine::RawSite>> = BTreeMap::new();
    for site in sites.iter().filter(|s| !separate.contains(&s.server)) {
        groups
            .entry((site.ns.clone(), site.name.clone()))
            .or_default()
            .push(site);
    }
    let mut events = Vec::new();
    let mut stats = EventStats::default();
    let mut files: BTreeSet<FileId> = BTreeSet::new();
    let kept = || sites.iter().filter(|s| !separate.contains(&s.server));
    let has_client = kept().any(|s| s.side == Side::Client);
    let has_server = kept().any(|s| s.side == Side::Server);
    // A server-side `onAny` (in a file with server sites) whose names no table
    // resolved may receive any name a client emits: no `unhandled-event` then
    // (one that looks its handlers up in a known table charts them instead,
    // see `libs/socketio_rpc.rs`).
    let server_files: BTreeSet<FileId> = kept()
        .filter(|s| s.side == Side::Server)
        .map(|s| s.file)
        .collect();
    let catch_all = interp
        .rec
        .findings
        .iter()
        .any(|f| f.code == FindingCode::CatchAllListener && server_files.contains(&f.file));
    for ((ns, name), raw) in &groups {
        let mut sites: Vec<EventSite> = raw
            .iter()
            .map(|r| {
                files.insert(r.file);
                EventSite {
                    at: loc(project, r.file, r.line),
                    side: r.side,
                    direction: r.direction,
                    kind: r.kind.to_string(),
                    via: r.via.clone(),
                    rooms: r.rooms.clone(),
                    args: r.args.clone(),
                    ack: r.ack,
                    reached: r.assumed.as_ref().map(|a| Reached {
                        how: "assumed-namespace".into(),
                        via: a.func.clone(),
                        at: loc(project, a.file, a.line),
                    }),
                }
            })
            .collect();
        sites.sort();
        // One site per place: a site reached from an entry wins over the same
        // site charted with its namespace assumed (sorted first: `None`), and
        // one assumption is enough (the first function, in source order).
        sites.dedup_by(|b, a| {
            (
                &a.at,
                a.side,
                a.direction,
                &a.kind,
                &a.via,
                &a.rooms,
                &a.args,
                a.ack,
            ) == (
                &b.at,
                b.side,
                b.direction,
                &b.kind,
                &b.via,
                &b.rooms,
                &b.args,
                b.ack,
            )
        });
        let directions: Vec<Direction> = sites
            .iter()
            .map(|s| s.direction)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        // (Only the library emits on a client's Manager.)
        let lifecycle = raw.iter().all(|s| s.manager)
            || (machine::RESERVED_EVENTS.contains(&name.as_str())
                && !crate::libs::socketio::sent_as_message(project, name, raw)
                && !crate::libs::socketio_client::client_socket_error(project, name, raw))
            || machine::client_lifecycle(name, raw);
        let mut rooms: Vec<String> = sites.iter().flat_map(|s| s.rooms.clone()).collect();
        rooms.sort();
        rooms.dedup();
        let mut payload = BTreeMap::new();
        let mut ack = BTreeMap::new();
        // Per direction, the payload the code states best: a validator's or a
        // type's over literals; literals from every site merged (see `merge_literals`).
        // Sites in file order, so the result does not depend on evaluation order.
        let mut stated: Vec<&&machine::RawSite> =
            raw.iter().filter(|r| r.payload.is_some()).collect();
        stated.sort_by(|a, b| (project.rel(a.file), a.line).cmp(&(project.rel(b.file), b.line)));
        for dir in [Direction::ClientToServer, Direction::ServerToClient] {
            let source = |r: &machine::RawSite| -> &'static str {
                match r.payload_source {
                    Some(src) => src,
                    None if r.kind == "on" || r.kind == "once" => "typescript",
                    None => "literal",
                }
            };
            let here: Vec<&&machine::RawSite> = stated
                .iter()
                .copied()
                .filter(|r| r.direction == dir)
                .collect();
            let Some(best) = here
                .iter()
                .copied()
                .find(|r| source(r) != "literal")
                .or(here.first().copied())
            else {
                continue;
            };
            let schema = if source(best) == "literal" {
                let all: Vec<&serde_json::Value> =
                    here.iter().filter_map(|r| r.payload.as_ref()).collect();
                merge_literals(&all)
            } else {
                best.payload.clone().unwrap_or_default()
            };
            payload.insert(
                dir,
                SchemaInfo {
                    schema,
                    source: source(best).into(),
                    name: None,
                    at: loc(project, best.file, best.line),
                },
            );
        }
        for r in raw.iter() {
            if let Some(a) = &r.ack_schema {
                ack.insert(
                    r.direction,
                    SchemaInfo {
                        schema: a.clone(),
                        source: "typescript".into(),
                        name: None,
                        at: loc(project, r.file, r.line),
                    },
                );
            } else if r.ack {
                ack.entry(r.direction).or_insert_with(|| SchemaInfo {
                    schema: serde_json::json!({}),
                    source: "literal".into(),
                    name: None,
                    at: loc(project, r.file, r.line),
                });
            }
        }
        if lifecycle {
            stats.lifecycle += 1;
        } else {
            stats.events += 1;
            let c2s = directions.contains(&Direction::ClientToServer);
            let s2c = directions.contains(&Direction::ServerToClient);
            stats.client_to_server += usize::from(c2s);
            stats.server_to_client += usize::from(s2c);
            stats.bidirectional += usize::from(c2s && s2c);
            if has_client && has_server {
                cross_check(
                    project,
                    ns,
                    name,
                    raw,
                    &groups,
                    reached,
                    catch_all,
                    &unfollowed,
                    findings,
                );
            }
        }
        events.push(Event {
            name: name.clone(),
            pattern: raw.iter().any(|r| r.pattern),
            namespace: ns.clone(),
            directions,
            lifecycle,
            namespace_assumed: sites.iter().all(|s| s.reached.is_some()),
            sites,
            payload,
            ack,
            rooms,
        });
    }
    // "No client emits it" may be the client code the analysis did not read.
    if findings
        .iter()
        .any(|f| f.code == FindingCode::UnemittedEvent)
        && let Some(note) =
            unread_client::note(&project.root, &|rel| project.file_id(rel).is_some())
    {
        for f in findings
            .iter_mut()
            .filter(|f| f.code == FindingCode::UnemittedEvent)
        {
            f.message.push_str(&note);
        }
    }
    stats.source_files = files.len();
    (servers, events, stats)
}

/// Whether two event names can be the same event (`{x}` matches anything).
fn names_match(a: &str, b: &str) -> bool {
    fn to_parts(p: &str) -> Vec<(bool, &str)> {
        let mut out = Vec::new();
        let mut rest = p;
        while let Some(i) = rest.find('{') {
            out.push((false, &rest[..i]));
            match rest[i..].find('}') {
                Some(j) => {
                    out.push((true, ""));
                    rest = &rest[i + j + 1..];
                }
                None => {
                    out.push((false, &rest[i..]));
                    rest = "";
                }
            }
        }
        out.push((false, rest));
        out
    }
    if a == b {
        return true;
    }
    if !a.contains('{') && !b.contains('{') {
        return false;
    }
    // A literal against a pattern: the pattern's fixed parts in order.
    let (pat, lit) = if a.contains('{') { (a, b) } else { (b, a) };
    let parts = to_parts(pat);
    let mut pos = 0usize;
    let mut wild = false;
    for (is_wild, text) in parts {
        if is_wild {
            wild = true;
            continue;
        }
        if text.is_empty() {
            continue;
        }
        if wild {
            match lit[pos..].find(text) {
                Some(i) => pos += i + text.len(),
                None => return false,
            }
        } else if lit[pos..].starts_with(text) {
            pos += text.len();
        } else {
            return false;
        }
        wild = false;
    }
    wild || pos == lit.len()
}

/// Client sites the analysis read but could not chart, which make "no client
/// emits it" or "no client listens for it" claims it cannot make.
#[derive(Default)]
struct UnfollowedClient {
    /// Per literal event name, the first call that emits it on a receiver the
    /// analysis could not follow (a socket handed down as a React prop, a
    /// property set after the object was made), as (file, line, receiver).
    emits: BTreeMap<String, (FileId, u32, String)>,
    /// Per literal event name, the first call that listens for it on such a
    /// receiver (`this.props.socket.on('removeClaim', …)`), as (file, line,
    /// receiver).
    listens: BTreeMap<String, (FileId, u32, String)>,
    /// The first emit whose event name is only known at run time
    /// (`socket.emit(message.type, message.data)`), as (file, line, call).
    run_time_emit: Option<(FileId, u32, String)>,
    /// The first listener whose event name is only known at run time
    /// (`socket.on(handler.type, handler.fn)`), as (file, line, call).
    run_time_listen: Option<(FileId, u32, String)>,
}

/// Client code the analysis read whose Socket.IO-shaped sites it could not
/// chart (see [`UnfollowedClient`]).
fn unfollowed_client_emits(
    project: &Project,
    interp: &Interp,
    sites: &[machine::RawSite],
) -> UnfollowedClient {
    use crate::census::{CensusKind, SocketShape, imports_client_framework, is_client_path};
    let charted: BTreeSet<(FileId, u32)> = sites.iter().map(|s| (s.file, s.line)).collect();
    let mut out = UnfollowedClient::default();
    for &f in &interp.rec.touched {
        let rel = project.rel(f);
        if crate::is_test_path(rel) {
            continue;
        }
        let facts = interp.loader.get(f).facts.clone();
        if !is_client_path(rel) && !imports_client_framework(&facts) {
            continue;
        }
        for it in &facts.census {
            if it.kind != CensusKind::Event
                || it.socket_shape == SocketShape::Plain
                || charted.contains(&(f, it.line))
            {
                continue;
            }
            // A literal name, whole (`short_text` writes `'name'`), or one
            // only known at run time (a name or member, not a template with
            // a literal part, which names a family of events).
            let literal = it
                .first
                .strip_prefix('\'')
                .and_then(|t| t.strip_suffix('\''));
            // (It ran on a Socket.IO object and was not charted.)
            let run_time = !it.first.starts_with(['\'', '`'])
                && interp.rec.census.sites.get(&(f, it.line)).is_some_and(|s| {
                    s.main == Some(machine::census_rec::Recv::Socket)
                        || s.later == Some(machine::census_rec::Recv::Socket)
                });
            match (literal, it.method.as_str()) {
                (Some(name), "emit") => {
                    out.emits
                        .entry(name.to_string())
                        .or_insert_with(|| (f, it.line, it.receiver.clone()));
                }
                (Some(name), "on" | "once") => {
                    out.listens
                        .entry(name.to_string())
                        .or_insert_with(|| (f, it.line, it.receiver.clone()));
                }
                (None, "emit") if run_time => {
                    out.run_time_emit
                        .get_or_insert_with(|| (f, it.line, it.describe()));
                }
                (None, "on" | "once") if run_time => {
                    out.run_time_listen
                        .get_or_insert_with(|| (f, it.line, it.describe()));
                }
                _ => {}
            }
        }
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn cross_check(
    project: &Project,
    ns: &str,
    name: &str,
    raw: &[&machine::RawSite],
    groups: &BTreeMap<(String, String), Vec<&machine::RawSite>>,
    reached: &BTreeSet<FileId>,
    catch_all: bool,
    unfollowed: &UnfollowedClient,
    findings: &mut Vec<Finding>,
) {
    let any = |side: Side, dir: Direction| -> bool {
        groups.iter().any(|((n2, e2), sites)| {
            // (A namespace only known at run time, on either side, may be any.)
            (n2 == ns
                || n2.starts_with('{')
                || ns.starts_with('{')
                || n2.starts_with('/') && n2.contains(['^', '(']))
                && names_match(e2, name)
                && sites.iter().any(|s| s.side == side && s.direction == dir)
        })
    };
    let first =
        |side: Side, dir: Direction| raw.iter().find(|s| s.side == side && s.direction == dir);
    if let Some(s) = first(Side::Client, Direction::ClientToServer)
        && !catch_all
        && !any(Side::Server, Direction::ClientToServer)
    {
        findings.push(Finding {
            code: FindingCode::UnhandledEvent,
            at: loc(project, s.file, s.line),
            message: format!(
                "the client emits `{name}` on `{ns}`, but no server handler receives it"
            ),
            cause: None,
        });
    }
    if let Some(s) = first(Side::Server, Direction::ClientToServer)
        && !any(Side::Client, Direction::ClientToServer)
    {
        findings.push(Finding {
            code: FindingCode::UnemittedEvent,
            at: loc(project, s.file, s.line),
            message: match (unfollowed.emits.get(name), &unfollowed.run_time_emit) {
                (Some((f, line, receiver)), _) => format!(
                    "the server listens for `{name}` on `{ns}`, but no client emits it where the analysis could follow: `{receiver}.emit('{name}'…)` at {}:{line} is client code whose receiver is only known at run time (a socket handed down as a prop or set later)",
                    project.rel(*f)
                ),
                (None, Some((f, line, call))) => format!(
                    "the server listens for `{name}` on `{ns}`, but no client site the analysis could read emits it: client code emits names only known at run time ({call} at {}:{line}), which may include it",
                    project.rel(*f)
                ),
                (None, None) => format!(
                    "the server listens for `{name}` on `{ns}`, but no client emits it"
                ),
            },
            cause: None,
        });
    }
    if let Some(s) = first(Side::Server, Direction::ServerToClient)
        && !any(Side::Client, Direction::ServerToClient)
    {
        findings.push(Finding {
            code: FindingCode::UnheardEvent,
            at: loc(project, s.file, s.line),
            message: match (unfollowed.listens.get(name), &unfollowed.run_time_listen) {
                (Some((f, line, receiver)), _) => format!(
                    "the server emits `{name}` on `{ns}`, but no client listens for it where the analysis could follow: `{receiver}.on('{name}'…)` at {}:{line} is client code whose receiver is only known at run time (a socket handed down as a prop or set later)",
                    project.rel(*f)
                ),
                (None, Some((f, line, call))) => format!(
                    "the server emits `{name}` on `{ns}`, but no client site the analysis could read listens for it: client code listens for names only known at run time ({call} at {}:{line}), which may include it",
                    project.rel(*f)
                ),
                (None, None) => {
                    format!("the server emits `{name}` on `{ns}`, but no client listens for it")
                }
            },
            cause: None,
        });
    }
    // A client in the server's own code (what the entries run) talks to
    // another service: what it listens for is that service's API.
    if let Some(s) = raw.iter().find(|s| {
        s.side == Side::Client
            && s.direction == Direction::ServerToClient
            && !reached.contains(&s.file)
    }) && !any(Side::Server, Direction::ServerToClient)
    {
        findings.push(Finding {
            code: FindingCode::UnsentEvent,
            at: loc(project, s.file, s.line),
            message: format!(
                "the client listens for `{name}` on `{ns}`, but the analysis found no server site that emits it"
            ),
            cause: None,
        });
    }
}

/// One schema for what several sites send as literals: objects merge (every
/// property any site sends; required what every site sends); otherwise the
/// first site's.
fn merge_literals(all: &[&serde_json::Value]) -> serde_json::Value {
    use serde_json::{Map, Value};
    let Some(first) = all.first() else {
        return Value::Object(Map::new());
    };
    let is_object = |v: &Value| v.get("type").and_then(Value::as_str) == Some("object");
    if all.len() > 1 && all.iter().all(|v| is_object(v)) {
        let mut props = Map::new();
        for v in all {
            if let Some(Value::Object(p)) = v.get("properties") {
                for (k, s) in p {
                    props.entry(k.clone()).or_insert_with(|| s.clone());
                }
            }
        }
        let required: Vec<Value> = props
            .keys()
            .filter(|k| {
                all.iter().all(|v| {
                    v.get("required")
                        .and_then(Value::as_array)
                        .is_some_and(|r| r.iter().any(|x| x.as_str() == Some(k.as_str())))
                })
            })
            .map(|k| Value::String(k.clone()))
            .collect();
        let mut out = Map::new();
        out.insert("type".into(), Value::String("object".into()));
        out.insert("properties".into(), Value::Object(props));
        if !required.is_empty() {
            out.insert("required".into(), Value::Array(required));
        }
        return Value::Object(out);
    }
    (*first).clone()
}

#[cfg(test)]
mod tests {
    use super::merge_literals;
    use serde_json::json;

    #[test]
    fn literal_payloads_from_several_sites_merge() {
        let a = json!({"type": "object", "properties": {"event": {"type": "string"}, "message": {"type": "string"}}, "required": ["event", "message"]});
        let b = json!({"type": "object", "properties": {"event": {"type": "string"}}, "required": ["event"]});
        assert_eq!(
            merge_literals(&[&b, &a]),
            json!({"type": "object", "properties": {"event": {"type": "string"}, "message": {"type": "string"}}, "required": ["event"]})
        );
        // Not all objects: the first site's schema.
        let s = json!({"type": "string"});
        assert_eq!(merge_literals(&[&s, &a]), s);
        assert_eq!(merge_literals(&[&a]), a);
    }
}
