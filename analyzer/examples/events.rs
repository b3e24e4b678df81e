//! Print the Socket.IO event sites the analyzer finds, one per line:
//! `name direction namespace file:line side kind [via]`.
//!
//! Usage: `cargo run --release -p portolan-analyzer --example events -- ROOT [ENTRY...]`

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(root) = args.next() else {
        eprintln!("usage: events ROOT [ENTRY...]");
        std::process::exit(2);
    };
    let opts = analyzer::AnalyzeOptions {
        root: root.into(),
        entries: args.collect(),
        cache_dir: None,
        no_cache: true,
        skip_events: false,
        ..Default::default()
    };
    let inv = match analyzer::analyze(&opts) {
        Ok(inv) => inv,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    for s in &inv.socket_servers {
        println!(
            "server {}:{} path={} namespaces={:?}",
            s.at.file, s.at.line, s.path, s.namespaces
        );
    }
    for e in &inv.events {
        for s in &e.sites {
            println!(
                "{}{} {} {} {}:{} side={:?} kind={}{}{}{}",
                if e.lifecycle { "[lifecycle] " } else { "" },
                e.name,
                s.direction.as_str(),
                e.namespace,
                s.at.file,
                s.at.line,
                s.side,
                s.kind,
                s.via
                    .as_ref()
                    .map(|v| format!(" via={v}"))
                    .unwrap_or_default(),
                if s.ack { " ack" } else { "" },
                if s.rooms.is_empty() {
                    String::new()
                } else {
                    format!(" rooms={:?}", s.rooms)
                },
            );
        }
    }
    for f in &inv.findings {
        println!(
            "finding {} {}:{} {}",
            f.code.as_str(),
            f.at.file,
            f.at.line,
            f.message
        );
    }
    let st = &inv.event_stats;
    println!(
        "events={} c2s={} s2c={} both={} lifecycle={} files={} | http ops={} | events_ms={:.0} resolve_ms={:.0}",
        st.events,
        st.client_to_server,
        st.server_to_client,
        st.bidirectional,
        st.lifecycle,
        st.source_files,
        inv.stats.operations,
        inv.timings.events_ms,
        inv.timings.resolve_ms
    );
}
