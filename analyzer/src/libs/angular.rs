//! Angular's zone (`@angular/core`'s `NgZone`), beside its injector (`di.rs`).
//!
//! ```ts
//! private readonly ngZone = inject(NgZone)
//! constructor () {
//!   this.ngZone.runOutsideAngular(() => { this._socket = io(url) })
//! }
//! ```
//!
//! Captures: the zone the injector gives for `NgZone` (by `inject(NgZone)`
//! or a constructor parameter typed `NgZone`, or one made with `new
//! NgZone(...)`); its `run`, `runOutsideAngular`, `runGuarded` and `runTask`
//! call their callback at once, with `applyThis` and `applyArgs` when given,
//! and give what it returns, as Angular does (the zone only decides whether
//! change detection follows). So a socket made, or listened on, inside one is
//! the program's, not a callback handed to a package.
//!
//! Deliberately not: the zone's event emitters (`onStable`, `onError`, …:
//! unknown), and `NgZone.isInAngularZone()` and the other statics.

use crate::machine::*;

/// The `NgZone` class, as `@angular/core` exports it.
pub(crate) const NG_ZONE_CLASS: &str = "angular.NgZone";
/// A zone: the one the injector gives, or one made with `new`.
const NG_ZONE: &str = "angular.zone";
/// Its methods that run a callback now.
const ZONE_RUN: &str = "angular.zone.run";

fn framework(name: &str) -> Value {
    Value::Builtin(Builtin::Framework(Rc::from(name)))
}

/// What the injector gives for `key` when it is Angular's own (`NgZone`).
pub(crate) fn injected(key: &Value) -> Option<Value> {
    matches!(key, Value::Builtin(Builtin::Framework(n)) if &**n == NG_ZONE_CLASS)
        .then(|| framework(NG_ZONE))
}

/// `new NgZone({...})`: a zone.
pub(crate) fn construct(name: &str) -> Option<Value> {
    (name == NG_ZONE_CLASS).then(|| framework(NG_ZONE))
}

/// A member of a zone.
pub(crate) fn framework_member(name: &str, prop: &str) -> Option<Value> {
    if name != NG_ZONE {
        return None;
    }
    Some(match prop {
        "run" | "runOutsideAngular" | "runGuarded" | "runTask" => framework(ZONE_RUN),
        _ => Value::external(),
    })
}

impl Interp {
    /// `zone.run(fn, applyThis?, applyArgs?)` and its kin: `fn` runs now.
    pub(crate) fn ng_zone_call(
        &mut self,
        ctx: &Ctx,
        name: &str,
        argv: &[Value],
        line: u32,
    ) -> Option<Value> {
        if name != ZONE_RUN {
            return None;
        }
        let Some(f) = argv.first() else {
            return Some(Value::Undef);
        };
        let this = argv.get(1).filter(|t| !matches!(t, Value::Undef)).cloned();
        let args = match argv.get(2) {
            Some(Value::Arr(items)) => items.borrow().clone(),
            _ => Vec::new(),
        };
        Some(self.call_value_now(ctx, f, args, &[], line, this))
    }
}
