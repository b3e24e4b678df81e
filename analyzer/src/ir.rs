//! The per-file facts: a compact, serializable lowering of one JS/TS file.
//!
//! Captures: statements and expressions that can carry routing or event
//! meaning — declarations and patterns, calls, member chains, literals,
//! templates, functions, classes, imports/exports, control flow — each with
//! the 1-based line it starts on.
//!
//! Deliberately not captured: types (except the handful the resolver reads),
//! JSX other than its embedded expressions and its component elements (see
//! [`JSX_ELEMENT`]), operators other than `+` and the logical ones (they lower to
//! [`Expr::Opaque`]), comments. The IR depends only on the file's bytes, so it
//! is cached by content hash.

use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The callee of a JSX element whose tag is a component: `<Game socket={s}>
/// {kids}</Game>` lowers to a call of this name with the tag, the props
/// object and the children, as the classic JSX transform makes
/// `React.createElement(Game, { socket: s }, kids)` (a name no program can
/// bind; `libs/react.rs` says what rendering does).
pub(crate) const JSX_ELEMENT: &str = "<jsx>";

/// A lowered source file.
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub(crate) struct FileFacts {
    /// Top-level statements in source order.
    pub(crate) body: Vec<Stmt>,
    /// Lines of syntax errors (first few), with a short reason.
    pub(crate) parse_errors: Vec<(u32, String)>,
    /// Specifiers of the modules the top level uses at once (imports read
    /// outside functions, top-level `require('x')`): parsed ahead on load.
    pub(crate) eager: Vec<String>,
    /// Per function id (sorted), the import specifiers it reads: parsed
    /// ahead when the function is registered as a route handler.
    pub(crate) fn_imports: Vec<(u32, Vec<String>)>,
    /// Nesting that was too deep to lower (line), reported as a finding.
    pub(crate) too_deep: Vec<u32>,
    /// Every `require('x')` and `import('x')` with a literal specifier, in
    /// functions too, first occurrence order (the static import graph).
    #[serde(default)]
    pub(crate) literal_requires: Vec<String>,
    /// Number of functions lowered (function ids are `0..functions`).
    pub(crate) functions: u32,
    /// Registration-shaped calls (see [`crate::census`]).
    #[serde(default)]
    pub(crate) census: Vec<crate::census::CensusItem>,
    /// Literal `require`/`import()` calls inside functions, with the
    /// functions around them (see [`crate::census::LoadSite`]).
    #[serde(default)]
    pub(crate) loads: Vec<crate::census::LoadSite>,
}

impl FileFacts {
    /// The specifiers of every module this file names statically: imports,
    /// re-exports and literal `require`/`import()` calls, anywhere.
    pub(crate) fn named_modules(&self) -> impl Iterator<Item = &str> {
        self.static_sources()
            .chain(self.literal_requires.iter().map(String::as_str))
    }

    /// The names that the decorators of the classes the module's top level
    /// declares are applied through (`RestController` of
    /// `@RestController('/tags')`, `ws` of `@ws.On()`), in source order.
    pub(crate) fn class_decorator_roots(&self) -> Vec<&str> {
        fn root(e: &Expr) -> Option<&str> {
            match e {
                Expr::Ident(n) => Some(n),
                Expr::Member(o, _) => root(o),
                _ => None,
            }
        }
        fn collect<'a>(st: &'a Stmt, out: &mut Vec<&'a str>) {
            match st {
                Stmt::Class(_, c) => {
                    let all = c
                        .decorators
                        .iter()
                        .chain(c.member_decorators.iter().flat_map(|(_, d)| d))
                        .chain(c.param_decorators.iter().map(|(_, _, d)| d));
                    out.extend(all.filter_map(|d| root(&d.callee)));
                }
                Stmt::ExportDecl(inner, _) => collect(inner, out),
                _ => {}
            }
        }
        let mut out = Vec::new();
        for st in &self.body {
            collect(st, &mut out);
        }
        out
    }

    /// The imports and re-exports a module loads when it runs, in source
    /// order: [`FileFacts::static_sources`] without TypeScript's type-only
    /// imports.
    pub(crate) fn value_imports(&self) -> impl Iterator<Item = &str> {
        self.body.iter().filter_map(|st| match st {
            Stmt::Import(imp) if imp.type_only => None,
            Stmt::Import(imp) => Some(imp.source.as_str()),
            Stmt::ExportNames(_, Some(s), _) | Stmt::ExportAll(s, _, _) => Some(s.as_str()),
            _ => None,
        })
    }

    /// [`FileFacts::named_modules`] without TypeScript's type-only imports
    /// (`import type { X } from`, every name imported `type`), which the
    /// compiler erases: the file does not load those modules at run time.
    pub(crate) fn loaded_modules(&self) -> impl Iterator<Item = &str> {
        self.value_imports()
            .chain(self.literal_requires.iter().map(String::as_str))
    }

    /// The specifiers of the static imports and re-exports (`import … from`,
    /// `export … from`, `export * from`), in source order.
    pub(crate) fn static_sources(&self) -> impl Iterator<Item = &str> {
        self.body.iter().filter_map(|st| match st {
            Stmt::Import(imp) => Some(imp.source.as_str()),
            Stmt::ExportNames(_, Some(s), _) | Stmt::ExportAll(s, _, _) => Some(s.as_str()),
            _ => None,
        })
    }
}

