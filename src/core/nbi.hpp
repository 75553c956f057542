// Implicit-event (NBI) bookkeeping: access regions are per thread.
#pragma once

namespace gexx::core {

void begin_access_region(const char *api);
void end_access_region(const char *api);

}  // namespace gexx::core
