//! Functions, classes, decorators and property keys.

use super::*;

impl<'s> Lowerer<'s> {
    pub(crate) fn func(&mut self, node: Node, name: Option<String>) -> Func {
        // `func_inner` takes the next id.
        let id = self.next_fn;
        if let Some(&outer) = self.fn_stack.last() {
            self.fn_parent.insert(id, outer);
        }
        self.fn_stack.push(id);
        let f = self.func_inner(node, name);
        self.fn_stack.pop();
        f
    }

    /// Note an identifier read (for parsing ahead what code will need).
    pub(crate) fn read_ident(&mut self, name: &str) {
        match self.fn_stack.last() {
            None => {
                if !self.top_idents.contains(name) {
                    self.top_idents.insert(name.to_string());
                }
            }
            Some(&id) => match self.ident_fns.get_mut(name) {
                Some(fns) => {
                    if fns.last() != Some(&id) {
                        fns.push(id);
                    }
                }
                None => {
                    self.ident_fns.insert(name.to_string(), vec![id]);
                }
            },
        }
    }

    pub(crate) fn func_inner(&mut self, node: Node, name: Option<String>) -> Func {
        let id = self.next_fn;
        self.next_fn += 1;
        let mut params = Vec::new();
        let mut param_types = Vec::new();
        let mut rest = false;
        // TypeScript parameter properties (`constructor(private readonly svc: Svc)`)
        // assign themselves to `this`.
        let mut param_props: Vec<(String, usize)> = Vec::new();
        if let Some(p) = node.field(F::Parameter) {
            params.push(self.pattern(p));
            param_types.push(None);
        }
        if let Some(ps) = node.field(F::Parameters) {
            for p in Self::named_children(ps) {
                let ty = p
                    .field(F::Type)
                    .and_then(|t| Self::named_children(t).first().copied())
                    .map(|t| self.type_expr(t));
                if p.kind() == "required_parameter" || p.kind() == "optional_parameter" {
                    let pat = p.field(F::Pattern).map(|n| self.pattern(n));
                    let pat = pat.unwrap_or(Pattern::Ignored);
                    let pat = match p.field(F::Value) {
                        Some(v) => Pattern::Default(Box::new(pat), Box::new(self.expr(v))),
                        None => pat,
                    };
                    // `this` parameters are types only.
                    if p.field(F::Pattern).map(|n| n.kind()) == Some("this") {
                        continue;
                    }
                    rest = p.field(F::Pattern).map(|n| n.kind()) == Some("rest_pattern");
                    let is_property = {
                        let mut cur = p.walk();
                        p.children(&mut cur).any(|c| {
                            matches!(
                                c.kind(),
                                "accessibility_modifier" | "readonly" | "override_modifier"
                            )
                        })
                    };
                    let ident = match &pat {
                        Pattern::Ident(n) => Some(n.clone()),
                        Pattern::Default(inner, _) => match inner.as_ref() {
                            Pattern::Ident(n) => Some(n.clone()),
                            _ => None,
                        },
                        _ => None,
                    };
                    if is_property
                        && name.as_deref() == Some("constructor")
                        && let Some(n) = ident
                    {
                        param_props.push((n, params.len()));
                    }
                    params.push(pat);
                } else {
                    rest = p.kind() == "rest_pattern";
                    params.push(self.pattern(p));
                }
                param_types.push(ty);
            }
        }
        self.nested_vars.push(Vec::new());
        let mut body = match node.field(F::Body) {
            Some(b) if b.kind() == "statement_block" => self.stmts_of(b),
            Some(b) => vec![Stmt::Return(Some(self.expr(b)))],
            None => Vec::new(),
        };
        let nested = self.nested_vars.pop().unwrap_or_default();
        Self::hoist_vars(nested, &params, &mut body);
        if name.as_deref() == Some("constructor") {
            self.param_props = param_props.clone();
        }
        if !param_props.is_empty() {
            let assigns = param_props.into_iter().map(|(n, _)| {
                Stmt::Expr(Expr::Assign(
                    Box::new(Pattern::Target(Box::new(Expr::Member(
                        Box::new(Expr::This),
                        n.clone(),
                    )))),
                    Box::new(Expr::Ident(n)),
                ))
            });
            body.splice(0..0, assigns);
        }
        let name = name.or_else(|| node.field(F::Name).map(|n| self.text(n).to_string()));
        // `async` and `*` are tokens of the declaration itself.
        let (mut is_async, mut generator) = (false, node.kind().contains("generator"));
        let mut cur = node.walk();
        for c in node.children(&mut cur) {
            match c.kind() {
                "async" => is_async = true,
                "*" => generator = true,
                _ => {}
            }
        }
        let kind = match (is_async, generator) {
            (false, false) => FuncKind::Plain,
            (true, false) => FuncKind::Async,
            (false, true) => FuncKind::Generator,
            (true, true) => FuncKind::AsyncGenerator,
        };
        Func {
            id,
            name,
            params,
            param_types,
            body,
            line: line_of(node),
            doc: None,
            arrow: node.kind() == "arrow_function",
            rest,
            kind,
        }
    }