/// A statement.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum Stmt {
    /// An expression statement.
    Expr(Expr),
    /// `const`/`let`/`var` declarations.
    Var(Vec<(Pattern, Option<Expr>)>),
    /// A function declaration (hoisted).
    Function(String, Arc<Func>),
    /// A class declaration.
    Class(String, Arc<Class>),
    /// `return`.
    Return(Option<Expr>),
    /// `throw` and the line it is on.
    Throw(Expr, u32),
    /// `if`: test, its source text, consequence, alternative, line.
    If(Expr, String, Vec<Stmt>, Vec<Stmt>, u32),
    /// `for (x of|in y)`: pattern, iterable, `true` for `in`, body, iterable text, line.
    ForOf(Pattern, Expr, bool, Vec<Stmt>, String, u32),
    /// `while` and `do … while`.
    While(Box<WhileStmt>),
    /// `for (init; test; update) body`: run as written while the test is
    /// known, else once with what is known.
    For(Box<ForStmt>),
    /// `break` with its label, if any.
    Break(Option<String>),
    /// `continue` with its label, if any.
    Continue(Option<String>),
    /// `label: statement`.
    Labeled(String, Box<Stmt>),
    /// A block.
    Block(Vec<Stmt>),
    /// `try`/`catch`/`finally`: block, catch clause, handler, finalizer.
    Try(Vec<Stmt>, Catch, Vec<Stmt>, Vec<Stmt>),
    /// `switch`: discriminant and the cases.
    Switch(Expr, Vec<SwitchCase>),
    /// `import ... from 'source'`.
    Import(Import),
    /// `export { a as b }` or `export { a as b } from 'source'`.
    ExportNames(Vec<(String, String)>, Option<String>, u32),
    /// `export * from 'source'` or `export * as ns from 'source'`.
    ExportAll(String, Option<String>, u32),
    /// `export <declaration>`: the declaration and the names it binds.
    ExportDecl(Box<Stmt>, Vec<String>),
    /// `export default <expr>`.
    ExportDefault(Expr),
    /// TypeScript `enum`: name and members with constant values when literal.
    Enum(String, Vec<(String, Option<Expr>)>),
    /// TypeScript interface or type alias, kept for event payload typing.
    TypeDecl(String, TypeExpr),
}

/// A `for (init; test; update)` loop.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ForStmt {
    /// The initializer (`let i = 0`), run once.
    pub(crate) init: Vec<Stmt>,
    /// The test; `None` for `for (;;)`.
    pub(crate) test: Option<Expr>,
    /// The update (`i++`).
    pub(crate) update: Option<Expr>,
    /// The body.
    pub(crate) body: Vec<Stmt>,
    /// The test's source text, for findings.
    pub(crate) text: String,
    /// 1-based line.
    pub(crate) line: u32,
}

/// A `while (test) body` or `do body while (test)` loop.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct WhileStmt {
    /// The test.
    pub(crate) test: Expr,
    /// The body.
    pub(crate) body: Vec<Stmt>,
    /// Whether the body runs once before the test is read (`do … while`).
    pub(crate) body_first: bool,
    /// The test's source text, for findings.
    pub(crate) text: String,
    /// 1-based line.
    pub(crate) line: u32,
}

