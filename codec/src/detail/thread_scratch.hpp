#pragma once
// The per-thread scratch buffers of readers and writers, reused from one call to the next so
// that steady-state decoding and encoding allocate nothing: csv, ini, urlform, dotenv, ron.

namespace polycodec::detail {

/// The calling thread's `Scratch` (one object per instantiation), each of `Members` (pointers
/// to members with a clear()) emptied first.
template <class Scratch, auto... Members>
Scratch& thread_scratch() {
    thread_local Scratch s;
    ((s.*Members).clear(), ...);
    return s;
}

}  // namespace polycodec::detail
