//! `portolan scan`: the summary, `--json` and `--events` outputs.

use crate::util::portolan;

#[test]
fn scan_prints_summary_catalog_and_events() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let summary = portolan(&["scan", "tests/projects/ts-tasks"], &cache);
    assert_eq!(summary.code, 0, "{summary}");
    assert!(summary.stdout.contains("HTTP: 15 operations"), "{summary}");

    let json = portolan(&["scan", "tests/projects/ts-tasks", "--json"], &cache);
    assert_eq!(json.code, 0, "{json}");
    let catalog: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(catalog["schemaVersion"], 2);
    assert_eq!(catalog["stats"]["operations"], 15);

    let events = portolan(&["scan", "tests/projects/harbor", "--events"], &cache);
    assert_eq!(events.code, 0, "{events}");
    let doc: serde_json::Value = serde_json::from_str(&events.stdout).unwrap();
    assert_eq!(doc["schemaVersion"], 2);
    let api = doc["events"].as_array().unwrap();
    let lifecycle = doc["lifecycleEvents"].as_array().unwrap();
    assert_eq!(doc["stats"]["events"], api.len());
    assert!(
        api.iter()
            .all(|e| e["event"] != "connection" && e["event"] != "disconnect")
    );
    assert!(
        lifecycle.iter().any(|e| e["event"] == "disconnect"),
        "{}",
        events.stdout
    );
    assert!(
        api.iter()
            .any(|e| e["event"] == "ops:alert" && e["namespace"] == "/ops"),
        "{}",
        events.stdout
    );
}