/// One `case` (or `default`) of a `switch`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct SwitchCase {
    /// The case value; `None` for `default`.
    pub(crate) test: Option<Expr>,
    /// The statements.
    pub(crate) body: Vec<Stmt>,
    /// Whether control leaves the switch at the end (`break`, `return`, `throw`).
    pub(crate) exits: bool,
}

/// An import declaration.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Import {
    /// The module specifier.
    pub(crate) source: String,
    /// `import x from`.
    pub(crate) default: Option<String>,
    /// `import * as ns from`.
    pub(crate) namespace: Option<String>,
    /// `import { a as b }`: (imported, local).
    pub(crate) named: Vec<(String, String)>,
    /// 1-based line.
    pub(crate) line: u32,
    /// TypeScript `import type …` (or every name imported `type`): erased
    /// when compiled, so the module is not loaded at run time.
    #[serde(default)]
    pub(crate) type_only: bool,
}

/// The `catch` clause of a `try` statement: an empty handler still stops
/// the exception (`try { send(); return } catch {}` goes on after the `try`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum Catch {
    /// No `catch` clause (`try { … } finally { … }`): the exception goes on.
    Absent,
    /// `catch { … }`, binding nothing.
    Unbound,
    /// `catch (err) { … }`.
    Bound(Pattern),
}

impl Catch {
    /// The pattern the clause binds the exception to, if any.
    pub(crate) fn binding(&self) -> Option<&Pattern> {
        match self {
            Catch::Bound(p) => Some(p),
            Catch::Absent | Catch::Unbound => None,
        }
    }
}

/// A binding pattern.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum Pattern {
    /// A plain name.
    Ident(String),
    /// `{ a, b: c, d = 1, ...rest }`.
    Object(Vec<(PropKey, Pattern)>, Option<Box<Pattern>>),
    /// `[a, , b, ...rest]`.
    Array(Vec<Option<Pattern>>, Option<Box<Pattern>>),
    /// `p = default`.
    Default(Box<Pattern>, Box<Expr>),
    /// An assignment target that is not a name (`this.x`, `a.b`).
    Target(Box<Expr>),
    /// Something the lowering does not model.
    Ignored,
}

/// An object property key.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum PropKey {
    /// A static key.
    Name(String),
    /// A computed key `[expr]`.
    Computed(Box<Expr>),
}

/// A function, arrow, or method.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Func {
    /// Unique within the file.
    pub(crate) id: u32,
    /// Name when declared with one.
    pub(crate) name: Option<String>,
    /// Parameters.
    pub(crate) params: Vec<Pattern>,
    /// Parameter type annotations (source text), parallel to `params`.
    pub(crate) param_types: Vec<Option<TypeExpr>>,
    /// Body statements; a concise arrow body is one `Return`.
    pub(crate) body: Vec<Stmt>,
    /// 1-based line of the function start.
    pub(crate) line: u32,
    /// JSDoc block right before the function (or its declaration), if any.
    pub(crate) doc: Option<String>,
    /// An arrow function (lexical `this`).
    pub(crate) arrow: bool,
    /// The last parameter is a rest parameter (`...args`): it gets an array of the remaining arguments.
    pub(crate) rest: bool,
    /// `async function`, `function*`, `async function*`: what its
    /// `constructor.name` says (`AsyncFunction`, `GeneratorFunction`, …).
    pub(crate) kind: FuncKind,
}

/// The kind of function a declaration makes (its constructor in JavaScript).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum FuncKind {
    /// `function`, arrow, method.
    #[default]
    Plain,
    /// `async function`, `async () =>`, `async m()`.
    Async,
    /// `function*`.
    Generator,
    /// `async function*`.
    AsyncGenerator,
}

impl FuncKind {
    /// The name of its constructor (`fn.constructor.name`).
    pub(crate) fn constructor_name(self) -> &'static str {
        match self {
            FuncKind::Plain => "Function",
            FuncKind::Async => "AsyncFunction",
            FuncKind::Generator => "GeneratorFunction",
            FuncKind::AsyncGenerator => "AsyncGeneratorFunction",
        }
    }
}

