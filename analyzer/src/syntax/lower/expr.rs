//! Expressions, JSX (its embedded expressions only) and templates.

use super::*;

impl<'s> Lowerer<'s> {
    pub(crate) fn expr(&mut self, node: Node) -> Expr {
        if !self.enter(node) {
            return Expr::Opaque(line_of(node));
        }
        let e = self.expr_inner(node);
        self.depth -= 1;
        e
    }

    pub(crate) fn expr_inner(&mut self, node: Node) -> Expr {
        let line = line_of(node);
        match node.kind() {
            "string" => Expr::Str(self.string(node)),
            "number" => {
                let t = self.text(node).replace('_', "");
                let v = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                    i64::from_str_radix(h, 16)
                        .map(|v| v as f64)
                        .unwrap_or(f64::NAN)
                } else {
                    t.trim_end_matches('n').parse::<f64>().unwrap_or(f64::NAN)
                };
                Expr::Num(v)
            }
            "true" => Expr::Bool(true),
            "false" => Expr::Bool(false),
            "null" => Expr::Null,
            "undefined" => Expr::Undefined,
            "regex" => Expr::Regex(self.text(node).to_string()),
            "template_string" => self.template(node),
            "identifier" | "shorthand_property_identifier" => {
                let t = self.text(node);
                if t == "undefined" {
                    Expr::Undefined
                } else {
                    self.read_ident(t);
                    Expr::Ident(t.to_string())
                }
            }
            "this" => Expr::This,
            "super" => Expr::Super,
            // `import.meta` reads as a name the module scope defines.
            "meta_property" if self.text(node) == "import.meta" => {
                Expr::Ident("import.meta".into())
            }
            "member_expression" => {
                let obj = node
                    .field(F::Object)
                    .map(|o| self.expr(o))
                    .unwrap_or(Expr::Opaque(line));
                let prop = node
                    .field(F::Property)
                    .map(|p| self.text(p).to_string())
                    .unwrap_or_default();
                Expr::Member(Box::new(obj), prop)
            }
            "subscript_expression" => {
                let obj = node
                    .field(F::Object)
                    .map(|o| self.expr(o))
                    .unwrap_or(Expr::Opaque(line));
                let idx = node
                    .field(F::Index)
                    .map(|o| self.expr(o))
                    .unwrap_or(Expr::Opaque(line));
                Expr::Index(Box::new(obj), Box::new(idx))
            }
            "call_expression" => {
                let callee_node = node.field(F::Function);
                let args_node = node.field(F::Arguments);
                let callee = callee_node
                    .map(|c| {
                        if c.kind() == "import" {
                            Expr::Ident("import".into())
                        } else {
                            self.expr(c)
                        }
                    })
                    .unwrap_or(Expr::Opaque(line));
                let call_line = match callee_node {
                    Some(c) if c.kind() == "member_expression" => {
                        c.field(F::Property).map(line_of).unwrap_or(line)
                    }
                    _ => line,
                };
                let args = match args_node {
                    Some(a) if a.kind() == "arguments" => Self::named_children(a)
                        .into_iter()
                        .map(|x| self.expr(x))
                        .collect(),
                    // Tagged template: tag`...` — one template argument.
                    Some(a) => vec![self.expr(a)],
                    None => Vec::new(),
                };
                let type_args = node
                    .field(F::TypeArguments)
                    .map(|t| {
                        Self::named_children(t)
                            .into_iter()
                            .map(|x| self.type_expr(x))
                            .collect()
                    })
                    .unwrap_or_default();
                if let Expr::Ident(n) = &callee
                    && (n == "require" || n == "import")
                    && let Some(Expr::Str(spec)) = args.first()
                {
                    if n == "require" && self.fn_stack.is_empty() {
                        self.top_requires.push(spec.clone());
                    }
                    if !self.literal_requires.contains(spec) {
                        self.literal_requires.push(spec.clone());
                    }
                }
                Expr::Call(Box::new(Call {
                    callee,
                    args,
                    line: call_line,
                    type_args,
                    doc: None,
                }))
            }
            "new_expression" => {
                let callee = node
                    .field(F::Constructor)
                    .map(|c| self.expr(c))
                    .unwrap_or(Expr::Opaque(line));
                let args = self.argument_exprs(node.field(F::Arguments));
                Expr::New(Box::new(callee), args, line)
            }
            "array" => Expr::Array(
                Self::named_children(node)
                    .into_iter()
                    .map(|x| self.expr(x))
                    .collect(),
            ),
            "object" => {
                let mut props = Vec::new();
                for c in Self::named_children(node) {
                    match c.kind() {
                        "pair" => {
                            let key = c
                                .field(F::Key)
                                .map(|k| self.prop_key(k))
                                .unwrap_or(PropKey::Name(String::new()));
                            let mut value = c
                                .field(F::Value)
                                .map(|v| self.expr(v))
                                .unwrap_or(Expr::Undefined);
                            if let (PropKey::Name(n), Expr::Func(f)) = (&key, &mut value)
                                && f.name.is_none()
                                && let Some(f) = Arc::get_mut(f)
                            {
                                f.name = Some(n.clone());
                            }
                            props.push(ObjProp::KeyValue(key, value));
                        }
                        "shorthand_property_identifier" => {
                            let n = self.text(c).to_string();
                            self.read_ident(&n);
                            props.push(ObjProp::KeyValue(PropKey::Name(n.clone()), Expr::Ident(n)));
                        }
                        "spread_element" => {
                            if let Some(inner) = Self::named_children(c).first() {
                                let e = self.expr(*inner);
                                props.push(ObjProp::Spread(e));
                            }
                        }
                        "method_definition" => {
                            let key = c
                                .field(F::Name)
                                .map(|k| self.prop_key(k))
                                .unwrap_or(PropKey::Name(String::new()));
                            let name = match &key {
                                PropKey::Name(n) => Some(n.clone()),
                                PropKey::Computed(_) => None,
                            };
                            let f = self.func(c, name);
                            let (mut getter, mut setter) = (false, false);
                            let mut cur = c.walk();
                            for t in c.children(&mut cur) {
                                getter |= t.kind() == "get";
                                setter |= t.kind() == "set";
                            }
                            if getter {
                                props.push(ObjProp::Getter(key, Arc::new(f)));
                            } else if !setter {
                                props.push(ObjProp::Method(key, Arc::new(f)));
                            }
                        }
                        _ => {}
                    }
                }
                Expr::Object(props)
            }
            "arrow_function" | "function_expression" | "function" | "generator_function" => {
                Expr::Func(Arc::new(self.func(node, None)))
            }
            "class" => Expr::Class(Arc::new(self.class(node))),
            "binary_expression" => {
                let op = node
                    .field(F::Operator)
                    .map(|o| self.text(o).to_string())
                    .unwrap_or_default();
                let l = node.field(F::Left).map(|n| self.expr(n));
                let r = node.field(F::Right).map(|n| self.expr(n));
                let (Some(l), Some(r)) = (l, r) else {
                    return Expr::Opaque(line);
                };
                match op.as_str() {
                    "+" => Expr::Add(Box::new(l), Box::new(r)),
                    // `l - r` as `-(-l + r)`: a number only when both are
                    // numbers (negating anything else is unknown), so
                    // `args[args.length - 1]` is the last argument.
                    "-" => Expr::Unary(
                        "-".into(),
                        Box::new(Expr::Add(
                            Box::new(Expr::Unary("-".into(), Box::new(l))),
                            Box::new(r),
                        )),
                    ),
                    "&&" => Expr::Logical(LogicalOp::And, Box::new(l), Box::new(r)),
                    "||" => Expr::Logical(LogicalOp::Or, Box::new(l), Box::new(r)),
                    "??" => Expr::Logical(LogicalOp::Nullish, Box::new(l), Box::new(r)),
                    "===" | "==" | "!==" | "!=" | "<" | "<=" | ">" | ">=" | "instanceof" => {
                        Expr::Compare(op, Box::new(l), Box::new(r))
                    }
                    "*" | "/" | "%" | "**" | "|" | "&" | "^" | "<<" | ">>" | ">>>" => {
                        Expr::Arith(op, Box::new(l), Box::new(r))
                    }
                    // Operands may still hold calls with effects (rare); keep them.
                    _ => Expr::Seq(vec![l, r, Expr::Opaque(line)]),
                }
            }
            "ternary_expression" => {
                let c = node.field(F::Condition);
                let text = c.map(|c| self.short_text(c)).unwrap_or_default();
                let test = c.map(|c| self.expr(c)).unwrap_or(Expr::Opaque(line));
                let a = node
                    .field(F::Consequence)
                    .map(|n| self.expr(n))
                    .unwrap_or(Expr::Opaque(line));
                let b = node
                    .field(F::Alternative)
                    .map(|n| self.expr(n))
                    .unwrap_or(Expr::Opaque(line));
                Expr::Cond(Box::new(test), text, Box::new(a), Box::new(b))
            }
            "assignment_expression" => {
                let left = node
                    .field(F::Left)
                    .map(|l| self.pattern(l))
                    .unwrap_or(Pattern::Ignored);
                let mut right = node
                    .field(F::Right)
                    .map(|r| self.expr(r))
                    .unwrap_or(Expr::Undefined);
                if let (Pattern::Target(t), Expr::Func(f)) = (&left, &mut right)
                    && f.name.is_none()
                    && let Expr::Member(_, n) = t.as_ref()
                    && let Some(f) = Arc::get_mut(f)
                {
                    f.name = Some(n.clone());
                }
                Expr::Assign(Box::new(left), Box::new(right))
            }
            "augmented_assignment_expression" => {
                let op = node
                    .field(F::Operator)
                    .map(|o| self.text(o).to_string())
                    .unwrap_or_default();
                let left_node = node.field(F::Left);
                let left = left_node
                    .map(|l| self.pattern(l))
                    .unwrap_or(Pattern::Ignored);
                let right = node
                    .field(F::Right)
                    .map(|r| self.expr(r))
                    .unwrap_or(Expr::Undefined);
                let cur = left_node.map(|l| self.expr(l)).unwrap_or(Expr::Undefined);
                let value = match op.as_str() {
                    "+=" => Expr::Add(Box::new(cur), Box::new(right)),
                    "-=" => Expr::Add(
                        Box::new(cur),
                        Box::new(Expr::Unary("-".into(), Box::new(right))),
                    ),
                    "||=" => Expr::Logical(LogicalOp::Or, Box::new(cur), Box::new(right)),
                    "??=" => Expr::Logical(LogicalOp::Nullish, Box::new(cur), Box::new(right)),
                    "&&=" => Expr::Logical(LogicalOp::And, Box::new(cur), Box::new(right)),
                    _ => Expr::Seq(vec![right, Expr::Opaque(line)]),
                };
                Expr::Assign(Box::new(left), Box::new(value))
            }
            "await_expression" | "yield_expression" => match Self::named_children(node).first() {
                Some(n) => Expr::Await(Box::new(self.expr(*n))),
                None => Expr::Undefined,
            },
            "unary_expression" => {
                let op = node
                    .field(F::Operator)
                    .map(|o| self.text(o).to_string())
                    .unwrap_or_default();
                let arg = node
                    .field(F::Argument)
                    .map(|a| self.expr(a))
                    .unwrap_or(Expr::Undefined);
                Expr::Unary(op, Box::new(arg))
            }
            "update_expression" => {
                // `i++`, `--i` (the loop counters of `for`).
                let text = self.text(node);
                let step = if text.contains("++") { 1.0 } else { -1.0 };
                let arg = node.field(F::Argument);
                let prefix = arg.is_some_and(|a| a.start_byte() > node.start_byte());
                match arg.map(|a| (self.pattern(a), self.expr(a))) {
                    Some((target, cur)) => Expr::Update {
                        target: Box::new(target),
                        value: Box::new(cur),
                        step,
                        prefix,
                    },
                    None => Expr::Opaque(line),
                }
            }
            "as_expression" | "satisfies_expression" | "type_assertion" => {
                // `req.body as CreateNote`: the value, with its declared type
                // (`as unknown`/`as any` state nothing).
                let mut inner = None;
                let mut ty = None;
                for c in Self::named_children(node) {
                    if is_type_node(c.kind()) {
                        if ty.is_none() {
                            ty = Some(self.type_expr(c));
                        }
                    } else if inner.is_none() {
                        inner = Some(self.expr(c));
                    }
                }
                match (inner, ty) {
                    (Some(e), Some(t)) if !matches!(&t, TypeExpr::Prim(p) if p == "any" || p == "unknown") => {
                        Expr::Typed(Box::new(e), t)
                    }
                    (Some(e), _) => e,
                    (None, _) => Expr::Opaque(line),
                }
            }
            "parenthesized_expression" | "non_null_expression" => {
                // The expression is the first named child that is not a type.
                for c in Self::named_children(node) {
                    if !is_type_node(c.kind()) {
                        return self.expr(c);
                    }
                }
                Expr::Opaque(line)
            }
            "jsx_element" | "jsx_self_closing_element" | "jsx_fragment" => {
                if let Some(e) = self.jsx_component(node) {
                    return e;
                }
                // Only the embedded `{...}` expressions matter (handlers, callbacks).
                let mut out = Vec::new();
                self.jsx_exprs(node, &mut out, 0);
                Expr::Array(out)
            }
            "instantiation_expression" => node
                .field(F::Function)
                .map(|f| self.expr(f))
                .unwrap_or(Expr::Opaque(line)),
            "sequence_expression" => Expr::Seq(
                Self::named_children(node)
                    .into_iter()
                    .map(|x| self.expr(x))
                    .collect(),
            ),
            "spread_element" => match Self::named_children(node).first() {
                Some(n) => Expr::Spread(Box::new(self.expr(*n))),
                None => Expr::Opaque(line),
            },
            _ => Expr::Opaque(line),
        }
    }

    pub(crate) fn jsx_exprs(&mut self, node: Node, out: &mut Vec<Expr>, depth: u32) {
        if depth > 64 {
            return;
        }
        for c in Self::named_children(node) {
            match c.kind() {
                "jsx_expression" => {
                    for e in Self::named_children(c) {
                        if e.kind() != "comment" {
                            out.push(self.expr(e));
                        }
                    }
                }
                "jsx_element" | "jsx_self_closing_element" => match self.jsx_component(c) {
                    Some(e) => out.push(e),
                    None => self.jsx_exprs(c, out, depth + 1),
                },
                "jsx_text"
                | "html_character_reference"
                | "identifier"
                | "member_expression"
                | "jsx_namespace_name"
                | "property_identifier"
                | "string" => {}
                _ => self.jsx_exprs(c, out, depth + 1),
            }
        }
    }

    /// A JSX element whose tag is a component (`<Game socket={socket} />`,
    /// `<Nav.Item {...props}>…</Nav.Item>`), or an intrinsic one with an
    /// event handler (`<button onClick={() => …}>`, its tag a string): a
    /// call of [`crate::ir::JSX_ELEMENT`] with the tag, the props and the
    /// children, as the classic JSX transform makes `React.createElement(Game,
    /// { socket }, …children)`. Other intrinsic elements (`<div>`) and
    /// fragments are `None`: only their embedded expressions matter.
    fn jsx_component(&mut self, node: Node) -> Option<Expr> {
        let open = match node.kind() {
            "jsx_self_closing_element" => node,
            "jsx_element" => *Self::named_children(node)
                .first()
                .filter(|o| o.kind() == "jsx_opening_element")?,
            _ => return None,
        };
        let name = open.field(F::Name)?;
        let component = match name.kind() {
            "identifier" => self
                .text(name)
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_uppercase()),
            "member_expression" => true,
            _ => false,
        };
        // An intrinsic element (`<button onClick={…}>`) counts for the
        // handlers the browser calls: an `on…` attribute with an expression.
        let handles = || {
            Self::named_children(open).into_iter().any(|a| {
                let parts = Self::named_children(a);
                a.kind() == "jsx_attribute"
                    && parts.first().is_some_and(|k| {
                        let t = self.text(*k);
                        t.len() > 2
                            && t.starts_with("on")
                            && t[2..].starts_with(|c: char| c.is_ascii_uppercase())
                    })
                    && parts.get(1).is_some_and(|v| v.kind() == "jsx_expression")
            })
        };
        if !component && (name.kind() != "identifier" || !handles()) {
            return None;
        }
        let line = node.start_position().row as u32 + 1;
        let tag = if component {
            self.expr(name)
        } else {
            Expr::Str(self.text(name).to_string())
        };
        let mut props = Vec::new();
        for a in Self::named_children(open).into_iter().skip(1) {
            match a.kind() {
                "jsx_attribute" => {
                    let parts = Self::named_children(a);
                    let Some(key) = parts.first().filter(|k| k.kind() == "property_identifier")
                    else {
                        continue;
                    };
                    let key = PropKey::Name(self.text(*key).to_string());
                    let value = match parts.get(1) {
                        None => Expr::Bool(true),
                        Some(v) if v.kind() == "jsx_expression" => Self::named_children(*v)
                            .into_iter()
                            .find(|e| e.kind() != "comment")
                            .map_or(Expr::Undefined, |e| self.expr(e)),
                        Some(v) => self.expr(*v),
                    };
                    props.push(ObjProp::KeyValue(key, value));
                }
                "jsx_expression" => {
                    for e in Self::named_children(a) {
                        match e.kind() {
                            "spread_element" => {
                                if let Some(x) = Self::named_children(e).first() {
                                    props.push(ObjProp::Spread(self.expr(*x)));
                                }
                            }
                            "comment" => {}
                            _ => props.push(ObjProp::Spread(self.expr(e))),
                        }
                    }
                }
                _ => {}
            }
        }
        let mut children = Vec::new();
        if node.kind() == "jsx_element" {
            for c in Self::named_children(node) {
                match c.kind() {
                    "jsx_opening_element" | "jsx_closing_element" => {}
                    _ => self.jsx_exprs_of(c, &mut children),
                }
            }
        }
        let mut args = vec![tag, Expr::Object(props)];
        args.extend(children);
        Some(Expr::Call(Box::new(crate::ir::Call {
            callee: Expr::Ident(crate::ir::JSX_ELEMENT.to_string()),
            args,
            line,
            type_args: Vec::new(),
            doc: None,
        })))
    }

    /// A JSX child (an element, an embedded expression, text) as the
    /// expressions that matter in it.
    fn jsx_exprs_of(&mut self, c: Node, out: &mut Vec<Expr>) {
        match c.kind() {
            "jsx_expression" => {
                for e in Self::named_children(c) {
                    if e.kind() != "comment" {
                        out.push(self.expr(e));
                    }
                }
            }
            "jsx_element" | "jsx_self_closing_element" | "jsx_fragment" => out.push(self.expr(c)),
            _ => {}
        }
    }

    pub(crate) fn template(&mut self, node: Node) -> Expr {
        // Quasis are the raw source between `${...}` substitutions.
        let start = node.start_byte() + 1;
        let end = node.end_byte().saturating_sub(1).max(start);
        let mut quasis = Vec::new();
        let mut exprs = Vec::new();
        let mut pos = start;
        for c in Self::named_children(node) {
            if c.kind() == "template_substitution" {
                quasis.push(unescape(
                    std::str::from_utf8(&self.src[pos..c.start_byte()]).unwrap_or(""),
                ));
                let inner = Self::named_children(c)
                    .first()
                    .map(|n| self.expr(*n))
                    .unwrap_or(Expr::Opaque(line_of(c)));
                exprs.push(inner);
                pos = c.end_byte();
            }
        }
        quasis.push(unescape(
            std::str::from_utf8(&self.src[pos.min(end)..end]).unwrap_or(""),
        ));
        Expr::Template(quasis, exprs)
    }
}
