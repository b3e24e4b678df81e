//! What the modelled packages mean: one module per package family, each
//! holding the package's module value, members, calls and the hooks the
//! machine asks about (a route guard, a schema library's parts, a socket's
//! events).
//!
//! Deliberately not here: JavaScript itself (`machine`), and Node's own
//! modules (`machine::node`).
//!
//! Where the code is not yet in its target shape: the machine still names
//! these modules directly (see ARCHITECTURE.md, "Not yet in shape").

pub(crate) mod dropins;
pub(crate) mod express;
pub(crate) mod guards;
pub(crate) mod loaders;
pub(crate) mod lodash;
pub(crate) mod nest;
pub(crate) mod routing_controllers;
pub(crate) mod schemas;
pub(crate) mod socketio;
pub(crate) mod socketio_client;
