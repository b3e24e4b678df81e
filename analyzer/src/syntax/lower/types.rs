//! The TypeScript types the resolver reads (a subset: see `TypeExpr`).

use super::*;

impl<'s> Lowerer<'s> {
    pub(crate) fn object_type(&mut self, node: Node) -> TypeExpr {
        let mut fields = Vec::new();
        for m in Self::named_children(node) {
            match m.kind() {
                "property_signature" => {
                    let name = m
                        .field(F::Name)
                        .map(|n| self.key_text(n))
                        .unwrap_or_default();
                    let optional = {
                        let mut cur = m.walk();
                        m.children(&mut cur).any(|c| c.kind() == "?")
                    };
                    let ty = m
                        .field(F::Type)
                        .and_then(|t| Self::named_children(t).first().copied())
                        .map(|t| self.type_expr(t))
                        .unwrap_or(TypeExpr::Other);
                    fields.push((name, optional, ty));
                }
                "method_signature" => {
                    let name = m
                        .field(F::Name)
                        .map(|n| self.key_text(n))
                        .unwrap_or_default();
                    let params = m
                        .field(F::Parameters)
                        .map(|p| self.type_params(p))
                        .unwrap_or_default();
                    fields.push((name, false, TypeExpr::Function(params)));
                }
                _ => {}
            }
        }
        TypeExpr::Object(fields)
    }

    pub(crate) fn type_params(&mut self, node: Node) -> Vec<(String, bool, TypeExpr)> {
        let mut out = Vec::new();
        for p in Self::named_children(node) {
            let name = p
                .field(F::Pattern)
                .map(|n| self.text(n).to_string())
                .unwrap_or_default();
            let ty = p
                .field(F::Type)
                .and_then(|t| Self::named_children(t).first().copied())
                .map(|t| self.type_expr(t))
                .unwrap_or(TypeExpr::Other);
            out.push((name, p.kind() == "optional_parameter", ty));
        }
        out
    }

    pub(crate) fn type_expr(&mut self, node: Node) -> TypeExpr {
        if !self.enter(node) {
            return TypeExpr::Other;
        }
        let t = self.type_inner(node);
        self.depth -= 1;
        t
    }

    pub(crate) fn type_inner(&mut self, node: Node) -> TypeExpr {
        match node.kind() {
            "type_identifier" | "nested_type_identifier" | "identifier" => {
                TypeExpr::Ref(self.text(node).to_string(), Vec::new())
            }
            "generic_type" => {
                let name = node
                    .field(F::Name)
                    .map(|n| self.text(n).to_string())
                    .unwrap_or_default();
                let args: Vec<TypeExpr> = node
                    .field(F::TypeArguments)
                    .map(|t| {
                        Self::named_children(t)
                            .into_iter()
                            .map(|x| self.type_expr(x))
                            .collect()
                    })
                    .unwrap_or_default();
                if name == "Array" && args.len() == 1 {
                    return TypeExpr::Array(Box::new(args.into_iter().next().unwrap()));
                }
                TypeExpr::Ref(name, args)
            }
            "predefined_type" => TypeExpr::Prim(self.text(node).to_string()),
            "object_type" | "interface_body" => self.object_type(node),
            "array_type" => Self::named_children(node)
                .first()
                .map(|n| TypeExpr::Array(Box::new(self.type_expr(*n))))
                .unwrap_or(TypeExpr::Other),
            "tuple_type" => TypeExpr::Tuple(
                Self::named_children(node)
                    .into_iter()
                    .map(|x| self.type_expr(x))
                    .collect(),
            ),
            "union_type" => {
                let mut members = Vec::new();
                for c in Self::named_children(node) {
                    match self.type_expr(c) {
                        TypeExpr::Union(inner) => members.extend(inner),
                        t => members.push(t),
                    }
                }
                TypeExpr::Union(members)
            }
            "literal_type" => match Self::named_children(node).first() {
                Some(c) if c.kind() == "string" => TypeExpr::StrLit(self.string(*c)),
                Some(c) if c.kind() == "number" => {
                    TypeExpr::NumLit(self.text(*c).parse().unwrap_or(0.0))
                }
                Some(c) if c.kind() == "null" => TypeExpr::Prim("null".into()),
                Some(c) if c.kind() == "true" || c.kind() == "false" => {
                    TypeExpr::Prim("boolean".into())
                }
                Some(c) if c.kind() == "undefined" => TypeExpr::Prim("undefined".into()),
                _ => TypeExpr::Other,
            },
            "function_type" => {
                let params = node
                    .field(F::Parameters)
                    .map(|p| self.type_params(p))
                    .unwrap_or_default();
                TypeExpr::Function(params)
            }
            "parenthesized_type" | "readonly_type" => Self::named_children(node)
                .first()
                .map(|n| self.type_expr(*n))
                .unwrap_or(TypeExpr::Other),
            "optional_type" | "rest_type" => Self::named_children(node)
                .first()
                .map(|n| self.type_expr(*n))
                .unwrap_or(TypeExpr::Other),
            "required_parameter" | "optional_parameter" => node
                .field(F::Type)
                .and_then(|t| Self::named_children(t).first().copied())
                .map(|t| self.type_expr(t))
                .unwrap_or(TypeExpr::Other),
            _ => TypeExpr::Other,
        }
    }
}
