//! Binding patterns and string literals.

use super::*;

impl<'s> Lowerer<'s> {
    pub(crate) fn pattern(&mut self, node: Node) -> Pattern {
        if !self.enter(node) {
            return Pattern::Ignored;
        }
        let p = self.pattern_inner(node);
        self.depth -= 1;
        p
    }

    pub(crate) fn pattern_inner(&mut self, node: Node) -> Pattern {
        match node.kind() {
            "identifier" | "shorthand_property_identifier_pattern" => {
                Pattern::Ident(self.text(node).to_string())
            }
            "object_pattern" => {
                let mut props = Vec::new();
                let mut rest = None;
                for c in Self::named_children(node) {
                    match c.kind() {
                        "shorthand_property_identifier_pattern" => {
                            let n = self.text(c).to_string();
                            props.push((PropKey::Name(n.clone()), Pattern::Ident(n)));
                        }
                        "pair_pattern" => {
                            let key = c
                                .field(F::Key)
                                .map(|k| self.prop_key(k))
                                .unwrap_or(PropKey::Name(String::new()));
                            let value = c
                                .field(F::Value)
                                .map(|v| self.pattern(v))
                                .unwrap_or(Pattern::Ignored);
                            props.push((key, value));
                        }
                        "object_assignment_pattern" => {
                            let left = c.field(F::Left);
                            let name = left.map(|l| self.text(l).to_string()).unwrap_or_default();
                            let inner = left.map(|l| self.pattern(l)).unwrap_or(Pattern::Ignored);
                            let def = c
                                .field(F::Right)
                                .map(|r| self.expr(r))
                                .unwrap_or(Expr::Undefined);
                            props.push((
                                PropKey::Name(name),
                                Pattern::Default(Box::new(inner), Box::new(def)),
                            ));
                        }
                        "rest_pattern" => {
                            rest = Self::named_children(c)
                                .first()
                                .map(|n| Box::new(self.pattern(*n)));
                        }
                        _ => {}
                    }
                }
                Pattern::Object(props, rest)
            }
            "array_pattern" => {
                let mut items = Vec::new();
                let mut rest = None;
                // Holes are unnamed commas; walk all children to see them.
                let mut cur = node.walk();
                let mut expect_item = true;
                for c in node.children(&mut cur) {
                    match c.kind() {
                        "[" | "]" | "comment" => {}
                        "," => {
                            if expect_item {
                                items.push(None);
                            }
                            expect_item = true;
                        }
                        "rest_pattern" => {
                            rest = Self::named_children(c)
                                .first()
                                .map(|n| Box::new(self.pattern(*n)));
                            expect_item = false;
                        }
                        _ => {
                            items.push(Some(self.pattern(c)));
                            expect_item = false;
                        }
                    }
                }
                Pattern::Array(items, rest)
            }
            "assignment_pattern" => {
                let left = node
                    .field(F::Left)
                    .map(|l| self.pattern(l))
                    .unwrap_or(Pattern::Ignored);
                let right = node
                    .field(F::Right)
                    .map(|r| self.expr(r))
                    .unwrap_or(Expr::Undefined);
                Pattern::Default(Box::new(left), Box::new(right))
            }
            "rest_pattern" => Self::named_children(node)
                .first()
                .map(|n| self.pattern(*n))
                .unwrap_or(Pattern::Ignored),
            "required_parameter" | "optional_parameter" => node
                .field(F::Pattern)
                .map(|n| self.pattern(n))
                .unwrap_or(Pattern::Ignored),
            "member_expression" | "subscript_expression" => {
                Pattern::Target(Box::new(self.expr(node)))
            }
            "parenthesized_expression" => Self::named_children(node)
                .first()
                .map(|n| self.pattern(*n))
                .unwrap_or(Pattern::Ignored),
            _ => Pattern::Ignored,
        }
    }

    pub(crate) fn string(&mut self, node: Node) -> String {
        // Without its quotes. A string that error recovery cut short may end
        // in any character, not a one-byte quote: drop whole characters.
        let mut inner = self.text(node).chars();
        if inner.next().is_some() && inner.next_back().is_some() {
            unescape(inner.as_str())
        } else {
            String::new()
        }
    }
}
