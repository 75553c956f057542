// GASNET_RCV_THREAD: a thread per rank that serves incoming AMs while the
// application computes without polling, as GASNet's ibv conduit offers.
// It starts when the segment is attached and backs off when idle, so that it
// does not take a core the application needs.
#pragma once

namespace gexx::core {

class Runtime;

// Starts the thread if GASNET_RCV_THREAD is set (once; at attach).
void start_progress_thread(Runtime &rt);
// Stops it and waits (briefly) until it is out of the AM engine. Safe to
// call from any thread, the progress thread included, and more than once.
void stop_progress_thread();

}  // namespace gexx::core
