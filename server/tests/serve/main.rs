//! `portolan serve` through `app(state)` with `tower::ServiceExt::oneshot`:
//! no socket, except where an upstream of ours is needed.

mod util;

mod binary;
mod calls;
mod catalog;
mod documents;
mod failures;
mod jwt;
mod mcp;
mod openapi;
mod recipes;
mod reload;
mod replicas;
mod store;
mod upstream;
mod v1;
