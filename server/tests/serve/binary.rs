//! The `portolan serve` binary: start-up banner, a request over a real
//! socket, `--watch` swapping the set after a source edit, and a graceful
//! stop on SIGTERM.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use test_support::copy_tree;

/// A plain HTTP/1.1 GET; returns (status, body).
fn http_get(addr: &str, path: &str) -> (u16, String) {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let status = text[9..12].parse().unwrap();
    let body = text
        .split_once("\r\n\r\n")
        .map(|x| x.1.to_string())
        .unwrap_or_default();
    (status, body)
}

fn operations(addr: &str) -> usize {
    let (_, body) = http_get(addr, "/api/api-docs/catalog.json");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    v["operations"].as_array().unwrap().len()
}

#[test]
fn serve_prints_answers_watches_and_stops_on_sigterm() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("harbor");
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/projects/harbor"),
        &root,
    );
    let data = tmp.path().join("data");
    // A configuration file outside the root is watched too.
    let config = tmp.path().join("conf/portolan.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_portolan"))
        .arg("serve")
        .arg(&root)
        .args([
            "--listen",
            "127.0.0.1:0",
            "--no-cache",
            "--watch",
            "--data-dir",
        ])
        .arg(&data)
        .arg("--config")
        .arg(&config)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _reaper = KillOnPanic(child.id());
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut banner = String::new();
    for _ in 0..5 {
        out.read_line(&mut banner).unwrap();
    }
    assert!(
        banner.starts_with("portolan serve: http://127.0.0.1:"),
        "{banner}"
    );
    assert!(banner.contains("44 operations"), "{banner}");
    assert!(
        banner.contains(&format!("state: {}", data.join("portolan.db").display())),
        "{banner}"
    );
    assert!(banner.contains("watching"), "{banner}");
    let addr = banner["portolan serve: http://".len()..]
        .split('/')
        .next()
        .unwrap()
        .to_string();
    assert_eq!(http_get(&addr, "/health").0, 200);
    let before = operations(&addr);

    // An edit adds a route: the set is re-derived and swapped.
    let server_js = root.join("src/server.js");
    let text = std::fs::read_to_string(&server_js).unwrap();
    std::fs::write(
        &server_js,
        text.replacen(
            "app.use('/api', apiRouter);",
            "app.get('/watch-probe', (req, res) => res.json({}));\napp.use('/api', apiRouter);",
            1,
        ),
    )
    .unwrap();
    let wait_for = |generation: u32| {
        let start = Instant::now();
        loop {
            let (_, ready) = http_get(&addr, "/ready");
            if ready.contains(&format!("\"generation\":{generation}")) {
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "no swap: {ready}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    wait_for(2);
    assert_eq!(operations(&addr), before + 1);
    // Reading the sources is no change: the derivation's own reads do not
    // start another one (they did, one after another, without end).
    std::thread::sleep(Duration::from_millis(1500));
    let (_, ready) = http_get(&addr, "/ready");
    assert!(
        ready.contains("\"generation\":2"),
        "re-derived with no edit: {ready}"
    );
    // The configuration binds a tool to the new route.
    std::fs::write(
        &config,
        "[[tools]]\nname = \"probe.get\"\nbind = \"GET /watch-probe\"\nside_effect = \"read\"\n",
    )
    .unwrap();
    wait_for(3);
    assert!(
        http_get(&addr, "/api/cos/tools")
            .1
            .contains("\"name\":\"probe.get\"")
    );

    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let start = Instant::now();
    let exit = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "did not stop");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(exit.success(), "{exit:?}");
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(err.contains("shutting down"), "{err}");
    assert!(data.join("portolan.db").is_file());
}

/// Kills the server when the test fails before stopping it (a failed
/// assertion unwinds past the SIGTERM step), so no `serve` outlives its test.
struct KillOnPanic(u32);

impl Drop for KillOnPanic {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let _ = Command::new("kill")
                .args(["-KILL", &self.0.to_string()])
                .status();
        }
    }
}
