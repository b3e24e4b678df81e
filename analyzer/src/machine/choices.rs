//! Strings a choice only known at run time made: `const base = env.MODE ===
//! 'a' ? '/ma' : '/mb'`, or a variable given a different string on each path
//! of an `if` whose test is only known at run time. At run time the variable
//! holds one of them; the analysis keeps every one, each with the condition
//! under which the program takes it, so a route at `base + '/t'` is charted
//! at each path the choice may give, conditional. The value the machine
//! carries on is the first way's string, recorded (by the address of its
//! text, as [`Interp::assume`] records a default) with all the ways.
//!
//! Captures: ternaries (and chains of them), `if`/`else` joins of two known
//! strings and the ways out of a `switch` on a value only known at run time; `+` and template literals over such strings give every
//! combination (at most [`MAX_WAYS`]); any other string made from one (a
//! `replace`, `path.join`) keeps the first way only, under its condition.
//! A comparison or a test on a chosen string decides nothing.
//!
//! Deliberately not here: a default taken for a value only known at run time
//! (`env.P || '/p'`, `x ? x : '/d'`: [`Interp::assume`]); a choice written
//! inline in the registration (`app.use(env.A ? '/a' : '/b', r)`:
//! `libs/express_choice.rs` runs the registration once per way); values
//! other than strings.

use super::*;

/// The most ways one chosen string keeps (a product of choices stops there).
pub(crate) const MAX_WAYS: usize = 16;

/// One string a choice may give, with the condition under which it does
/// (empty: whenever the choice is made).
pub(crate) type Way = (Rc<str>, String);

fn key(s: &Rc<str>) -> usize {
    Rc::as_ptr(s) as *const u8 as usize
}

/// `a && b` as a condition, either of them possibly empty.
fn and(a: &str, b: &str) -> String {
    crate::conditions::conjunction([a, b].into_iter().filter(|c| !c.is_empty())).unwrap_or_default()
}

impl Interp {
    /// The ways of a string a choice made (see the module documentation).
    pub(crate) fn chosen_ways(&self, v: &Value) -> Option<Rc<Vec<Way>>> {
        match v {
            Value::Str(s) => self
                .js
                .chosen
                .get(&key(s))
                .filter(|(rc, _)| Rc::ptr_eq(rc, s))
                .map(|(_, w)| w.clone()),
            _ => None,
        }
    }

    /// The ways of a value with a known text: its choice's, else its text
    /// always.
    fn ways_or_text(&self, v: &Value) -> Option<Vec<Way>> {
        if let Some(w) = self.chosen_ways(v) {
            return Some((*w).clone());
        }
        v.as_text()
            .map(|t| vec![(Rc::from(t.as_str()), String::new())])
    }

    /// A string that is one of `ways` (the first carried on). A string two
    /// ways give keeps the first way's condition.
    pub(crate) fn choose(&mut self, ways: Vec<Way>) -> Value {
        let mut kept: Vec<Way> = Vec::new();
        for w in ways {
            if !kept.iter().any(|k| k.0 == w.0) && kept.len() < MAX_WAYS {
                kept.push(w);
            }
        }
        let first: Rc<str> = Rc::from(&*kept[0].0);
        if kept.len() == 1 && kept[0].1.is_empty() {
            return Value::Str(first);
        }
        self.js
            .chosen
            .insert(key(&first), (first.clone(), Rc::new(kept)));
        Value::Str(first)
    }

    /// `test ? x : y` (or the join after an `if` on `test`), its test `text`
    /// only known at run time: a choice when both sides are known strings
    /// that differ (or choices themselves); `None` otherwise (a default taken
    /// for a run-time value is not a choice).
    pub(crate) fn choice_of(&mut self, text: &str, x: &Value, y: &Value) -> Option<Value> {
        if !matches!(x, Value::Str(_)) || !matches!(y, Value::Str(_)) {
            return None;
        }
        if !self.assumptions(x).is_empty() || !self.assumptions(y).is_empty() {
            return None;
        }
        let (wx, wy) = (self.ways_or_text(x)?, self.ways_or_text(y)?);
        if wx.len() == 1 && wy.len() == 1 && wx[0].0 == wy[0].0 {
            return None;
        }
        let not = format!("!({text})");
        let mut ways = Vec::new();
        for (s, c) in wx {
            ways.push((s, and(text, &c)));
        }
        for (s, c) in wy {
            ways.push((s, and(&not, &c)));
        }
        Some(self.choose(ways))
    }

    /// What a variable holds after a `switch` on a value only known at run
    /// time: a choice when every way out leaves it a known string (each with
    /// the condition of the cases that lead there) and they are not all the
    /// same; `None` otherwise.
    pub(crate) fn choice_among(&mut self, outcomes: &[(Value, String)]) -> Option<Value> {
        let mut ways = Vec::new();
        for (v, cond) in outcomes {
            if !matches!(v, Value::Str(_)) || !self.assumptions(v).is_empty() {
                return None;
            }
            for (s, c) in self.ways_or_text(v)? {
                ways.push((s, and(cond, &c)));
            }
        }
        if ways.iter().all(|(s, _)| *s == ways[0].0) {
            return None;
        }
        Some(self.choose(ways))
    }

    /// A string made by putting `segments` together in order (`a + b`, a
    /// template's texts and values): when one of them is a chosen string,
    /// the result is a choice of every combination, each under the
    /// conditions of its parts; `None` when none is.
    pub(crate) fn combined(&mut self, segments: &[Value]) -> Option<Value> {
        self.joined(segments, |texts| texts.concat())
    }

    /// A string `join` makes of the texts of `args` (`path.join`, a URL
    /// joiner): when one of them is a chosen string, a choice of what `join`
    /// makes of every combination, each under the conditions of its parts;
    /// `None` when none is.
    pub(crate) fn joined(
        &mut self,
        args: &[Value],
        join: impl Fn(&[String]) -> String,
    ) -> Option<Value> {
        if !args.iter().any(|s| self.chosen_ways(s).is_some()) {
            return None;
        }
        let mut combos: Vec<(Vec<String>, String)> = vec![(Vec::new(), String::new())];
        for a in args {
            let next = self.ways_or_text(a)?;
            let mut out = Vec::new();
            'all: for (texts, cond) in &combos {
                for (t, c) in &next {
                    if out.len() >= MAX_WAYS {
                        break 'all;
                    }
                    let mut texts = texts.clone();
                    texts.push(t.to_string());
                    out.push((texts, and(cond, c)));
                }
            }
            combos = out;
        }
        let ways = combos
            .into_iter()
            .map(|(texts, cond)| (Rc::from(join(&texts)), cond))
            .collect();
        Some(self.choose(ways))
    }

    /// `out`, a string made from `from` some other way (a string method, a
    /// path helper): when one of them is a chosen string, `out` is what its
    /// first way gives, so it holds only under that way's condition.
    pub(crate) fn derived_from_choice(&mut self, out: Value, from: &[&Value]) -> Value {
        if !matches!(out, Value::Str(_)) || self.chosen_ways(&out).is_some() {
            return out;
        }
        let Some(cond) = from
            .iter()
            .find_map(|v| self.chosen_ways(v))
            .map(|w| w[0].1.clone())
        else {
            return out;
        };
        match out.as_text() {
            Some(t) if !cond.is_empty() => self.choose(vec![(Rc::from(t.as_str()), cond)]),
            _ => out,
        }
    }
}