    pub(crate) fn class(&mut self, node: Node) -> Class {
        let name = node.field(F::Name).map(|n| self.text(n).to_string());
        let mut class = Class {
            name,
            superclass: None,
            fields: Vec::new(),
            static_fields: Vec::new(),
            methods: Vec::new(),
            getters: Vec::new(),
            setters: Vec::new(),
            static_methods: Vec::new(),
            static_getters: Vec::new(),
            constructor: None,
            line: line_of(node),
            decorators: Vec::new(),
            member_decorators: Vec::new(),
            param_decorators: Vec::new(),
            field_types: Vec::new(),
            param_props: Vec::new(),
        };
        // `@Gateway() export class X` puts the decorator on the export.
        if let Some(parent) = node.parent()
            && parent.kind() == "export_statement"
        {
            class.decorators = self.decorators_in(parent);
        }
        let own = self.decorators_in(node);
        class.decorators.extend(own);
        for c in Self::named_children(node) {
            if c.kind() == "class_heritage" {
                for h in Self::named_children(c) {
                    if h.kind() == "extends_clause" {
                        if let Some(v) = h.field(F::Value) {
                            class.superclass = Some(self.expr(v));
                        }
                    } else if h.kind() != "implements_clause" {
                        class.superclass = Some(self.expr(h));
                    }
                }
            }
        }
        let Some(body) = node.field(F::Body) else {
            return class;
        };
        // (The TypeScript grammar puts a member's decorators before it in the
        // class body; the JavaScript grammar puts them inside the member.)
        let mut pending: Vec<Decorator> = Vec::new();
        for m in Self::named_children(body) {
            if m.kind() == "decorator" {
                let d = self.decorator(m);
                pending.push(d);
                continue;
            }
            let is_static = {
                let mut cur = m.walk();
                m.children(&mut cur).any(|c| c.kind() == "static")
            };
            let mut decorators = std::mem::take(&mut pending);
            decorators.extend(self.decorators_in(m));
            match m.kind() {
                "method_definition" => {
                    let key = m
                        .field(F::Name)
                        .map(|n| self.key_text(n))
                        .unwrap_or_default();
                    if let Some(ps) = m.field(F::Parameters) {
                        let params = Self::named_children(ps)
                            .into_iter()
                            .filter(|p| p.field(F::Pattern).map(|n| n.kind()) != Some("this"));
                        for (i, p) in params.enumerate() {
                            for d in self.decorators_in(p) {
                                class.param_decorators.push((key.clone(), i, d));
                            }
                        }
                    }
                    if !decorators.is_empty() {
                        class.member_decorators.push((key.clone(), decorators));
                    }
                    let doc = self.doc_before(m);
                    let mut f = self.func(m, Some(key.clone()));
                    f.doc = doc;
                    let (is_getter, is_setter) = {
                        let mut cur = m.walk();
                        let kinds: Vec<&str> = m.children(&mut cur).map(|c| c.kind()).collect();
                        (kinds.contains(&"get"), kinds.contains(&"set"))
                    };
                    if key == "constructor" {
                        class.param_props = std::mem::take(&mut self.param_props);
                        class.constructor = Some(Arc::new(f));
                    } else if is_getter && !is_static {
                        class.getters.push((key, Arc::new(f)));
                    } else if is_getter {
                        class.static_getters.push((key, Arc::new(f)));
                    } else if is_static {
                        class.static_methods.push((key, Arc::new(f)));
                    } else {
                        let f = Arc::new(f);
                        if is_setter {
                            class.setters.push((key.clone(), f.clone()));
                        }
                        class.methods.push((key, f));
                    }
                }
                "field_definition" | "public_field_definition" => {
                    let key_node = m.field(F::Property).or_else(|| m.field(F::Name));
                    let key = key_node.map(|n| self.key_text(n)).unwrap_or_default();
                    if !decorators.is_empty() {
                        class.member_decorators.push((key.clone(), decorators));
                    }
                    let value = m.field(F::Value).map(|v| self.expr(v));
                    if !is_static
                        && let Some(t) = m
                            .field(F::Type)
                            .and_then(|t| Self::named_children(t).first().copied())
                    {
                        let optional = {
                            let mut cur = m.walk();
                            m.children(&mut cur).any(|c| c.kind() == "?")
                        };
                        let ty = self.type_expr(t);
                        class.field_types.push((key.clone(), optional, ty));
                    }
                    if is_static {
                        class.static_fields.push((key, value));
                    } else {
                        class.fields.push((key, value));
                    }
                }
                _ => {}
            }
        }
        class
    }

