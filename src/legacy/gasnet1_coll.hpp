// The GASNet-1 collectives' hook into start-up: their internal AM handler
// is registered with the job's handler table before any client code runs
// (a peer may send to it as soon as it enters its first collective).
#pragma once

namespace gexx::core {
class HandlerTable;
}

namespace gexx::legacy {

void register_g1coll_handler(core::HandlerTable &handlers);

}  // namespace gexx::legacy
