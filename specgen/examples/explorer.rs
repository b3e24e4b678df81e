//! Render the Explorer page from documents on disk (until `portolan build` writes it):
//! `cargo run -p portolan-specgen --example explorer -- DIR` reads `DIR/catalog.json`
//! and, when present, `DIR/events.json` and `DIR/tools.min.json`, and writes `DIR/index.html`.

use serde_json::Value;
use std::path::Path;

fn read(path: &Path) -> Result<Value, Box<dyn std::error::Error>> {
    if !path.exists() {
        return Ok(Value::Null);
    }
    let text = std::fs::read_to_string(path)?;
    Ok(serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args()
        .nth(1)
        .ok_or("usage: explorer DIR (with DIR/catalog.json)")?;
    let dir = Path::new(&dir);
    let catalog = read(&dir.join("catalog.json"))?;
    if catalog.is_null() {
        return Err(format!("{} has no catalog.json", dir.display()).into());
    }
    let events = read(&dir.join("events.json"))?;
    let tools = read(&dir.join("tools.min.json"))?;
    let html = specgen::explorer::page(&catalog, &events, &tools)?;
    std::fs::write(dir.join("index.html"), html)?;
    eprintln!("wrote {}", dir.join("index.html").display());
    Ok(())
}
