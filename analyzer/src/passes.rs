//! The schedule of one analysis run: the passes the machine makes over the
//! program, in order, and the modes each pass sets on the interpreter.
//! `pipeline.rs` takes them in this order and says which code each runs;
//! the modes are what the machine and the libraries read to decide how to
//! record what they see (a router made while `unreached_mode` is on is
//! marked unreached; registrations made while `event_mode` is on are not
//! recorded).
//!
//! Only [`Interp::enter`] sets a mode for the rest of the run. A helper that
//! needs another mode for a moment (a guard probe, Nest's controller files,
//! `run_uncalled`, a salvage replay) goes through [`Interp::with_mode`], which
//! puts the previous value back, so the pass's modes hold again after it.
//!
//! Deliberately not here: the work each pass does, which stays with the code
//! that does it; and the counters of what is running now (`socket_handlers`,
//! `dispatching`, `listener_site`), which are the machine's.

use crate::inventory::PhaseTiming;
use crate::machine::Interp;
use std::time::Instant;

/// One pass of a run, in the order `pipeline::analyze` takes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// The entries' top level and what it calls; then files that create an
    /// app no entry loaded (or the programs above them), programs of their
    /// own, forked modules, Nest's applications and Medusa's file routes.
    /// Every mode is off.
    Entries,
    /// Files declaring routers no entry loaded run as modules, then the
    /// salvage of uncalled code that builds apps or routers. Sets
    /// `unreached_mode` (what they make is marked as not reached by an
    /// entry); it stays on to the end of the run.
    Unreached,
    /// Route handlers run once with a request and a response (the
    /// contracts), and guards are probed. Sets `event_mode`: registrations
    /// made from here on are not recorded.
    Contracts,
    /// Modules that mention sockets and nobody loaded run as modules, a
    /// browser client's from the top of its program (the files above a
    /// module importing `socket.io-client` that nothing imports). Sets
    /// `loading_unreached` (their Socket.IO servers are separate ones).
    SocketModules,
    /// Dispatched listeners, uncalled functions with placeholder arguments,
    /// route handlers again and replays of emitters, for event sites.
    /// Clears `loading_unreached`.
    Uncalled,
    /// Catch-all listeners and relays are settled against what the run saw.
    /// Clears `event_mode`.
    Settle,
}

impl Phase {
    /// The pass's name in `--timings`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Phase::Entries => "entries",
            Phase::Unreached => "unreached",
            Phase::Contracts => "contracts",
            Phase::SocketModules => "socket-modules",
            Phase::Uncalled => "uncalled",
            Phase::Settle => "settle",
        }
    }
}

/// Times the passes of one run: [`PhaseClock::enter`] begins a pass (and
/// ends the one before), [`PhaseClock::finish`] ends the last.
#[derive(Default)]
pub(crate) struct PhaseClock {
    /// The pass running: its start, and the files parsed and modules run
    /// when it began.
    current: Option<(Phase, Instant, usize, usize)>,
    done: Vec<PhaseTiming>,
}

impl PhaseClock {
    /// Begin `phase` on `interp` (see [`Interp::enter`]).
    pub(crate) fn enter(&mut self, interp: &mut Interp, phase: Phase) {
        self.end(interp);
        interp.enter(phase);
        self.current = Some((
            phase,
            Instant::now(),
            parsed(interp),
            interp.js.modules.len(),
        ));
    }

    /// End the pass running; the passes in the order they ran.
    pub(crate) fn finish(mut self, interp: &Interp) -> Vec<PhaseTiming> {
        self.end(interp);
        self.done
    }

    fn end(&mut self, interp: &Interp) {
        if let Some((phase, start, files, modules)) = self.current.take() {
            self.done.push(PhaseTiming {
                name: phase.name(),
                ms: start.elapsed().as_secs_f64() * 1000.0,
                parsed: parsed(interp).saturating_sub(files),
                modules: interp.js.modules.len().saturating_sub(modules),
            });
        }
    }
}

/// Files parsed so far in the run.
fn parsed(interp: &Interp) -> usize {
    interp.loader.parsed.lock().map_or(0, |p| p.len())
}

impl Interp {
    /// Begin `phase`: set the modes it changes, and only those (see
    /// [`Phase`]).
    pub(crate) fn enter(&mut self, phase: Phase) {
        match phase {
            Phase::Entries => {}
            Phase::Unreached => self.modes.unreached_mode = true,
            Phase::Contracts => self.modes.event_mode = true,
            Phase::SocketModules => self.modes.loading_unreached = true,
            Phase::Uncalled => self.modes.loading_unreached = false,
            Phase::Settle => self.modes.event_mode = false,
        }
    }
}

/// How the machine and the libraries record what they see: set by the
/// schedule as each [`Phase`] begins, and for a moment by helpers through
/// [`Interp::with_mode`] (which puts the previous value back).
#[derive(Default)]
pub(crate) struct Modes {
    /// Running code no entry reached: what it makes is marked so (on from
    /// `Phase::Unreached`, see `passes.rs`).
    pub(crate) unreached_mode: bool,
    /// Do not record event sites (while re-running code for other reasons).
    pub(crate) sio_quiet: bool,
    /// Running code nobody calls to find event sites: registrations are not recorded.
    pub(crate) event_mode: bool,
    /// Loading modules no entry reached, looking for events
    /// (`Phase::SocketModules`).
    pub(crate) loading_unreached: bool,
}

/// One of the [`Modes`], to set for a moment with [`Interp::with_mode`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// [`Modes::unreached_mode`]: Nest's controller files no module imports
    /// load as unreached code.
    Unreached,
    /// [`Modes::event_mode`]: a guard probe runs a middleware alone, and route
    /// handlers, uncalled functions, emitters and dispatched listeners run
    /// looking for events, without recording registrations; off while a
    /// catch-all's lookup table is walked (its tests decide as they run).
    Events,
    /// [`Modes::sio_quiet`]: a salvage run (code run to find apps and
    /// routers) records no event sites.
    QuietSites,
}

impl Modes {
    fn flag(&mut self, mode: Mode) -> &mut bool {
        match mode {
            Mode::Unreached => &mut self.unreached_mode,
            Mode::Events => &mut self.event_mode,
            Mode::QuietSites => &mut self.sio_quiet,
        }
    }
}

impl Interp {
    /// Run `f` with `mode` set to `on`, then put back the value the mode had
    /// before (whatever `f` did to it): the one way a helper changes a mode,
    /// so a pass's modes hold again when the helper returns. E.g.
    /// `probe_guards` runs every middleware alone in `Mode::Events`, and
    /// `replay_emitters` runs in it and leaves it as `Phase::Uncalled` set it.
    pub(crate) fn with_mode<T>(
        &mut self,
        mode: Mode,
        on: bool,
        f: impl FnOnce(&mut Interp) -> T,
    ) -> T {
        let was = std::mem::replace(self.modes.flag(mode), on);
        let out = f(self);
        *self.modes.flag(mode) = was;
        out
    }
}
