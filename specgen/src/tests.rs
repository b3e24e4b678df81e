//! Emitter tests over hand-built inventories (the analyzer does not fill
//! contracts and events yet, so these are the only way to pin them).

use crate::*;
use analyzer::{
    Contract, Declaration, Direction, Event, EventSite, EventStats, Inventory, Location, Operation,
    PathPattern, ResponseInfo, SchemaInfo, Side, SocketServer, Stats,
};
use serde_json::{Value, json};
use std::collections::BTreeMap;

fn at(file: &str, line: u32) -> Location {
    Location {
        file: file.into(),
        line,
    }
}

fn schema(v: Value) -> SchemaInfo {
    SchemaInfo {
        schema: v,
        source: "zod".into(),
        name: None,
        at: at("src/a.js", 1),
    }
}

fn decl(
    file: &str,
    line: u32,
    middleware: &[&str],
    doc: Option<&str>,
    contract: Contract,
) -> Declaration {
    Declaration {
        at: at(file, line),
        via: None,
        route_path: String::new(),
        router: at(file, 1),
        mounts: Vec::new(),
        middleware: middleware.iter().map(|s| s.to_string()).collect(),
        handler: None,
        conditional: None,
        doc: doc.map(str::to_string),
        contract,
        guard: None,
        subpaths: false,
    }
}

fn op(method: &str, path: &str, decls: Vec<Declaration>) -> Operation {
    Operation {
        method: method.into(),
        path: PathPattern::parse(path, false),
        app: at("src/app.js", 3),
        mount_path: String::new(),
        declarations: decls,
        reached: None,
    }
}

fn inventory(operations: Vec<Operation>, events: Vec<Event>) -> Inventory {
    Inventory {
        entries: vec!["src/app.js".into()],
        entry_reasons: Default::default(),
        apps: Vec::new(),
        operations,
        mounts: Vec::new(),
        findings: Vec::new(),
        source_files: Vec::new(),
        stats: Stats::default(),
        socket_servers: vec![SocketServer {
            at: at("src/app.js", 9),
            path: "/ws".into(),
            namespaces: vec!["/".into(), "/ops".into()],
        }],
        events,
        event_stats: EventStats::default(),
        coverage: Default::default(),
        census: Vec::new(),
        timings: Default::default(),
        input_key: None,
    }
}

fn site(
    file: &str,
    line: u32,
    side: Side,
    direction: Direction,
    kind: &str,
    ack: bool,
) -> EventSite {
    EventSite {
        at: at(file, line),
        side,
        direction,
        kind: kind.into(),
        via: None,
        rooms: Vec::new(),
        args: Vec::new(),
        ack,
        reached: None,
    }
}

const SEARCH_DOC: &str = "/**\n * Search berths by harbor.\n * Longer text.\n * @tool berths.search\n * @sideEffect read\n * @scopes agent ui\n */";

