//! The `callsite` package: `stack()` gives the V8 call sites of the running
//! code, innermost first, so `stack()[1].getFileName()` is the file of the
//! function that called the one asking. Hosts use it to read a file relative
//! to their caller (`importPluginsJSONFile('../plugins.json')` joins the path
//! to the caller's folder, then imports the plugins it lists).
//!
//! A frame's `getFileName()` is the file of that call's function, as a path
//! under the virtual root (see `machine/node.rs`); a frame past the calls the
//! analysis followed (the top level that started them, or a caller nobody
//! followed) answers only at run time. Line and function names are not
//! modelled.

use std::rc::Rc;

use crate::machine::{Ctx, Interp, NodeFn};
use crate::value::{Builtin, ObjData, Value};

impl Interp {
    /// `stack()`: the frames of the calls being followed, innermost first.
    pub(crate) fn call_sites(&self, ctx: &Ctx) -> Value {
        let project = self.loader.project.clone();
        // Frame 0 runs the code that calls `stack()`; the ones after it are
        // the followed calls below it, innermost first.
        let callers = self.js.stack.len().saturating_sub(1);
        let files = std::iter::once(ctx.file)
            .chain(self.js.stack[..callers].iter().rev().map(|(file, _)| *file));
        let mut frames: Vec<Value> = files
            .map(|file| {
                frame(Value::Builtin(Builtin::Node(NodeFn::AnswerText(Rc::from(
                    format!("/{}", project.rel(file)).as_str(),
                )))))
            })
            .collect();
        // The code that started the outermost followed call.
        frames.push(frame(Value::dynamic()));
        Value::array(frames)
    }
}

/// A call site whose `getFileName()` answers `file_name`.
fn frame(file_name: Value) -> Value {
    let o = ObjData::new();
    o.set("getFileName", file_name);
    Value::Obj(o)
}
