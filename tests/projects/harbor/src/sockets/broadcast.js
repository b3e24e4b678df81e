// Fan a payload out to every client on the default namespace.
// The event name is a parameter: callers pass string literals.
export function broadcastTo(io, event, payload) {
  io.emit(event, { ...payload, at: new Date().toISOString() });
}