/// A class.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Class {
    /// Class name.
    pub(crate) name: Option<String>,
    /// `extends` expression.
    pub(crate) superclass: Option<Expr>,
    /// Instance fields with initializers.
    pub(crate) fields: Vec<(String, Option<Expr>)>,
    /// Static fields with initializers.
    pub(crate) static_fields: Vec<(String, Option<Expr>)>,
    /// Methods, by name.
    pub(crate) methods: Vec<(String, Arc<Func>)>,
    /// Getters (`get app() { … }`), by name: reading the property runs them.
    pub(crate) getters: Vec<(String, Arc<Func>)>,
    /// Setters (`set apiRouter(r) { … }`), by name: assigning the property
    /// on an instance runs them. (Also in `methods`, where the passes over
    /// uncalled code find them.)
    pub(crate) setters: Vec<(String, Arc<Func>)>,
    /// Static methods.
    pub(crate) static_methods: Vec<(String, Arc<Func>)>,
    /// Static getters (`static get base() { … }`), by name: reading the
    /// property on the class runs them with the class as `this`.
    pub(crate) static_getters: Vec<(String, Arc<Func>)>,
    /// The constructor.
    pub(crate) constructor: Option<Arc<Func>>,
    /// 1-based line.
    pub(crate) line: u32,
    /// Decorators on the class (`@WebSocketGateway({...})`), in source order.
    pub(crate) decorators: Vec<Decorator>,
    /// Decorators on fields and methods, by member name.
    pub(crate) member_decorators: Vec<(String, Vec<Decorator>)>,
    /// Decorators on method parameters: (method, parameter index, decorator).
    pub(crate) param_decorators: Vec<(String, usize, Decorator)>,
    /// Instance fields declared with a type (`name?: string`): (name,
    /// optional, type). DTO classes state request schemas this way.
    pub(crate) field_types: Vec<(String, bool, TypeExpr)>,
    /// The constructor's TypeScript parameter properties (`constructor(private
    /// socket: Socket)`): name and parameter index. The constructor's body
    /// starts with their assignments (`this.socket = socket`); TypeScript
    /// makes them before the field initializers, which may read them.
    pub(crate) param_props: Vec<(String, usize)>,
}

impl Class {
    /// The decorators on member `name` (every declaration of it, in order).
    pub(crate) fn decorators_of(&self, name: &str) -> Vec<Decorator> {
        self.member_decorators
            .iter()
            .filter(|(m, _)| m == name)
            .flat_map(|(_, d)| d.clone())
            .collect()
    }

    /// The decorators of method `name`'s parameters, with each parameter's index.
    pub(crate) fn param_decorators_of(&self, name: &str) -> Vec<(usize, Decorator)> {
        self.param_decorators
            .iter()
            .filter(|(m, _, _)| m == name)
            .map(|(_, i, d)| (*i, d.clone()))
            .collect()
    }
}

/// A decorator: `@name` or `@name(args)`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Decorator {
    /// What is applied (`SubscribeMessage`, `ws.SubscribeMessage`).
    pub(crate) callee: Expr,
    /// The arguments when the decorator is a call.
    pub(crate) args: Vec<Expr>,
    /// Whether the decorator is a call (`@Get()`, not `@Get`): then what the
    /// call returns is the decorator.
    pub(crate) called: bool,
    /// 1-based line of the `@`.
    pub(crate) line: u32,
}

/// A TypeScript type, reduced to what payload schemas need.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum TypeExpr {
    /// A named reference with type arguments (`Request<P, B>`, `Foo`).
    Ref(String, Vec<TypeExpr>),
    /// An object literal type / interface body: (name, optional, type).
    Object(Vec<(String, bool, TypeExpr)>),
    /// A function type (parameters) — used for event maps and ack callbacks.
    Function(Vec<(String, bool, TypeExpr)>),
    /// `T[]` or `Array<T>`.
    Array(Box<TypeExpr>),
    /// Tuple.
    Tuple(Vec<TypeExpr>),
    /// Union.
    Union(Vec<TypeExpr>),
    /// A string literal type.
    StrLit(String),
    /// A number literal type.
    NumLit(f64),
    /// A primitive keyword (`string`, `number`, `boolean`, `null`, `any`, ...).
    Prim(String),
    /// A type with a description (a JSDoc `@property {T} name - text`).
    Described(Box<TypeExpr>, String),
    /// Anything else.
    Other,
}