fn sample() -> Inventory {
    let create = Contract {
        body: Some(schema(json!({
            "type": "object",
            "properties": {"name": {"type": "string"}, "notes": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
            "required": ["name"],
            "additionalProperties": false
        }))),
        headers_read: vec!["x-request-id".into()],
        responses: vec![
            ResponseInfo {
                status: 201,
                schema: Some(schema(
                    json!({"type": "object", "properties": {"id": {"type": "string"}}}),
                )),
                at: at("src/berths.js", 12),
            },
            ResponseInfo {
                status: 409,
                schema: None,
                at: at("src/berths.js", 10),
            },
        ],
        ..Contract::default()
    };
    let search = Contract {
        query: Some(schema(
            json!({"type": "object", "properties": {"harbor": {"type": "string"}, "limit": {"type": "integer", "exclusiveMinimum": 0}}, "required": ["harbor"]}),
        )),
        query_read: vec!["harbor".into(), "date".into()],
        ..Contract::default()
    };
    let get = Contract {
        responses: vec![
            ResponseInfo {
                status: 200,
                schema: Some(schema(json!({"type": "object"}))),
                at: at("src/berths.js", 20),
            },
            ResponseInfo {
                status: 404,
                schema: Some(schema(
                    json!({"type": "object", "properties": {"error": {"type": "string"}}}),
                )),
                at: at("src/berths.js", 19),
            },
        ],
        ..Contract::default()
    };
    let ops = vec![
        op(
            "get",
            "/api/berths",
            vec![decl(
                "src/berths.js",
                5,
                &["cors()"],
                Some(SEARCH_DOC),
                search,
            )],
        ),
        op(
            "post",
            "/api/berths",
            vec![decl(
                "src/berths.js",
                9,
                &["requireAuth", "celebrate()"],
                None,
                create,
            )],
        ),
        op(
            "get",
            "/api/berths/:id",
            vec![decl("src/berths.js", 18, &[], None, get)],
        ),
        op(
            "get",
            "/api/berths/:id?",
            vec![decl("src/old.js", 2, &[], None, Contract::default())],
        ),
        op(
            "get",
            "/files/*path",
            vec![decl(
                "src/files.js",
                4,
                &["loopbackOnly"],
                None,
                Contract::default(),
            )],
        ),
        op(
            "all",
            "/legacy",
            vec![decl("src/legacy.js", 1, &[], None, Contract::default())],
        ),
    ];
    let mut payload = BTreeMap::new();
    payload.insert(
        Direction::ClientToServer,
        schema(json!({"type": "object", "properties": {"berthId": {"type": "string"}}})),
    );
    let mut ack = BTreeMap::new();
    ack.insert(
        Direction::ClientToServer,
        schema(json!({"type": "object", "properties": {"ok": {"type": "boolean"}}})),
    );
    let events = vec![
        Event {
            name: "berth:subscribe".into(),
            pattern: false,
            namespace: "/".into(),
            directions: vec![Direction::ClientToServer],
            lifecycle: false,
            namespace_assumed: false,
            sites: vec![site(
                "src/sockets.js",
                11,
                Side::Server,
                Direction::ClientToServer,
                "on",
                true,
            )],
            payload,
            ack,
            rooms: Vec::new(),
        },
        Event {
            name: "berth:{kind}:updated".into(),
            pattern: true,
            namespace: "/".into(),
            directions: vec![Direction::ServerToClient],
            lifecycle: false,
            namespace_assumed: false,
            sites: vec![site(
                "src/sockets.js",
                45,
                Side::Server,
                Direction::ServerToClient,
                "emit",
                false,
            )],
            payload: BTreeMap::new(),
            ack: BTreeMap::new(),
            rooms: vec!["berth:{id}".into()],
        },
        Event {
            name: "ops:alert".into(),
            pattern: false,
            namespace: "/ops".into(),
            directions: vec![Direction::ClientToServer, Direction::ServerToClient],
            lifecycle: false,
            namespace_assumed: false,
            sites: vec![
                EventSite {
                    args: vec!["level".into(), "text".into()],
                    ..site(
                        "src/ops.js",
                        3,
                        Side::Server,
                        Direction::ServerToClient,
                        "emit",
                        false,
                    )
                },
                site(
                    "client/ops.js",
                    7,
                    Side::Client,
                    Direction::ClientToServer,
                    "emit",
                    false,
                ),
            ],
            payload: BTreeMap::new(),
            ack: BTreeMap::new(),
            rooms: Vec::new(),
        },
        Event {
            name: "disconnect".into(),
            pattern: false,
            namespace: "/".into(),
            directions: vec![Direction::ClientToServer],
            lifecycle: true,
            namespace_assumed: false,
            sites: vec![site(
                "src/sockets.js",
                23,
                Side::Server,
                Direction::ClientToServer,
                "on",
                false,
            )],
            payload: BTreeMap::new(),
            ack: BTreeMap::new(),
            rooms: Vec::new(),
        },
    ];
    inventory(ops, events)
}

/// The internal OpenAPI document of the sample inventory.
fn internal_openapi(opts: &SpecOptions) -> Value {
    doc(
        &documents(&sample(), opts).unwrap(),
        "internal/openapi.json",
    )
}

fn doc(d: &Documents, path: &str) -> Value {
    serde_json::from_slice(&d.get(path).expect(path).bytes).expect("valid JSON")
}

#[test]
fn catalog_counts_modeled_and_reads_jsdoc() {
    let c = catalog_with(&sample(), &SpecOptions::default()).unwrap();
    let ops = c["operations"].as_array().unwrap();
    // `all` becomes seven rows; 5 other operations.
    assert_eq!(ops.len(), 12);
    assert_eq!(c["stats"]["modeled"], 2);
    assert_eq!(c["stats"]["generated"], 10);
    let search = ops
        .iter()
        .find(|o| o["method"] == "GET" && o["path"] == "/api/berths")
        .unwrap();
    assert_eq!(search["summary"], "Search berths by harbor.");
    assert_eq!(search["contractStatus"], "modeled");
    assert_eq!(search["tool"], "berths.search");
    assert_eq!(search["access"], "public");
    let create = ops.iter().find(|o| o["method"] == "POST").unwrap();
    assert_eq!(create["access"], "authenticated");
    assert_eq!(create["summary"], "Create or run Berths");
    let files = ops.iter().find(|o| o["path"] == "/files/*path").unwrap();
    assert_eq!(files["access"], "loopback");
}

#[test]
fn side_effects_from_jsdoc_and_config() {
    let mut opts = SpecOptions::default();
    opts.side_effects.push(SideEffectOverride {
        method: "post".into(),
        path: "/api/berths".into(),
        side_effect: "process-control".into(),
    });
    let c = catalog_with(&sample(), &opts).unwrap();
    let find = |m: &str, p: &str| {
        c["operations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["method"] == m && o["path"] == p)
            .unwrap()
            .clone()
    };
    assert_eq!(find("POST", "/api/berths")["sideEffect"], "process-control");
    assert_eq!(find("POST", "/legacy")["sideEffect"], "write");
    opts.side_effects[0].side_effect = "explosive".into();
    let err = catalog_with(&sample(), &opts).unwrap_err().to_string();
    assert!(
        err.contains("`explosive`") && err.contains("POST /api/berths"),
        "{err}"
    );
    opts.side_effects[0].side_effect = "read".into();
    opts.side_effects[0].path = "/nope".into();
    let err = catalog_with(&sample(), &opts).unwrap_err().to_string();
    assert!(
        err.contains("no operation has that method and path"),
        "{err}"
    );
}

#[test]
fn a_guard_the_analyzer_ran_makes_the_operation_authenticated() {
    // `mustSignIn` matches no access rule by name, but it answers 401.
    let mut d = decl("src/app.js", 9, &["mustSignIn"], None, Contract::default());
    d.guard = Some(analyzer::Guard {
        name: "mustSignIn".into(),
        status: 401,
        at: at("src/app.js", 4),
        credential: Some("authorization".into()),
    });
    let plain = decl(
        "src/app.js",
        10,
        &["logRequests"],
        None,
        Contract::default(),
    );
    let inv = inventory(
        vec![
            op("get", "/notes", vec![d]),
            op("get", "/status", vec![plain]),
        ],
        Vec::new(),
    );
    let c = catalog_with(&inv, &SpecOptions::default()).unwrap();
    let ops = c["operations"].as_array().unwrap();
    let notes = ops.iter().find(|o| o["path"] == "/notes").unwrap();
    assert_eq!(notes["access"], "authenticated");
    let status = ops.iter().find(|o| o["path"] == "/status").unwrap();
    assert_eq!(status["access"], "public");
    let o = doc(
        &documents(&inv, &SpecOptions::default()).unwrap(),
        "internal/openapi.json",
    );
    assert_eq!(
        o["paths"]["/notes"]["get"]["security"],
        json!([{"bearerAuth": []}])
    );
    assert_eq!(o["paths"]["/status"]["get"]["security"], json!([]));
}

#[test]
fn internal_openapi_has_ids_params_bodies_and_responses() {
    let o = internal_openapi(&SpecOptions::default());
    assert_eq!(o["openapi"], "3.0.3");
    assert_eq!(o["servers"], json!([]));
    let search = &o["paths"]["/api/berths"]["get"];
    assert_eq!(search["operationId"], operation_id("GET", "/api/berths"));
    assert_eq!(search["tags"], json!(["berths"]));
    assert_eq!(search["security"], json!([]));
    assert_eq!(search["x-portos-contract-status"], "modeled");
    assert_eq!(search["x-portos-tool"]["name"], "berths.search");
    assert!(
        search["description"]
            .as_str()
            .unwrap()
            .starts_with("Search berths by harbor.\nLonger text.\n\nGenerated from")
    );
    // Query from the schema (downgraded), then names only read.
    assert_eq!(
        search["parameters"],
        json!([
            {"name": "harbor", "in": "query", "required": true, "schema": {"type": "string"}},
            {"name": "limit", "in": "query", "required": false, "schema": {"type": "integer", "minimum": 0, "exclusiveMinimum": true}},
            {"name": "date", "in": "query", "required": false, "schema": {"type": "string"}}
        ])
    );
    assert_eq!(
        search["responses"],
        json!({"default": {"description": "Response shape is not yet modeled."}})
    );
    let create = &o["paths"]["/api/berths"]["post"];
    assert_eq!(create["security"], json!([{"bearerAuth": []}]));
    assert_eq!(
        create["parameters"],
        json!([{"name": "x-request-id", "in": "header", "required": false, "schema": {"type": "string"}}])
    );
    assert_eq!(
        create["requestBody"]["content"]["application/json"]["schema"]["properties"]["notes"],
        json!({"type": "string", "nullable": true})
    );
    assert_eq!(create["responses"]["201"]["description"], "Created");
    assert_eq!(
        create["responses"]["201"]["content"]["application/json"]["schema"]["properties"]["id"],
        json!({"type": "string"})
    );
    assert_eq!(
        create["responses"]["409"],
        json!({"description": "Conflict"})
    );
    // `all` lands on every concrete method, marked.
    assert_eq!(o["paths"]["/legacy"].as_object().unwrap().len(), 7);
    assert_eq!(
        o["paths"]["/legacy"]["head"]["x-portos-declared-method"],
        "ALL"
    );
    // Tags count operations per domain.
    assert_eq!(
        o["tags"][0],
        json!({"name": "berths", "description": "Berths API (3 operations)"})
    );
}

#[test]
fn optional_and_wildcard_params_are_described_honestly() {
    let o = internal_openapi(&SpecOptions::default());
    let files = &o["paths"]["/files/{path}"]["get"]["parameters"][0];
    assert_eq!(files["required"], true);
    assert_eq!(files["x-portos-wildcard"], true);
    assert!(
        files["description"]
            .as_str()
            .unwrap()
            .contains("may contain `/`")
    );
}

#[test]
fn colliding_templates_are_reported_not_overwritten() {
    let d = documents(&sample(), &SpecOptions::default()).unwrap();
    let o = doc(&d, "internal/openapi.json");
    // `/api/berths/:id` and `/api/berths/:id?` both map to `/api/berths/{id}`.
    let kept = &o["paths"]["/api/berths/{id}"]["get"];
    assert_eq!(kept["x-portos-express-path"], "/api/berths/:id");
    assert_eq!(
        o["x-portos-collisions"],
        json!([{"method": "GET", "template": "/api/berths/{id}", "kept": "/api/berths/:id", "dropped": "/api/berths/:id?", "droppedAt": "src/old.js:2"}])
    );
    assert!(
        d.warnings
            .iter()
            .any(|w| w.contains("/api/berths/:id?") && w.contains("x-portos-collisions"))
    );
    // The kept operation's 404 has a JSON body, its 200 another.
    assert_eq!(
        kept["responses"]["404"]["content"]["application/json"]["schema"]["properties"]["error"]["type"],
        "string"
    );
}

#[test]
fn public_openapi_holds_only_exposed_apis() {
    let none = documents(&sample(), &SpecOptions::default()).unwrap();
    assert_eq!(doc(&none, "openapi.json")["paths"], json!({}));
    let mut opts = SpecOptions::default();
    opts.exposed.push(ExposedApi {
        id: "berths".into(),
        label: Some("Berths".into()),
        description: Some("Berth search".into()),
        prefix: "/api/berths/".into(),
        require_auth: false,
    });
    opts.server_url = Some("https://harbor.example".into());
    let d = documents(&sample(), &opts).unwrap();
    let o = doc(&d, "openapi.json");
    assert_eq!(o["servers"], json!([{"url": "https://harbor.example"}]));
    assert_eq!(
        o["tags"],
        json!([{"name": "berths", "description": "Berth search"}])
    );
    let paths = o["paths"].as_object().unwrap();
    assert_eq!(
        paths.keys().collect::<Vec<_>>(),
        vec!["/api/berths", "/api/berths/{id}"]
    );
    // The API is open, but this operation's chain runs `requireAuth`.
    let create = &o["paths"]["/api/berths"]["post"];
    assert_eq!(create["security"], json!([{"bearerAuth": []}]));
    assert_eq!(o["paths"]["/api/berths"]["get"]["security"], json!([]));
    assert!(create.get("x-portos-access").is_none());
    assert_eq!(
        o["paths"]["/api/berths"]["get"]["x-portos-tool"]["name"],
        "berths.search"
    );
    let c = doc(&d, "catalog.json");
    assert_eq!(c["externallyExposableApis"][0]["publicBase"], "/api/berths");
}

#[test]
fn openapi31_keeps_json_schema() {
    let opts = SpecOptions {
        openapi31: true,
        ..SpecOptions::default()
    };
    let d = documents(&sample(), &opts).unwrap();
    let o = doc(&d, "internal/openapi.json");
    assert_eq!(o["openapi"], "3.1.0");
    assert_eq!(
        o["paths"]["/api/berths"]["post"]["requestBody"]["content"]["application/json"]["schema"]["properties"]
            ["notes"],
        json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
    );
}

#[test]
fn events_list_lifecycle_apart() {
    let e = events(&sample());
    assert_eq!(e["schemaVersion"], 2);
    assert_eq!(e["stats"]["events"], 3);
    assert_eq!(e["stats"]["lifecycle"], 1);
    assert_eq!(e["stats"]["bidirectional"], 1);
    assert_eq!(e["stats"]["modeled"], 1);
    assert_eq!(e["stats"]["sourceFiles"], 3);
    assert_eq!(
        e["domains"],
        json!([{"id": "berth", "label": "Berth", "events": 2}, {"id": "ops", "label": "Ops", "events": 1}])
    );
    let sub = &e["events"][0];
    assert_eq!(sub["event"], "berth:subscribe");
    assert_eq!(sub["contractStatus"], "modeled");
    assert_eq!(sub["modeledDirections"], json!(["client-to-server"]));
    assert_eq!(
        sub["ackSchemas"]["client-to-server"]["properties"]["ok"]["type"],
        "boolean"
    );
    assert_eq!(
        sub["sites"][0],
        json!({"file": "src/sockets.js", "line": 11, "side": "server", "kind": "on", "direction": "client-to-server", "ack": true})
    );
    assert_eq!(
        e["events"][1]["summary"],
        "Berth:{Kind}:Updated Socket.IO event"
    );
    assert_eq!(e["events"][2]["namespace"], "/ops");
    assert_eq!(e["lifecycleEvents"][0]["event"], "disconnect");
}

#[test]
fn asyncapi_channels_operations_replies() {
    let a = asyncapi(&sample(), &SpecOptions::default());
    assert_eq!(a["asyncapi"], "3.0.0");
    assert_eq!(
        a["servers"]["local"],
        json!({"host": "localhost:5555", "protocol": "socket.io", "pathname": "/ws", "description": "Socket.IO server found in the source; the host comes from portolan.toml [socket] host."})
    );
    let ch = asyncapi_id("channel_berth:subscribe");
    assert_eq!(a["channels"][&ch]["address"], "berth:subscribe");
    let op = &a["operations"][asyncapi_id("client-to-server_berth:subscribe")];
    assert_eq!(op["action"], "receive");
    let ack = asyncapi_id("ack_client-to-server_berth:subscribe");
    assert_eq!(
        op["reply"]["messages"][0]["$ref"],
        format!("#/channels/{ch}/messages/{ack}")
    );
    assert_eq!(
        a["components"]["messages"][&ack]["payload"]["properties"]["ok"]["type"],
        "boolean"
    );
    // Placeholders become channel parameters.
    let pattern = &a["channels"][asyncapi_id("channel_berth:{kind}:updated")];
    assert_eq!(
        pattern["parameters"]["kind"]["description"],
        "Dynamic kind segment in this Socket.IO event address."
    );
    // Namespaced events get their own channel id; several arguments make a tuple.
    let ops_ch = asyncapi_id("channel_/ops ops:alert");
    assert_eq!(a["channels"][&ops_ch]["x-portos-namespace"], "/ops");
    let send = &a["operations"][asyncapi_id("server-to-client_/ops ops:alert")];
    assert_eq!(send["action"], "send");
    let msg = asyncapi_id("message_server-to-client_/ops ops:alert");
    assert_eq!(
        a["components"]["messages"][&msg]["payload"]["items"],
        json!([{"title": "level"}, {"title": "text"}])
    );
    // Lifecycle events are not API.
    assert!(!a.to_string().contains("disconnect"));
}

#[test]
fn assumed_namespaces_are_marked_in_events_and_asyncapi() {
    let mut inv = sample();
    let e = inv
        .events
        .iter_mut()
        .find(|e| e.namespace == "/ops")
        .expect("the sample has an /ops event");
    e.namespace_assumed = true;
    for s in &mut e.sites {
        s.reached = Some(analyzer::Reached {
            how: "assumed-namespace".into(),
            via: "register".into(),
            at: at("src/handlers/ops.js", 3),
        });
    }
    let ev = events(&inv);
    let row = &ev["events"][2];
    assert_eq!(row["namespace"], "/ops");
    assert_eq!(row["namespaceAssumed"], true);
    assert_eq!(
        row["sites"][0]["reached"],
        "assumed-namespace:register (src/handlers/ops.js:3)"
    );
    assert!(ev["events"][0].get("namespaceAssumed").is_none());
    let a = asyncapi(&inv, &SpecOptions::default());
    let ch = &a["channels"][asyncapi_id("channel_/ops ops:alert")];
    assert_eq!(ch["x-portos-namespace-assumed"], true);
    let other = &a["channels"][asyncapi_id("channel_berth:subscribe")];
    assert!(other.get("x-portos-namespace-assumed").is_none());
}

#[test]
fn tools_from_jsdoc_and_config() {
    let mut opts = SpecOptions::default();
    opts.tools.push(ToolBinding {
        name: "berths.create".into(),
        method: "POST".into(),
        path: "/api/berths".into(),
        scopes: vec!["ui".into()],
        ..ToolBinding::default()
    });
    opts.tools.push(ToolBinding {
        name: "berths.get".into(),
        method: "get".into(),
        path: "/api/berths/{id}".into(),
        ..ToolBinding::default()
    });
    let d = documents(&sample(), &opts).unwrap();
    let bytes = &d.get("tools.min.json").unwrap().bytes;
    assert!(!bytes.starts_with(b"{\n"), "minified");
    let t: Value = serde_json::from_slice(bytes).unwrap();
    assert_eq!(t["stats"], json!({"total": 3, "read": 2, "write": 1}));
    let tools = t["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, vec!["berths.search", "berths.create", "berths.get"]);
    let search = &tools[0];
    assert_eq!(search["providerName"], "berths_search");
    assert_eq!(search["scopes"], json!(["agent", "ui"]));
    assert_eq!(
        search["policy"],
        json!({"sideEffect": "read", "async": false, "idempotent": true})
    );
    assert_eq!(search["input_schema"]["required"], json!(["harbor"]));
    assert_eq!(
        search["input_schema"]["properties"]["limit"],
        json!({"type": "integer", "exclusiveMinimum": 0})
    );
    let create = &tools[1];
    assert_eq!(create["input_schema"]["required"], json!(["name"]));
    assert_eq!(create["input_schema"]["additionalProperties"], false);
    assert_eq!(
        create["input_schema"]["properties"]["notes"],
        json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
    );
    assert_eq!(
        create["failures"],
        json!([{"status": 409, "code": "CONFLICT"}])
    );
    assert_eq!(
        create["output_schema"]["properties"]["id"]["type"],
        "string"
    );
    let get = &tools[2];
    assert_eq!(get["input_schema"]["required"], json!(["id"]));
    assert_eq!(
        get["binding"],
        json!({"protocol": "http", "method": "GET", "path": "/api/berths/:id"})
    );
    assert_eq!(
        get["failures"],
        json!([{"status": 404, "code": "NOT_FOUND"}])
    );
    assert!(!String::from_utf8_lossy(bytes).contains("$ref"));
}

#[test]
fn tool_bound_to_missing_operation_is_an_error() {
    let mut opts = SpecOptions::default();
    opts.tools.push(ToolBinding {
        name: "x.y".into(),
        method: "DELETE".into(),
        path: "/api/nope".into(),
        ..ToolBinding::default()
    });
    let err = documents(&sample(), &opts).unwrap_err().to_string();
    assert!(
        err.contains("tool `x.y` is bound to `DELETE /api/nope`, but no operation"),
        "{err}"
    );
}

#[test]
fn tool_input_collision_is_an_error() {
    let mut inv = sample();
    inv.operations[2].declarations[0].contract.body = Some(schema(
        json!({"type": "object", "properties": {"id": {"type": "string"}}}),
    ));
    let mut opts = SpecOptions::default();
    opts.tools.push(ToolBinding {
        name: "berths.get".into(),
        method: "GET".into(),
        path: "/api/berths/:id".into(),
        ..ToolBinding::default()
    });
    let err = documents(&inv, &opts).unwrap_err().to_string();
    assert!(err.contains("body field `id`"), "{err}");
}

#[test]
fn provider_names_are_safe() {
    assert_eq!(
        crate::tools::provider_name("voice.list-voices"),
        "voice_list_voices"
    );
    assert_eq!(crate::tools::provider_name(&"a".repeat(70)).len(), 64);
}

#[test]
fn documents_are_deterministic_with_hashes() {
    let a = documents(&sample(), &SpecOptions::default()).unwrap();
    let b = documents(&sample(), &SpecOptions::default()).unwrap();
    assert_eq!(a.documents, b.documents);
    let paths: Vec<&str> = a.documents.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(
        paths,
        vec![
            "catalog.json",
            "internal/openapi.json",
            "openapi.json",
            "events.json",
            "asyncapi.json",
            "tools.min.json",
            "index.html"
        ]
    );
    for d in &a.documents {
        assert_eq!(d.hash, blake3::hash(&d.bytes).to_hex().to_string());
        let want = if d.path.ends_with(".html") {
            "text/html; charset=utf-8"
        } else {
            "application/json"
        };
        assert_eq!(d.media_type, want);
    }
}

#[test]
fn portos_path_conversions_reach_openapi() {
    // Reference §3.3 pins: `:name` and `*name` become `{name}`, parameters in order.
    let inv = inventory(
        vec![
            op(
                "get",
                "/api/apps/:id/documents/:filename",
                vec![decl("src/a.js", 1, &[], None, Contract::default())],
            ),
            op(
                "get",
                "/api/music/models/:engine/*id",
                vec![decl("src/a.js", 2, &[], None, Contract::default())],
            ),
        ],
        Vec::new(),
    );
    let d = documents(&inv, &SpecOptions::default()).unwrap();
    let o = doc(&d, "internal/openapi.json");
    let names = |path: &str| -> Vec<String> {
        o["paths"][path]["get"]["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                format!(
                    "{} {} {}",
                    p["name"].as_str().unwrap(),
                    p["in"].as_str().unwrap(),
                    p["required"]
                )
            })
            .collect()
    };
    assert_eq!(
        names("/api/apps/{id}/documents/{filename}"),
        vec!["id path true", "filename path true"]
    );
    assert_eq!(
        names("/api/music/models/{engine}/{id}"),
        vec!["engine path true", "id path true"]
    );
    assert_eq!(
        o["paths"]["/api/apps/{id}/documents/{filename}"]["get"]["operationId"],
        "get_api_apps_id_documents_filename_1bsnrk6"
    );
    assert_eq!(
        o["paths"]["/api/music/models/{engine}/{id}"]["get"]["operationId"],
        "get_api_music_models_engine_id_no27ke"
    );
}

#[test]
fn configured_side_effect_reaches_jsdoc_tools() {
    let mut opts = SpecOptions::default();
    opts.side_effects.push(SideEffectOverride {
        method: "GET".into(),
        path: "/api/berths".into(),
        side_effect: "write".into(),
    });
    let d = documents(&sample(), &opts).unwrap();
    let t = doc(&d, "tools.min.json");
    assert_eq!(t["tools"][0]["name"], "berths.search");
    assert_eq!(t["tools"][0]["policy"]["sideEffect"], "write");
    assert_eq!(t["tools"][0]["policy"]["idempotent"], false);
    let o = doc(&d, "internal/openapi.json");
    assert_eq!(
        o["paths"]["/api/berths"]["get"]["x-portos-side-effect"],
        "write"
    );
}

#[test]
fn the_configured_credential_names_the_security_scheme() {
    // Default: a bearer token, said to be assumed.
    let o = internal_openapi(&SpecOptions::default());
    let assumed = &o["components"]["securitySchemes"]["bearerAuth"];
    assert_eq!(assumed["scheme"], "bearer");
    assert!(assumed["description"].as_str().unwrap().contains("assumed"));
    // Configured: an API key in a header, on every guarded operation.
    let opts = SpecOptions {
        auth: crate::AuthScheme::parse("header:X-Api-Key").unwrap(),
        ..SpecOptions::default()
    };
    let o = internal_openapi(&opts);
    assert_eq!(
        o["components"]["securitySchemes"],
        json!({"apiKeyAuth": {"type": "apiKey", "in": "header", "name": "X-Api-Key"}})
    );
    assert_eq!(
        o["paths"]["/api/berths"]["post"]["security"],
        json!([{"apiKeyAuth": []}])
    );
    assert_eq!(o["paths"]["/api/berths"]["get"]["security"], json!([]));
    assert_eq!(crate::AuthScheme::parse("basic").unwrap().id(), "basicAuth");
    assert!(crate::AuthScheme::parse("cookie:").is_err());
    assert!(crate::AuthScheme::parse("jwt").is_err());
}

#[test]
fn body_reads_without_a_schema_and_run_time_statuses() {
    let reads = Contract {
        body_read: vec!["name".into(), "tags".into()],
        responses: vec![ResponseInfo {
            status: 0,
            schema: Some(schema(json!({"type": "object"}))),
            at: at("src/items.js", 7),
        }],
        ..Contract::default()
    };
    let inv = inventory(
        vec![
            op(
                "put",
                "/items/:id",
                vec![decl("src/items.js", 5, &[], None, reads.clone())],
            ),
            op(
                "get",
                "/items",
                vec![decl("src/items.js", 2, &[], None, reads)],
            ),
        ],
        Vec::new(),
    );
    let o = doc(
        &documents(&inv, &SpecOptions::default()).unwrap(),
        "internal/openapi.json",
    );
    let put = &o["paths"]["/items/{id}"]["put"];
    assert_eq!(
        put["requestBody"]["content"]["application/json"]["schema"],
        json!({"type": "object", "properties": {"name": {}, "tags": {}}})
    );
    assert!(put["requestBody"].get("required").is_none());
    assert_eq!(
        put["responses"]["default"]["description"],
        "Response whose status is set at run time"
    );
    assert!(put["responses"].get("0").is_none());
    // No request body on GET, whatever the handler reads.
    assert!(o["paths"]["/items"]["get"].get("requestBody").is_none());
    // Reads alone do not make an operation modeled.
    let c = doc(
        &documents(&inv, &SpecOptions::default()).unwrap(),
        "catalog.json",
    );
    assert_eq!(c["stats"]["modeled"], 0);
}