    /// The decorators directly inside a node (a class, a member, a parameter).
    pub(crate) fn decorators_in(&mut self, node: Node) -> Vec<Decorator> {
        Self::named_children(node)
            .into_iter()
            .filter(|c| c.kind() == "decorator")
            .map(|d| self.decorator(d))
            .collect()
    }

    /// The expressions of an `arguments` node (none when it is absent).
    pub(crate) fn argument_exprs(&mut self, args: Option<Node>) -> Vec<Expr> {
        match args {
            Some(a) => Self::named_children(a)
                .into_iter()
                .map(|x| self.expr(x))
                .collect(),
            None => Vec::new(),
        }
    }

    pub(crate) fn decorator(&mut self, node: Node) -> Decorator {
        let line = line_of(node);
        let inner = Self::named_children(node).first().copied();
        match inner {
            Some(c) if c.kind() == "call_expression" => {
                let callee = c
                    .field(F::Function)
                    .map(|f| self.expr(f))
                    .unwrap_or(Expr::Opaque(line));
                let args = self.argument_exprs(c.field(F::Arguments));
                Decorator {
                    callee,
                    args,
                    line,
                    called: true,
                }
            }
            Some(c) => Decorator {
                callee: self.expr(c),
                args: Vec::new(),
                line,
                called: false,
            },
            None => Decorator {
                callee: Expr::Opaque(line),
                args: Vec::new(),
                line,
                called: false,
            },
        }
    }

    pub(crate) fn key_text(&mut self, node: Node) -> String {
        match node.kind() {
            "string" => self.string(node),
            _ => self.text(node).to_string(),
        }
    }

    pub(crate) fn prop_key(&mut self, node: Node) -> PropKey {
        match node.kind() {
            "computed_property_name" => {
                let inner = Self::named_children(node).first().map(|n| self.expr(*n));
                PropKey::Computed(Box::new(inner.unwrap_or(Expr::Opaque(line_of(node)))))
            }
            _ => PropKey::Name(self.key_text(node)),
        }
    }
}