/// An expression. Lines are 1-based.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum Expr {
    /// A string literal (unescaped).
    Str(String),
    /// A number literal.
    Num(f64),
    /// `true`/`false`.
    Bool(bool),
    /// `null`.
    Null,
    /// `undefined`.
    Undefined,
    /// A regex literal, as written (`/a+/i`).
    Regex(String),
    /// A template literal: quasis (one more than expressions) and expressions.
    Template(Vec<String>, Vec<Expr>),
    /// A name.
    Ident(String),
    /// `this`.
    This,
    /// `super`.
    Super,
    /// `obj.prop` / `obj?.prop`.
    Member(Box<Expr>, String),
    /// `obj[expr]`.
    Index(Box<Expr>, Box<Expr>),
    /// A call; the line is the line of the callee's property name for member
    /// calls (`router\n  .get(` → the `get` line), else the call start.
    Call(Box<Call>),
    /// `new X(args)`.
    New(Box<Expr>, Vec<Expr>, u32),
    /// `[a, ...b]`.
    Array(Vec<Expr>),
    /// `{ ... }`.
    Object(Vec<ObjProp>),
    /// A function or arrow.
    Func(Arc<Func>),
    /// A class expression.
    Class(Arc<Class>),
    /// `a + b`.
    Add(Box<Expr>, Box<Expr>),
    /// `a && b`, `a || b`, `a ?? b`: operator, left, right.
    Logical(LogicalOp, Box<Expr>, Box<Expr>),
    /// `test ? a : b` with the test's text.
    Cond(Box<Expr>, String, Box<Expr>, Box<Expr>),
    /// `target = value` (also `||=`, `??=`, `&&=`).
    Assign(Box<Pattern>, Box<Expr>),
    /// `i++`, `--i`: `target` set to the number `value` holds plus `step`
    /// (1 or -1); the expression's value is the number before the step
    /// (postfix) or after it (`prefix`).
    Update {
        target: Box<Pattern>,
        value: Box<Expr>,
        step: f64,
        prefix: bool,
    },
    /// `await x` (also `yield x`).
    Await(Box<Expr>),
    /// `typeof x`, `!x`, `void x`, etc. — the operand is still evaluated.
    Unary(String, Box<Expr>),
    /// `a, b`.
    Seq(Vec<Expr>),
    /// `...x` inside arrays and calls.
    Spread(Box<Expr>),
    /// `a * b`, `a / b`, `a % b`, `a ** b` and the bitwise operators
    /// (`|`, `&`, `^`, `<<`, `>>`, `>>>`): operator, left, right. Always a
    /// number in JavaScript (a BigInt aside); folded when both are known.
    Arith(String, Box<Expr>, Box<Expr>),
    /// `a === b`, `a !== b`, etc. (kept to fold constant tests).
    Compare(String, Box<Expr>, Box<Expr>),
    /// `expr as T` / `const x: T = expr`: a value with a declared type.
    Typed(Box<Expr>, TypeExpr),
    /// Anything else; its line.
    Opaque(u32),
}

/// Logical operators.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) enum LogicalOp {
    /// `&&`
    And,
    /// `||`
    Or,
    /// `??`
    Nullish,
}

/// A call expression.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Call {
    /// The callee.
    pub(crate) callee: Expr,
    /// The arguments.
    pub(crate) args: Vec<Expr>,
    /// Line (see [`Expr::Call`]).
    pub(crate) line: u32,
    /// Type arguments, when written (`app.get<P>(...)`, `new Server<A, B>()`).
    pub(crate) type_args: Vec<TypeExpr>,
    /// JSDoc block that ends right before the statement holding this call.
    pub(crate) doc: Option<String>,
}

/// An object literal member.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum ObjProp {
    /// `key: value` (also shorthand `key`).
    KeyValue(PropKey, Expr),
    /// `...expr`.
    Spread(Expr),
    /// A method.
    Method(PropKey, Arc<Func>),
    /// A getter (`get name() { … }`): runs when the property is read.
    /// (Setters are not kept.)
    Getter(PropKey, Arc<Func>),
}
